package store

import "context"

// SchemaVersion is the newest version of Postgres's schema.
var SchemaVersion = len(migrations) - 1

// Prune runs the forgetting of old finished deliveries now.
func (p *Postgres) Prune(ctx context.Context) (int64, error) { return p.prune(ctx) }

// KeySeed seeds the hash of a key's advisory lock.
const KeySeed = keySeed

// Migrations are the schema's versions, for tests that start from an
// older one.
var Migrations = migrations

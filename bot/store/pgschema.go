package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's versions, in order; a version once released
// never changes — a change is a new version.
var migrations = []string{
	1: `
CREATE TABLE gcloop_deliveries (
	id           text PRIMARY KEY,
	seq          bigint GENERATED ALWAYS AS IDENTITY,
	event        text NOT NULL,
	payload      bytea,
	key          text NOT NULL DEFAULT '',
	installation bigint NOT NULL DEFAULT 0,
	received     timestamptz NOT NULL,
	state        text NOT NULL DEFAULT 'pending'
	             CHECK (state IN ('pending', 'claimed', 'done', 'ignored', 'failed')),
	attempts     integer NOT NULL DEFAULT 0,
	worker       text,
	lease_until  timestamptz,
	finished     timestamptz
);
CREATE INDEX gcloop_deliveries_pending ON gcloop_deliveries (seq) WHERE state = 'pending';
CREATE INDEX gcloop_deliveries_open_key ON gcloop_deliveries (key, seq) WHERE state IN ('pending', 'claimed');
CREATE INDEX gcloop_deliveries_claimed ON gcloop_deliveries (lease_until) WHERE state = 'claimed';

CREATE TABLE gcloop_events (
	id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	time timestamptz NOT NULL,
	type text NOT NULL,
	repo text NOT NULL DEFAULT '',
	pr   integer NOT NULL DEFAULT 0,
	loop text NOT NULL DEFAULT '',
	data bytea
);
`,
	2: `
CREATE INDEX gcloop_deliveries_finished ON gcloop_deliveries (finished) WHERE finished IS NOT NULL;
`,
	// 3: replays refused by digest, retries with a time not to claim
	// before, dead deliveries kept with their payload and last error,
	// and installations taking turns.
	3: `
ALTER TABLE gcloop_deliveries DROP CONSTRAINT gcloop_deliveries_state_check;
UPDATE gcloop_deliveries SET state = 'dead' WHERE state = 'failed';
ALTER TABLE gcloop_deliveries ADD CONSTRAINT gcloop_deliveries_state_check
	CHECK (state IN ('pending', 'claimed', 'done', 'ignored', 'dead'));
ALTER TABLE gcloop_deliveries
	ADD COLUMN digest        text,
	ADD COLUMN not_before    timestamptz,
	ADD COLUMN first_claimed timestamptz,
	ADD COLUMN error         text;
CREATE UNIQUE INDEX gcloop_deliveries_digest ON gcloop_deliveries (digest) WHERE digest IS NOT NULL;
DROP INDEX gcloop_deliveries_pending;
CREATE INDEX gcloop_deliveries_pending ON gcloop_deliveries (installation, seq) WHERE state = 'pending';
CREATE INDEX gcloop_deliveries_dead ON gcloop_deliveries (finished, seq) WHERE state = 'dead';

CREATE SEQUENCE gcloop_turn_seq;
CREATE TABLE gcloop_turns (
	installation bigint PRIMARY KEY,
	served       bigint NOT NULL
);
`,
	4: pacerSchema, // pgpacer.go
	// 5: leases that ran out are counted apart from the attempts, so that
	// only workers dying buries a delivery, not transient retries.
	5: `ALTER TABLE gcloop_deliveries ADD COLUMN lease_outs integer NOT NULL DEFAULT 0;`,
	// 6: the head of each key marked, so that a claim finds the next
	// claimable delivery in one index probe however deep one key's
	// backlog is (see pgheads.go). A replica of an older version inserts
	// rows marked as heads: a head too many costs a claim a probe, never
	// a delivery. And payloads stored as they are: compressing each 10 KB
	// webhook body (pglz) was most of the database's CPU per delivery, for
	// a body kept only until its delivery is done.
	6: `
ALTER TABLE gcloop_deliveries ADD COLUMN head boolean NOT NULL DEFAULT true;
UPDATE gcloop_deliveries d SET head = false
WHERE d.state IN ('pending', 'claimed') AND d.key <> '' AND EXISTS (
	SELECT 1 FROM gcloop_deliveries o
	WHERE o.key = d.key AND o.state IN ('pending', 'claimed') AND o.seq < d.seq);
CREATE INDEX gcloop_deliveries_ready ON gcloop_deliveries (installation, seq) WHERE state = 'pending' AND head;
CREATE INDEX gcloop_deliveries_claimed_key ON gcloop_deliveries (key) WHERE state = 'claimed';
CREATE INDEX gcloop_deliveries_heads ON gcloop_deliveries (key, seq) WHERE head AND state IN ('pending', 'claimed');
ALTER TABLE gcloop_deliveries ALTER COLUMN payload SET STORAGE EXTERNAL;
`,
}

// Advisory lock ids of the store (pg_advisory_xact_lock's one-bigint
// space): "gcloop" and a number.
const (
	lockMigrate int64 = 0x6763_6c6f_6f70_0001
	lockEvents  int64 = 0x6763_6c6f_6f70_0002
	// keySeed seeds hashtextextended for the per-key locks.
	keySeed int64 = 0x6763_6c6f_6f70
)

// migrate brings the schema to the newest version, in one transaction
// under an advisory lock, so replicas that start together migrate once.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockMigrate); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS gcloop_schema_migrations (
	version integer PRIMARY KEY,
	applied timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return fmt.Errorf("gcloop_schema_migrations: %w", err)
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM gcloop_schema_migrations`).Scan(&have); err != nil {
			return fmt.Errorf("schema version: %w", err)
		}
		// A newer replica may have migrated further: its versions only
		// add, so this one runs on.
		for v := have + 1; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("version %d: %w", v, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO gcloop_schema_migrations (version) VALUES ($1)`, v); err != nil {
				return fmt.Errorf("version %d: %w", v, err)
			}
		}
		return nil
	})
}

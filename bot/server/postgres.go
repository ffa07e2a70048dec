package server

import (
	"context"
	"errors"

	"github.com/gcloop/gcloop/bot/store"
)

// openPostgres opens the store shared by replicas.
func openPostgres(ctx context.Context, url string) (store.Store, error) {
	return nil, errors.New("GCLOOP_DATABASE_URL: this build has no PostgreSQL store; leave it empty for the in-memory store")
}

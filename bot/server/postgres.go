package server

import (
	"context"
	"fmt"

	"github.com/gcloop/gcloop/bot/store"
)

// openPostgres opens the store shared by replicas, migrating its schema.
func openPostgres(ctx context.Context, url string) (store.Store, error) {
	st, err := store.OpenPostgres(ctx, url, store.Options{})
	if err != nil {
		return nil, fmt.Errorf("GCLOOP_DATABASE_URL: %w", err)
	}
	return st, nil
}

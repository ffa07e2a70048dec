package store_test

import (
	"context"
	"testing"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/store/storetest"
	"github.com/gcloop/gcloop/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openPostgres opens a store on url, closed when t ends.
func openPostgres(t testing.TB, url string, opts store.Options) *store.Postgres {
	t.Helper()
	s, err := store.OpenPostgres(context.Background(), url+"&pool_max_conns=6", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, opts store.Options) store.Store {
		return openPostgres(t, pgtest.URL(t), opts)
	})
}

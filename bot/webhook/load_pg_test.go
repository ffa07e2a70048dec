package webhook_test

import (
	"context"
	"testing"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/pgtest"
)

// TestMain stops the private PostgreSQL cluster that BenchmarkLoad's
// postgres entry starts, if it started one.
func TestMain(m *testing.M) { pgtest.Main(m) }

func init() {
	loadStores = append(loadStores, struct {
		name string
		open func(tb testing.TB) loadStore
	}{"postgres", openPostgres})
}

// openPostgres is a Postgres store on a new database of the test binary's
// private cluster (skipped without a server, failed under CI=true).
func openPostgres(tb testing.TB) loadStore {
	tb.Helper()
	st, err := store.OpenPostgres(context.Background(), pgtest.URL(tb), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

package store_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/store/storetest"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
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

func TestOpenPostgresSaysWhichDatabaseFailed(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: the one a listener just let go.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	tests := []struct {
		name, url, want string
	}{
		{"a url that is not one", "postgres://u:secret@[::1", "database url"},
		{"a server that is not there", fmt.Sprintf("postgres://u:secret@127.0.0.1:%d/bot?connect_timeout=5", port), fmt.Sprintf("database bot on 127.0.0.1:%d", port)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := store.OpenPostgres(context.Background(), tt.url, store.Options{})
			if err == nil {
				s.Close()
				t.Fatal("OpenPostgres succeeded")
			}
			t.Logf("%q", err)
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret") {
				t.Fatalf("OpenPostgres = %v; want %q in it and no password", err, tt.want)
			}
		})
	}
}

func TestPostgresForgetsDeliveriesFinishedLongAgo(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	s := openPostgres(t, url, store.Options{})
	ctx := context.Background()
	for _, id := range []string{"old", "recent", "pending", "claimed"} {
		if _, err := s.Add(ctx, store.Delivery{ID: id, Event: "ping"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"old", "recent"} {
		d, _, err := s.Claim(ctx, "w", time.Minute)
		if err != nil || d.ID != id {
			t.Fatalf("Claim = %s, %v; want %s", d.ID, err, id)
		}
		if err := s.Finish(ctx, id, "w", store.Done); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Claim(ctx, "w", time.Minute); err != nil { // one claimed, one pending
		t.Fatal(err)
	}
	query[int](t, url, `WITH u AS (UPDATE gcloop_deliveries SET finished = now() - $1 * interval '1 microsecond'
		WHERE id = 'old' RETURNING 1) SELECT count(*) FROM u`, (store.Forget + time.Hour).Microseconds())
	n, err := s.Prune(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	tests := []struct {
		id    string
		added bool
	}{{"old", true}, {"recent", false}, {"pending", false}, {"claimed", false}}
	for _, tt := range tests {
		if added, err := s.Add(ctx, store.Delivery{ID: tt.id, Event: "ping"}); err != nil || added != tt.added {
			t.Errorf("Add(%s) after Prune = %v, %v; want %v", tt.id, added, err, tt.added)
		}
	}
}

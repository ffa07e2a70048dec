package server

import (
	"context"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/metrics"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// TestReplicasOnOneDatabaseShareThePacer: the GitHub options of two
// servers on one PostgreSQL database pace with one budget — a block one
// records holds the other's requests — and carry the config cache and the
// pacer's metrics; a server on the in-memory store paces on its own.
func TestReplicasOnOneDatabaseShareThePacer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	cfg := &Config{Budget: Budget{Writes: store.PaceLimits{PerMinute: 80, PerHour: 500}, ConfigCache: 10}}
	var opts []ghclient.Options
	for range 2 {
		st, err := store.OpenPostgres(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		s := &Server{cfg: cfg, store: st, metrics: metrics.New()}
		opts = append(opts, s.github(ghclient.Options{}))
	}
	if err := opts[0].Pacer.Block(ctx, 9, time.Hour); err != nil {
		t.Fatal(err)
	}
	if d, err := opts[1].Pacer.Blocked(ctx, 9); err != nil || d < 59*time.Minute {
		t.Errorf("the other replica sees a block of %s, %v; want about an hour", d, err)
	}
	for i, o := range opts {
		if o.Contents == nil || o.OnWait == nil || o.OnBlock == nil {
			t.Errorf("replica %d: options without the cache or the pacer's metrics: %+v", i, o)
		}
	}

	mem := &Server{cfg: &Config{}, store: store.NewMemory(store.Options{}), metrics: metrics.New()}
	o := mem.github(ghclient.Options{})
	if _, ok := o.Pacer.(*store.MemPacer); !ok {
		t.Errorf("the in-memory store's pacer is %T; want *store.MemPacer", o.Pacer)
	}
}

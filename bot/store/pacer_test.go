package store_test

import (
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/store/storetest"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

func TestMemPacer(t *testing.T) {
	t.Parallel()
	storetest.RunPacer(t, func(t *testing.T, limits store.PaceLimits, now func() time.Time) [2]store.Pacer {
		p := store.NewMemPacer(limits, now)
		return [2]store.Pacer{p, p}
	})
}

// TestPgPacer runs the suite on two replicas: two stores on one database,
// each with its own pacer.
func TestPgPacer(t *testing.T) {
	t.Parallel()
	storetest.RunPacer(t, func(t *testing.T, limits store.PaceLimits, now func() time.Time) [2]store.Pacer {
		_, rs := replicas(t, 2, store.Options{})
		return [2]store.Pacer{rs[0].Pacer(limits, now), rs[1].Pacer(limits, now)}
	})
}

// TestPgPacerOnTheDatabaseClock books on PostgreSQL's own clock: the
// budget holds without a clock given.
func TestPgPacerOnTheDatabaseClock(t *testing.T) {
	t.Parallel()
	s := openPostgres(t, pgtest.URL(t), store.Options{})
	p := s.Pacer(store.PaceLimits{PerMinute: 3, PerHour: 10}, nil)
	ctx := t.Context()
	for i := range 3 {
		if wait, booked, err := p.Reserve(ctx, 1, time.Hour); err != nil || !booked || wait != 0 {
			t.Fatalf("request %d: Reserve = %s, %v, %v; want no wait", i+1, wait, booked, err)
		}
	}
	wait, booked, err := p.Reserve(ctx, 1, time.Hour)
	if err != nil || !booked || wait < 55*time.Second || wait > time.Minute {
		t.Errorf("request 4: Reserve = %s, %v, %v; want a wait of nearly a minute", wait, booked, err)
	}
	if err := p.Block(ctx, 1, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if d, err := p.Blocked(ctx, 1); err != nil || d < time.Hour+55*time.Minute || d > 2*time.Hour {
		t.Errorf("Blocked = %s, %v; want nearly 2h", d, err)
	}
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// BenchmarkPacerReserve is what a content-creating request costs before
// it is sent: one booking in a budget that stays full (500 bookings in
// force, the most an hour's limit keeps), on a clock that moves a little
// more than the minute's pace, so that every booking goes at once.
func BenchmarkPacerReserve(b *testing.B) {
	run := func(b *testing.B, p func(now func() time.Time) store.Pacer) {
		t := time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)
		now := func() time.Time { return t }
		pacer := p(now)
		ctx := context.Background()
		step := time.Hour/time.Duration(store.DefaultPerHour) + time.Millisecond
		for range store.DefaultPerHour {
			if _, _, err := pacer.Reserve(ctx, 1, time.Hour); err != nil {
				b.Fatal(err)
			}
			t = t.Add(step)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			wait, _, err := pacer.Reserve(ctx, 1, time.Hour)
			if err != nil || wait != 0 {
				b.Fatalf("Reserve = %s, %v", wait, err)
			}
			t = t.Add(step)
		}
	}
	b.Run("Memory", func(b *testing.B) {
		run(b, func(now func() time.Time) store.Pacer { return store.NewMemPacer(store.PaceLimits{}, now) })
	})
	b.Run("Postgres", func(b *testing.B) {
		s, err := store.OpenPostgres(context.Background(), pgtest.URL(b), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, func(now func() time.Time) store.Pacer { return s.Pacer(store.PaceLimits{}, now) })
	})
}

// BenchmarkPacerBlocked is what a read costs before it is sent: whether a
// block is in force.
func BenchmarkPacerBlocked(b *testing.B) {
	s, err := store.OpenPostgres(context.Background(), pgtest.URL(b), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p := s.Pacer(store.PaceLimits{}, nil)
	ctx := context.Background()
	if err := p.Block(ctx, 1, time.Second); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := p.Blocked(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
}

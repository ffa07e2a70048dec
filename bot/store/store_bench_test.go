package store_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// A signed delivery's payload is a few kilobytes.
var benchPayload = []byte(fmt.Sprintf(`{"action":"created","comment":{"body":%q}}`, make([]byte, 4000)))

func benchStores(b *testing.B, run func(b *testing.B, s store.Store)) {
	b.Run("Memory", func(b *testing.B) {
		s := store.NewMemory(store.Options{})
		defer s.Close()
		b.ResetTimer()
		run(b, s)
	})
	b.Run("Postgres", func(b *testing.B) {
		// The pool as the bot opens it: pgx's default size.
		s, err := store.OpenPostgres(context.Background(), pgtest.URL(b), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ResetTimer()
		run(b, s)
	})
}

func opsPerSecond(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

var benchIDs atomic.Int64

func benchDelivery(i int64) store.Delivery {
	return store.Delivery{
		ID:           fmt.Sprintf("bench-%d", i),
		Event:        "issue_comment",
		Payload:      benchPayload,
		Key:          fmt.Sprintf("o/r#%d", i%100),
		Installation: 7,
		Received:     time.Now(),
	}
}

// BenchmarkAdd is the cost of a webhook's acknowledgment.
func BenchmarkAdd(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				if added, err := s.Add(ctx, benchDelivery(benchIDs.Add(1))); err != nil || !added {
					b.Errorf("Add = %v, %v", added, err)
					return
				}
			}
		})
		opsPerSecond(b)
	})
}

// BenchmarkClaimFinish is a worker's cost per delivery, 100 keys deep.
func BenchmarkClaimFinish(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		ctx := context.Background()
		for range b.N {
			if _, err := s.Add(ctx, benchDelivery(benchIDs.Add(1))); err != nil {
				b.Fatal(err)
			}
		}
		var workers atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			worker := fmt.Sprintf("w%d", workers.Add(1))
			for pb.Next() {
				d, ok, err := s.Claim(ctx, worker, time.Minute)
				if err != nil {
					b.Errorf("Claim: %v", err)
					return
				}
				if !ok {
					continue // every key held by the other workers
				}
				if err := s.Finish(ctx, d.ID, worker, store.Done); err != nil {
					b.Errorf("Finish: %v", err)
					return
				}
			}
		})
		opsPerSecond(b)
	})
}

// BenchmarkAppend is the cost of an event of the log.
func BenchmarkAppend(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		ch, err := s.Subscribe(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range ch {
			}
		}()
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			e := event.Event{Type: event.Decision, Repo: "o/r", PR: 1, Loop: "review", Data: []byte(`{"score":7}`)}
			for pb.Next() {
				if _, err := s.Append(ctx, e); err != nil {
					b.Errorf("Append: %v", err)
					return
				}
			}
		})
		opsPerSecond(b)
	})
}

// BenchmarkClaimDeepBacklog is a claim (and its finish) with 3 000
// deliveries of one installation queued, on 100 keys and none, and
// another installation's delivery among them: the queue's depth stays
// the same, as each finished delivery is replaced by a new one.
func BenchmarkClaimDeepBacklog(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		ctx := context.Background()
		deep := func(i int64) store.Delivery {
			d := benchDelivery(i)
			if i%3 == 0 {
				d.Key = ""
			}
			return d
		}
		for range 3000 {
			if _, err := s.Add(ctx, deep(benchIDs.Add(1))); err != nil {
				b.Fatal(err)
			}
		}
		other := benchDelivery(benchIDs.Add(1))
		other.Installation = 8
		if _, err := s.Add(ctx, other); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			d, ok, err := s.Claim(ctx, "w", time.Minute)
			if err != nil || !ok {
				b.Fatalf("Claim = %v, %v", ok, err)
			}
			if err := s.Finish(ctx, d.ID, "w", store.Done); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Add(ctx, deep(benchIDs.Add(1))); err != nil {
				b.Fatal(err)
			}
		}
		opsPerSecond(b)
	})
}

// BenchmarkAddBurst is Add from 32 goroutines at once, as a burst of
// webhooks on 32 connections: what a group commit shares.
func BenchmarkAddBurst(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				if added, err := s.Add(ctx, benchDelivery(benchIDs.Add(1))); err != nil || !added {
					b.Errorf("Add = %v, %v", added, err)
					return
				}
			}
		})
		opsPerSecond(b)
	})
}

// BenchmarkClaimBehindHotKey is a claim (and its finish) when 3 000
// deliveries of one pull request wait behind its delivery in work, and
// the one claimable delivery, of another pull request, arrived after
// them all: what one busy key's backlog costs every other claim.
func BenchmarkClaimBehindHotKey(b *testing.B) {
	benchStores(b, func(b *testing.B, s store.Store) {
		ctx := context.Background()
		hot := func(i int64) store.Delivery {
			d := benchDelivery(i)
			d.Key = "o/hot#1"
			return d
		}
		for range 3000 {
			if _, err := s.Add(ctx, hot(benchIDs.Add(1))); err != nil {
				b.Fatal(err)
			}
		}
		if d, ok, err := s.Claim(ctx, "busy", time.Hour); err != nil || !ok || d.Key != "o/hot#1" {
			b.Fatalf("Claim = %+v, %v, %v; want the hot key's first", d, ok, err)
		}
		cold := func(i int64) store.Delivery {
			d := benchDelivery(i)
			d.Key = "o/cold#2"
			return d
		}
		if _, err := s.Add(ctx, cold(benchIDs.Add(1))); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			d, ok, err := s.Claim(ctx, "w", time.Minute)
			if err != nil || !ok || d.Key != "o/cold#2" {
				b.Fatalf("Claim = %+v, %v, %v; want the cold key's", d, ok, err)
			}
			if err := s.Finish(ctx, d.ID, "w", store.Done); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Add(ctx, cold(benchIDs.Add(1))); err != nil {
				b.Fatal(err)
			}
		}
		opsPerSecond(b)
	})
}

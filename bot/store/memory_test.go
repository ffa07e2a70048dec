package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"testing"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/store/storetest"
)

func openMemory(t *testing.T, opts store.Options) store.Store {
	s := store.NewMemory(opts)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMemory(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openMemory)
}

// clock is a hand-moved clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestMemoryLeaseRunsOutExactlyAtItsEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name    string
		elapsed time.Duration
		lost    bool
	}{
		{"just before its end the claim holds", time.Minute - time.Nanosecond, false},
		{"at its end the claim is lost", time.Minute, true},
		{"after its end the claim is lost", time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			s := store.NewMemory(store.Options{Now: c.Now})
			defer s.Close()
			if _, err := s.Add(ctx, store.Delivery{ID: "a", Key: "o/r#1"}); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := s.Claim(ctx, "w1", time.Minute); !ok || err != nil {
				t.Fatalf("Claim = %v, %v", ok, err)
			}
			c.advance(tt.elapsed)
			d, ok, err := s.Claim(ctx, "w2", time.Minute)
			if err != nil || ok != tt.lost {
				t.Fatalf("Claim by another after %v = %v, %v; want %v", tt.elapsed, ok, err, tt.lost)
			}
			if ok && (d.ID != "a" || d.Attempts != 2) {
				t.Fatalf("Claim = %s attempt %d; want a attempt 2", d.ID, d.Attempts)
			}
			err = s.Finish(ctx, "a", "w1", store.Done)
			if lost := errors.Is(err, store.ErrLost); lost != tt.lost || (!lost && err != nil) {
				t.Fatalf("Finish by the first worker = %v; lost %v", err, tt.lost)
			}
		})
	}
}

func TestMemoryForgetsTheOldestFinishedIDsBeyondSeen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store.NewMemory(store.Options{Seen: 3})
	defer s.Close()
	for i := range 5 {
		id := fmt.Sprint(i)
		if _, err := s.Add(ctx, store.Delivery{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Claim(ctx, "w", time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, id, "w", store.Done); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		id    string
		added bool
	}{{"0", true}, {"1", true}, {"2", false}, {"3", false}, {"4", false}}
	for _, tt := range tests {
		// An id added again stays pending, so it evicts no seen one.
		added, err := s.Add(ctx, store.Delivery{ID: tt.id})
		if err != nil || added != tt.added {
			t.Errorf("Add(%s) = %v, %v; want %v", tt.id, added, err, tt.added)
		}
	}
}

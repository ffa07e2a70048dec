// Package storetest is the conformance suite of bot/store: every rule of
// the store.Store contract as a test, so that each implementation — Memory,
// Postgres, any later one — is held to the same behavior.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// Open returns a new, empty store opened with opts, closed when t ends.
type Open func(t *testing.T, opts store.Options) store.Store

// Run runs the conformance suite against the stores that open returns,
// one per subtest; the subtests run in parallel.
func Run(t *testing.T, open Open) {
	t.Run("queue", func(t *testing.T) { t.Parallel(); runQueue(t, open) })
	t.Run("leases", func(t *testing.T) { t.Parallel(); runLeases(t, open) })
	t.Run("retry", func(t *testing.T) { t.Parallel(); runRetry(t, open) })
	t.Run("fairness", func(t *testing.T) { t.Parallel(); runFairness(t, open) })
	t.Run("log", func(t *testing.T) { t.Parallel(); runLog(t, open) })
	t.Run("subscribe", func(t *testing.T) { t.Parallel(); runSubscribe(t, open) })
	t.Run("concurrency", func(t *testing.T) { t.Parallel(); runConcurrency(t, open) })
	t.Run("rekey concurrency", func(t *testing.T) { t.Parallel(); runRekeyConcurrency(t, open) })
	t.Run("adds while working", func(t *testing.T) { t.Parallel(); runAddWhileWorking(t, open) })
	t.Run("closed", func(t *testing.T) { t.Parallel(); runClosed(t, open) })
}

// Long is a lease that does not run out during a test.
const Long = time.Hour

// wait is how long a test waits for something that should happen at once.
const wait = 20 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// delivery is a delivery with id and key and a payload naming it.
func delivery(id, key string) store.Delivery {
	return store.Delivery{
		ID:           id,
		Event:        "issue_comment",
		Payload:      []byte(`{"id":"` + id + `"}`),
		Key:          key,
		Installation: 42,
		Received:     time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC),
	}
}

func mustAdd(t *testing.T, s store.Store, d store.Delivery) {
	t.Helper()
	added, err := s.Add(ctxFor(t), d)
	if err != nil || !added {
		t.Fatalf("Add(%s) = %v, %v; want true, nil", d.ID, added, err)
	}
}

func mustClaim(t *testing.T, s store.Store, worker string, lease time.Duration) store.Delivery {
	t.Helper()
	d, ok, err := s.Claim(ctxFor(t), worker, lease)
	if err != nil || !ok {
		t.Fatalf("Claim(%s) = %v, %v; want a delivery", worker, ok, err)
	}
	return d
}

// claimEventually polls Claim until it hands out a delivery (a lease ran
// out) or the wait ends.
func claimEventually(t *testing.T, s store.Store, worker string, lease time.Duration) store.Delivery {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		d, ok, err := s.Claim(ctxFor(t), worker, lease)
		if err != nil {
			t.Fatalf("Claim(%s): %v", worker, err)
		}
		if ok {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("Claim(%s) handed out nothing within %v", worker, wait)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s = %v; want %v", what, got, want)
	}
}

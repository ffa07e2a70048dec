package storetest

import (
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// short is a lease that runs out during a test; tests poll for it rather
// than sleep through it.
const short = 30 * time.Millisecond

func runLeases(t *testing.T, open Open) {
	t.Run("a claim whose lease ran out is pending again and lost to its worker", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", "o/r#1"))
		mustAdd(t, s, delivery("b", "o/r#1"))
		mustClaim(t, s, "dead", short)
		got := claimEventually(t, s, "alive", Long)
		if got.ID != "a" || got.Attempts != 2 {
			t.Fatalf("after the lease ran out, Claim = %s attempt %d; want a attempt 2", got.ID, got.Attempts)
		}
		ctx := ctxFor(t)
		wantErr(t, "Finish by the dead worker", s.Finish(ctx, "a", "dead", store.Done), store.ErrLost)
		wantErr(t, "Extend by the dead worker", s.Extend(ctx, "a", "dead", Long), store.ErrLost)
		wantErr(t, "Release by the dead worker", s.Release(ctx, "a", "dead"), store.ErrLost)
		if d, ok, err := s.Claim(ctx, "other", Long); err != nil || ok {
			t.Fatalf("Claim while a is claimed again = %s, %v, %v; want none", d.ID, ok, err)
		}
		if err := s.Finish(ctx, "a", "alive", store.Done); err != nil {
			t.Fatalf("Finish by the new worker: %v", err)
		}
		if d := mustClaim(t, s, "other", Long); d.ID != "b" {
			t.Fatalf("Claim = %s; want b", d.ID)
		}
	})

	t.Run("a lease that runs out leaves no claim to finish", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", ""))
		mustClaim(t, s, "w1", short)
		deadline := time.Now().Add(wait)
		for {
			n, err := s.Pending(ctxFor(t))
			if err != nil || n != 1 {
				t.Fatalf("Pending() = %d, %v; want 1", n, err)
			}
			err = s.Extend(ctxFor(t), "a", "w1", short)
			if err == store.ErrLost {
				break
			}
			if err != nil {
				t.Fatalf("Extend: %v", err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("a lease of %v extended by %v kept the claim for %v", short, short, wait)
			}
			time.Sleep(3 * short)
		}
		wantErr(t, "Finish after the lease", s.Finish(ctxFor(t), "a", "w1", store.Done), store.ErrLost)
	})

	t.Run("Extend starts the lease anew from now", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", ""))
		mustClaim(t, s, "w1", Long)
		if err := s.Extend(ctxFor(t), "a", "w1", short); err != nil {
			t.Fatalf("Extend: %v", err)
		}
		if got := claimEventually(t, s, "w2", Long); got.ID != "a" {
			t.Fatalf("Claim = %s; want a", got.ID)
		}
	})

	t.Run("attempts that ended in a retry do not count towards a dead lease", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", "o/r#1"))
		ctx := ctxFor(t)
		// Retried as many times as leases may run out: its worker lived.
		for i := 1; i <= store.MaxAttempts; i++ {
			d := claimEventually(t, s, "w", Long)
			if d.ID != "a" || d.Attempts != i {
				t.Fatalf("claim %d = %s attempt %d; want a attempt %d", i, d.ID, d.Attempts, i)
			}
			if err := s.Retry(ctx, "a", "w", 0, "GitHub answered 502"); err != nil {
				t.Fatal(err)
			}
		}
		// Then one worker dies: a is pending again, not dead.
		mustClaim(t, s, "dying", short)
		if d := claimEventually(t, s, "w", Long); d.ID != "a" || d.Attempts != store.MaxAttempts+2 {
			t.Fatalf("after the lease ran out, Claim = %s attempt %d; want a attempt %d", d.ID, d.Attempts, store.MaxAttempts+2)
		}
	})

	t.Run("a delivery whose leases ran out MaxAttempts times is dead", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", "o/r#1"))
		mustAdd(t, s, delivery("b", "o/r#1"))
		for i := 1; i <= store.MaxAttempts; i++ {
			d := claimEventually(t, s, "w", short)
			if d.ID != "a" || d.Attempts != i {
				t.Fatalf("claim %d = %s attempt %d; want a attempt %d", i, d.ID, d.Attempts, i)
			}
		}
		// a's last lease runs out: it is dead, and b is next.
		if d := claimEventually(t, s, "w", Long); d.ID != "b" || d.Attempts != 1 {
			t.Fatalf("after a died, Claim = %s attempt %d; want b attempt 1", d.ID, d.Attempts)
		}
		if err := dead([]string{"a"}, "lease ran out").do(t, s); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Pending(ctxFor(t)); err != nil || n != 1 {
			t.Fatalf("Pending() = %d, %v; want 1 (b)", n, err)
		}
		if added, err := s.Add(ctxFor(t), delivery("a", "")); err != nil || added {
			t.Fatalf("Add(a) after it died = %v, %v; want false", added, err)
		}
	})
}

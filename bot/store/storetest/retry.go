package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

func addDigest(id, key, digest string, added bool) step {
	return step{"add " + id + " digest " + digest, func(t *testing.T, s store.Store) error {
		d := delivery(id, key)
		d.Digest = digest
		got, err := s.Add(ctxFor(t), d)
		if err != nil || got != added {
			return fmt.Errorf("Add(%s, digest %q) = %v, %v; want %v", id, digest, got, err, added)
		}
		return nil
	}}
}

func retry(id, worker string, after time.Duration, reason string, want error) step {
	return step{"retry " + id + " by " + worker, func(t *testing.T, s store.Store) error {
		if err := s.Retry(ctxFor(t), id, worker, after, reason); !errors.Is(err, want) {
			return fmt.Errorf("Retry(%s, %s) = %v; want %v", id, worker, err, want)
		}
		return nil
	}}
}

func bury(id, worker, reason string, want error) step {
	return step{"bury " + id + " by " + worker, func(t *testing.T, s store.Store) error {
		if err := s.Bury(ctxFor(t), id, worker, reason); !errors.Is(err, want) {
			return fmt.Errorf("Bury(%s, %s) = %v; want %v", id, worker, err, want)
		}
		return nil
	}}
}

func rekey(id, worker, key string, want error) step {
	return step{"rekey " + id + " to " + key, func(t *testing.T, s store.Store) error {
		if err := s.Rekey(ctxFor(t), id, worker, key); !errors.Is(err, want) {
			return fmt.Errorf("Rekey(%s, %s, %s) = %v; want %v", id, worker, key, err, want)
		}
		return nil
	}}
}

func redeliver(id string, want error) step {
	return step{"redeliver " + id, func(t *testing.T, s store.Store) error {
		if err := s.Redeliver(ctxFor(t), id); !errors.Is(err, want) {
			return fmt.Errorf("Redeliver(%s) = %v; want %v", id, err, want)
		}
		return nil
	}}
}

// dead: the dead deliveries are ids, the latest to die first, with
// errors that hold the reasons.
func dead(ids []string, reasons ...string) step {
	return step{"dead " + strings.Join(ids, ","), func(t *testing.T, s store.Store) error {
		got, total, err := s.Dead(ctxFor(t), 100)
		if err != nil {
			return fmt.Errorf("list the dead: %v", err)
		}
		if total != len(ids) {
			return fmt.Errorf("Dead() counts %d; want %d", total, len(ids))
		}
		if few, _, err := s.Dead(ctxFor(t), 1); err != nil || len(few) != min(1, len(ids)) {
			return fmt.Errorf("Dead(limit 1) = %d deliveries, %v; want %d", len(few), err, min(1, len(ids)))
		}
		var gotIDs []string
		for i, d := range got {
			gotIDs = append(gotIDs, d.ID)
			if d.Payload != nil {
				return fmt.Errorf("Dead()[%d] has a payload", i)
			}
			if d.Finished.IsZero() {
				return fmt.Errorf("Dead()[%d] has no time of death", i)
			}
			if i < len(reasons) && !strings.Contains(d.Error, reasons[i]) {
				return fmt.Errorf("Dead()[%d].Error = %q; want %q in it", i, d.Error, reasons[i])
			}
		}
		if !slices.Equal(gotIDs, ids) {
			return fmt.Errorf("Dead() = %v; want %v", gotIDs, ids)
		}
		return nil
	}}
}

// claimed: worker claims delivery id with key and last error.
func claimed(worker, id, key, lastError string) step {
	return step{"claim " + worker + " " + id + " of " + key, func(t *testing.T, s store.Store) error {
		d, ok, err := s.Claim(ctxFor(t), worker, Long)
		switch {
		case err != nil || !ok:
			return fmt.Errorf("Claim(%s) = %v, %v; want %s", worker, ok, err, id)
		case d.ID != id || d.Key != key || d.Error != lastError:
			return fmt.Errorf("Claim(%s) = %s of %q, error %q; want %s of %q, error %q", worker, d.ID, d.Key, d.Error, id, key, lastError)
		case d.First.IsZero():
			return fmt.Errorf("Claim(%s) = %s without the time of its first claim", worker, d.ID)
		}
		return nil
	}}
}

func runRetry(t *testing.T, open Open) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"a digest is added once, whatever the delivery id", []step{
			addDigest("a", "", "d1", true), addDigest("b", "", "d1", false),
			addDigest("c", "", "d2", true), addDigest("d", "", "", true), addDigest("e", "", "", true),
			claim("w1", "a", 1), addDigest("f", "", "d1", false),
			finish("a", "w1", store.Done, nil), addDigest("g", "", "d1", false), pending(3),
		}},
		{"a retried delivery waits, first of its key, and keeps its error", []step{
			add("a", "o/r#1"), add("b", "o/r#1"), add("c", "o/r#2"),
			claim("w1", "a", 1), retry("a", "w2", Long, "x", store.ErrLost),
			retry("a", "w1", Long, "server error: 502", nil), pending(3),
			retry("a", "w1", Long, "again", store.ErrLost),
			claim("w2", "c", 1), claim("w3", "", 0),
		}},
		{"a retried delivery is claimed again once due", []step{
			add("a", "o/r#1"), add("b", "o/r#1"),
			claim("w1", "a", 1), retry("a", "w1", 0, "rate limited", nil),
			claimed("w2", "a", "o/r#1", "rate limited"),
			finish("a", "w2", store.Done, nil), claim("w1", "b", 1),
		}},
		{"a buried delivery is dead, listed, refused again, and its key goes on", []step{
			addDigest("a", "o/r#1", "da", true), add("b", "o/r#1"),
			claim("w1", "a", 1), bury("a", "w2", "x", store.ErrLost),
			bury("a", "w1", "validation failed", nil), pending(1),
			dead([]string{"a"}, "validation failed"),
			addDigest("a", "", "", false), addDigest("z", "", "da", false),
			claim("w1", "b", 1), finish("b", "w1", store.Dead, nil),
			dead([]string{"b", "a"}, "", "validation failed"),
		}},
		{"a dead delivery is redelivered once, from its first attempt", []step{
			add("a", "o/r#1"), add("b", ""), add("c", ""),
			claim("w1", "a", 1), retry("a", "w1", 0, "server error", nil),
			claim("w1", "a", 2), bury("a", "w1", "server error", nil),
			redeliver("a", nil), redeliver("a", store.ErrNotDead), dead(nil),
			redeliver("nope", store.ErrUnknown), redeliver("b", store.ErrNotDead),
			claim("w1", "b", 1), finish("b", "w1", store.Done, nil), redeliver("b", store.ErrNotDead),
			claim("w1", "c", 1), claim("w2", "a", 1),
		}},
		{"a delivery re-keyed to a held key waits behind its claim", []step{
			add("run", "o/r@abc"), add("abort", "o/r#1"), add("later", "o/r#1"),
			claim("w1", "run", 1), claim("w2", "abort", 1),
			rekey("run", "w2", "o/r#1", store.ErrLost), rekey("run", "w1", "o/r#1", nil),
			claim("w3", "", 0), pending(3),
			finish("abort", "w2", store.Done, nil),
			claimed("w3", "run", "o/r#1", ""), claim("w1", "", 0),
			finish("run", "w3", store.Done, nil), claim("w1", "later", 1),
		}},
		{"a delivery re-keyed to a free key goes before that key's later deliveries", []step{
			add("run", "o/r@abc"), add("comment", "o/r#1"),
			claim("w1", "run", 1), rekey("run", "w1", "o/r#1", nil),
			claim("w2", "run", 1), claim("w3", "", 0),
			finish("run", "w2", store.Done, nil), claim("w3", "comment", 1),
		}},
		{"a re-keyed delivery frees its old key", []step{
			add("run", "o/r@abc"), add("next", "o/r@abc"),
			claim("w1", "run", 1), claim("w2", "", 0), rekey("run", "w1", "o/r#1", nil),
			claim("w2", "run", 1), claim("w3", "next", 1),
		}},
	}
	for _, tt := range tests {
		runSteps(t, open, tt.name, tt.steps)
	}

	t.Run("a delivery re-keyed behind a claim that then runs out goes first", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("run", "o/r@abc"))
		mustAdd(t, s, delivery("comment", "o/r#1"))
		if d := mustClaim(t, s, "w1", Long); d.ID != "run" {
			t.Fatalf("Claim = %s; want run", d.ID)
		}
		if d := mustClaim(t, s, "dies", short); d.ID != "comment" {
			t.Fatalf("Claim = %s; want comment", d.ID)
		}
		if err := s.Rekey(ctxFor(t), "run", "w1", "o/r#1"); err != nil {
			t.Fatal(err)
		}
		// comment's lease runs out: run, the older, is first of the key.
		if d := claimEventually(t, s, "w2", Long); d.ID != "run" {
			t.Fatalf("after the lease ran out, Claim = %s; want run", d.ID)
		}
	})

	t.Run("a retried delivery is not claimed before its time", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", ""))
		d := mustClaim(t, s, "w1", Long)
		start := time.Now()
		if err := s.Retry(ctxFor(t), "a", "w1", 200*time.Millisecond, "502"); err != nil {
			t.Fatal(err)
		}
		got := claimEventually(t, s, "w2", Long)
		if waited := time.Since(start); waited < 200*time.Millisecond {
			t.Fatalf("claimed again after %v; want 200ms at least", waited)
		}
		if got.ID != "a" || got.Attempts != 2 || !got.First.Equal(d.First) {
			t.Fatalf("Claim = %s attempt %d first %v; want a attempt 2 first %v", got.ID, got.Attempts, got.First, d.First)
		}
	})
}

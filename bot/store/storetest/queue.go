package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/google/go-cmp/cmp"
)

// A step is one call of a queue script, with what it must return.
type step struct {
	name string
	do   func(t *testing.T, s store.Store) error
}

func add(id, key string) step {
	return step{"add " + id, func(t *testing.T, s store.Store) error {
		added, err := s.Add(ctxFor(t), delivery(id, key))
		if err != nil || !added {
			return fmt.Errorf("Add(%s) = %v, %v; want true", id, added, err)
		}
		return nil
	}}
}

func addDuplicate(id string) step {
	return step{"add " + id + " again", func(t *testing.T, s store.Store) error {
		d := delivery(id, "other/key#1")
		d.Payload = []byte(`{"second":true}`)
		added, err := s.Add(ctxFor(t), d)
		if err != nil || added {
			return fmt.Errorf("Add(%s) again = %v, %v; want false", id, added, err)
		}
		return nil
	}}
}

// claim: worker claims and gets delivery id (with attempts), or nothing
// when id is "".
func claim(worker, id string, attempts int) step {
	return step{"claim " + worker + " " + id, func(t *testing.T, s store.Store) error {
		d, ok, err := s.Claim(ctxFor(t), worker, Long)
		switch {
		case err != nil:
			return fmt.Errorf("Claim(%s): %v", worker, err)
		case id == "" && ok:
			return fmt.Errorf("Claim(%s) = %s; want none", worker, d.ID)
		case id == "":
			return nil
		case !ok:
			return fmt.Errorf("Claim(%s) = none; want %s", worker, id)
		case d.ID != id || d.Attempts != attempts:
			return fmt.Errorf("Claim(%s) = %s attempt %d; want %s attempt %d", worker, d.ID, d.Attempts, id, attempts)
		}
		return nil
	}}
}

func finish(id, worker, outcome string, want error) step {
	return step{"finish " + id + " by " + worker, func(t *testing.T, s store.Store) error {
		if err := s.Finish(ctxFor(t), id, worker, outcome); !errors.Is(err, want) {
			return fmt.Errorf("Finish(%s, %s, %s) = %v; want %v", id, worker, outcome, err, want)
		}
		return nil
	}}
}

func release(id, worker string, want error) step {
	return step{"release " + id + " by " + worker, func(t *testing.T, s store.Store) error {
		if err := s.Release(ctxFor(t), id, worker); !errors.Is(err, want) {
			return fmt.Errorf("Release(%s, %s) = %v; want %v", id, worker, err, want)
		}
		return nil
	}}
}

func extend(id, worker string, want error) step {
	return step{"extend " + id + " by " + worker, func(t *testing.T, s store.Store) error {
		if err := s.Extend(ctxFor(t), id, worker, Long); !errors.Is(err, want) {
			return fmt.Errorf("Extend(%s, %s) = %v; want %v", id, worker, err, want)
		}
		return nil
	}}
}

func pending(n int) step {
	return step{fmt.Sprintf("pending %d", n), func(t *testing.T, s store.Store) error {
		got, err := s.Pending(ctxFor(t))
		if err != nil || got != n {
			return fmt.Errorf("Pending() = %d, %v; want %d", got, err, n)
		}
		return nil
	}}
}

// runSteps runs steps in order on a store of its own, in a parallel
// subtest named name.
func runSteps(t *testing.T, open Open, name string, steps []step) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		for i, st := range steps {
			if err := st.do(t, s); err != nil {
				t.Fatalf("step %d (%s): %v", i+1, st.name, err)
			}
		}
	})
}

func runQueue(t *testing.T, open Open) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"an empty queue hands out nothing", []step{
			claim("w1", "", 0), pending(0),
		}},
		{"a delivery id is added once, also after it is finished", []step{
			add("a", ""), addDuplicate("a"), pending(1),
			claim("w1", "a", 1), addDuplicate("a"),
			finish("a", "w1", store.Done, nil), addDuplicate("a"),
			pending(0), claim("w1", "", 0),
		}},
		{"deliveries without a key are handed out in added order, all at once", []step{
			add("a", ""), add("b", ""), add("c", ""), pending(3),
			claim("w1", "a", 1), claim("w2", "b", 1), claim("w3", "c", 1), claim("w4", "", 0),
			pending(3),
			finish("b", "w2", store.Done, nil), finish("a", "w1", store.Ignored, nil), finish("c", "w3", store.Dead, nil),
			pending(0),
		}},
		{"one key is held by one claim at a time, in added order", []step{
			add("a", "o/r#1"), add("b", "o/r#1"), add("c", "o/r#1"),
			claim("w1", "a", 1), claim("w2", "", 0), pending(3),
			finish("a", "w1", store.Done, nil),
			claim("w2", "b", 1), claim("w1", "", 0),
			finish("b", "w2", store.Done, nil),
			claim("w1", "c", 1), finish("c", "w1", store.Done, nil),
			claim("w1", "", 0), pending(0),
		}},
		{"a delivery behind a held key does not block other keys", []step{
			add("a", "o/r#1"), add("b", "o/r#1"), add("c", "o/r#2"), add("d", ""), add("e", "o/r#2"),
			claim("w1", "a", 1), claim("w2", "c", 1), claim("w3", "d", 1), claim("w4", "", 0),
			finish("c", "w2", store.Done, nil), claim("w4", "e", 1),
			finish("a", "w1", store.Done, nil), claim("w1", "b", 1),
		}},
		{"keys are told apart exactly", []step{
			add("a", "o/r#1"), add("b", "o/r#10"), add("c", "o/r"),
			claim("w1", "a", 1), claim("w2", "b", 1), claim("w3", "c", 1),
		}},
		{"only the claiming worker finishes, once", []step{
			add("a", "o/r#1"), claim("w1", "a", 1),
			finish("a", "w2", store.Done, store.ErrLost),
			finish("nope", "w1", store.Done, store.ErrLost),
			finish("a", "w1", store.Done, nil),
			finish("a", "w1", store.Done, store.ErrLost),
			extend("a", "w1", store.ErrLost), release("a", "w1", store.ErrLost),
		}},
		{"a pending delivery is nobody's to finish", []step{
			add("a", ""), finish("a", "w1", store.Done, store.ErrLost),
			release("a", "w1", store.ErrLost), extend("a", "w1", store.ErrLost),
			claim("w1", "a", 1),
		}},
		{"a released delivery is pending again, first of its key, its attempt not counted", []step{
			add("a", "o/r#1"), add("b", "o/r#1"),
			claim("w1", "a", 1), release("a", "w2", store.ErrLost), release("a", "w1", nil),
			pending(2), finish("a", "w1", store.Done, store.ErrLost),
			claim("w2", "a", 1), release("a", "w2", nil),
			claim("w3", "a", 1), release("a", "w3", nil),
			claim("w4", "a", 1), release("a", "w4", nil),
			claim("w5", "a", 1), release("a", "w5", nil),
			claim("w6", "a", 1), release("a", "w6", nil),
			claim("w7", "a", 1), finish("a", "w7", store.Done, nil),
			claim("w1", "b", 1),
		}},
		{"only the claiming worker extends", []step{
			add("a", ""), claim("w1", "a", 1),
			extend("a", "w2", store.ErrLost), extend("a", "w1", nil),
			finish("a", "w1", store.Done, nil),
		}},
	}
	for _, tt := range tests {
		runSteps(t, open, tt.name, tt.steps)
	}

	t.Run("a claimed delivery is the one added", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		want := delivery("a", "o/r#7")
		want.Payload = []byte("{\"body\":\"/gc run\\n\\u0000 é\"}")
		want.Digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
		mustAdd(t, s, want)
		got := mustClaim(t, s, "w1", Long)
		want.Attempts = 1
		if got.First.IsZero() {
			t.Error("Claim left First unset")
		}
		want.First = got.First
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Claim (-want +got):\n%s", diff)
		}
	})

	t.Run("a delivery without a receipt time gets the store's", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		d := delivery("a", "")
		d.Received = time.Time{}
		before := time.Now()
		mustAdd(t, s, d)
		got := mustClaim(t, s, "w1", Long)
		if got.Received.Before(before.Add(-time.Minute)) || got.Received.After(time.Now().Add(time.Minute)) {
			t.Errorf("Received = %v; want about %v", got.Received, before)
		}
	})

	t.Run("a delivery without an id is refused", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		if added, err := s.Add(ctxFor(t), delivery("", "")); err == nil || added {
			t.Errorf("Add(no id) = %v, %v; want an error", added, err)
		}
	})

	t.Run("an unknown outcome is refused and the claim kept", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, delivery("a", ""))
		mustClaim(t, s, "w1", Long)
		err := s.Finish(ctxFor(t), "a", "w1", "maybe")
		if err == nil || errors.Is(err, store.ErrLost) {
			t.Fatalf("Finish(maybe) = %v; want an error that is not ErrLost", err)
		}
		if err := s.Finish(ctxFor(t), "a", "w1", store.Done); err != nil {
			t.Fatalf("Finish(done) after it: %v", err)
		}
	})
}

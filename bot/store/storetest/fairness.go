package storetest

import (
	"fmt"
	"testing"

	"github.com/gcloop/gcloop/bot/store"
)

// of is delivery id of key for installation inst.
func of(id, key string, inst int64) store.Delivery {
	d := delivery(id, key)
	d.Installation = inst
	return d
}

// Backlog is the depth of one installation's queue in the fairness test.
const Backlog = 3000

func runFairness(t *testing.T, open Open) {
	t.Run("a deep backlog of one installation does not delay another's delivery", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		for i := range Backlog {
			key := ""
			if i%2 == 0 {
				key = fmt.Sprintf("a/r#%d", i%50)
			}
			mustAdd(t, s, of(fmt.Sprintf("a%04d", i), key, 1))
		}
		mustAdd(t, s, of("b", "b/r#1", 2))
		for n := 1; ; n++ {
			d := mustClaim(t, s, fmt.Sprintf("w%d", n), Long)
			if d.ID == "b" {
				break
			}
			if n == 2 {
				t.Fatalf("installation 2's delivery was not among the first %d claims", n)
			}
		}
	})

	t.Run("installations take turns, each in its own order", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		for _, d := range []store.Delivery{
			of("a1", "a/r#1", 1), of("a2", "", 1), of("a3", "a/r#2", 1), of("a4", "a/r#1", 1),
			of("b1", "", 2), of("b2", "b/r#1", 2),
			of("c1", "c/r#1", 3),
		} {
			mustAdd(t, s, d)
		}
		// a4 waits behind a1's claim of a/r#1.
		want := []string{"a1", "b1", "c1", "a2", "b2", "a3", ""}
		for i, id := range want {
			d, ok, err := s.Claim(ctxFor(t), fmt.Sprintf("w%d", i), Long)
			if err != nil {
				t.Fatal(err)
			}
			if got := map[bool]string{true: d.ID}[ok]; got != id {
				t.Fatalf("claim %d = %q; want %q (order %v)", i+1, got, id, want)
			}
		}
		if err := s.Finish(ctxFor(t), "a1", "w0", store.Done); err != nil {
			t.Fatal(err)
		}
		if d := mustClaim(t, s, "w9", Long); d.ID != "a4" {
			t.Fatalf("after a1, Claim = %s; want a4", d.ID)
		}
	})

	t.Run("a delivery not yet due holds up neither its installation nor another", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAdd(t, s, of("a1", "a/r#1", 1))
		mustAdd(t, s, of("a2", "a/r#1", 1))
		mustAdd(t, s, of("a3", "", 1))
		mustAdd(t, s, of("b1", "", 2))
		if d := mustClaim(t, s, "w1", Long); d.ID != "a1" {
			t.Fatalf("Claim = %s; want a1", d.ID)
		}
		if err := s.Retry(ctxFor(t), "a1", "w1", Long, "502"); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for range 2 {
			got[mustClaim(t, s, "w2", Long).ID] = true
		}
		if !got["a3"] || !got["b1"] {
			t.Fatalf("claimed %v; want a3 and b1", got)
		}
		if d, ok, err := s.Claim(ctxFor(t), "w3", Long); err != nil || ok {
			t.Fatalf("Claim = %s, %v, %v; want none (a2 waits behind a1)", d.ID, ok, err)
		}
	})
}

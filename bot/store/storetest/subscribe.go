package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// receive reads n events from ch, failing on a closed channel or a wait
// that ends.
func receive(t *testing.T, ch <-chan event.Event, n int) []event.Event {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var out []event.Event
	for len(out) < n {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("subscription closed after %d events; want %d", len(out), n)
			}
			out = append(out, e)
		case <-timer.C:
			t.Fatalf("subscription got %d events in %v; want %d", len(out), wait, n)
		}
	}
	return out
}

// closes waits for ch to be closed, draining it.
func closes(t *testing.T, what string, ch <-chan event.Event) {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			t.Fatalf("%s: subscription still open after %v", what, wait)
		}
	}
}

func runSubscribe(t *testing.T, open Open) {
	t.Run("a subscriber gets the events appended after it subscribed", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		mustAppend(t, s, ev(event.Round, 0))
		ch, err := s.Subscribe(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for i := 1; i <= 5; i++ {
			want = append(want, mustAppend(t, s, ev(event.Round, i)).ID)
		}
		got := receive(t, ch, 5)
		for i, e := range got {
			if e.ID != want[i] || e.PR != i+1 {
				t.Fatalf("event %d = id %d pr %d; want id %d pr %d", i, e.ID, e.PR, want[i], i+1)
			}
		}
	})

	t.Run("a subscription ends with its context", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		ctx, cancel := context.WithCancel(ctxFor(t))
		ch, err := s.Subscribe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		closes(t, "after cancel", ch)
		mustAppend(t, s, ev(event.Round, 1)) // nobody to block
	})

	t.Run("a subscription ends with the store", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		ch, err := s.Subscribe(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		closes(t, "after Close", ch)
	})

	t.Run("a subscriber that falls behind is dropped, the others are not", func(t *testing.T) {
		t.Parallel()
		const buffer = 4
		s := open(t, store.Options{Buffer: buffer})
		slow, err := s.Subscribe(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		fast, err := s.Subscribe(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		const n = 4 * buffer
		var received atomic.Int64
		done := make(chan error, 1)
		go func() {
			var last int64
			for e := range fast {
				if e.ID <= last {
					done <- fmt.Errorf("the fast subscriber got id %d after %d", e.ID, last)
					return
				}
				last = e.ID
				if received.Add(1) == n {
					break
				}
			}
			done <- nil
		}()
		for i := range n {
			mustAppend(t, s, ev(event.Round, i))
			// The fast one keeps up: it must not be dropped.
			waitFor(t, func() bool { return received.Load() == int64(i+1) })
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		var seen int
		for range slow {
			seen++
		}
		if seen > buffer+1 {
			t.Fatalf("the slow subscriber got %d events through a buffer of %d", seen, buffer)
		}
	})

	t.Run("events appended at once arrive in id order without gaps", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{Buffer: 4096})
		ch, err := s.Subscribe(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 8, 40
		var (
			mu  sync.Mutex
			ids = make(map[int64]bool)
			wg  sync.WaitGroup
		)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					e, err := s.Append(context.Background(), ev(event.Round, w*each+i))
					if err != nil {
						t.Errorf("Append: %v", err)
						return
					}
					mu.Lock()
					ids[e.ID] = true
					mu.Unlock()
				}
			}()
		}
		got := receive(t, ch, writers*each)
		wg.Wait()
		for i, e := range got {
			if !ids[e.ID] {
				t.Fatalf("event %d: id %d was not appended", i, e.ID)
			}
			if i > 0 && e.ID <= got[i-1].ID {
				t.Fatalf("event %d: id %d after %d; want increasing", i, e.ID, got[i-1].ID)
			}
		}
		// Every id appended arrived: with len(got) == len(ids) and all
		// of got among ids, none is missing.
		if len(ids) != writers*each {
			t.Fatalf("%d distinct ids for %d appends", len(ids), writers*each)
		}
	})
}

// waitFor polls cond until it holds or the wait ends.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", wait)
		}
		time.Sleep(time.Millisecond)
	}
}

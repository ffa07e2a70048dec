package storetest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

func runConcurrency(t *testing.T, open Open) {
	t.Run("one delivery added at once by many is added once", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		const adders = 16
		var added atomic.Int32
		var wg sync.WaitGroup
		for range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.Add(context.Background(), delivery("same", "o/r#1"))
				if err != nil {
					t.Errorf("Add: %v", err)
				}
				if ok {
					added.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := added.Load(); n != 1 {
			t.Fatalf("%d of %d Adds of one id reported true; want 1", n, adders)
		}
		if n, err := s.Pending(ctxFor(t)); err != nil || n != 1 {
			t.Fatalf("Pending() = %d, %v; want 1", n, err)
		}
	})

	t.Run("one body added at once by many under different ids is added once, and the others all", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		const adders = 64
		var added atomic.Int32
		var wg sync.WaitGroup
		for i := range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := delivery(fmt.Sprintf("replay-%d", i), "o/r#1")
				d.Digest = "same-body"
				ok, err := s.Add(context.Background(), d)
				if err != nil {
					t.Errorf("Add: %v", err)
				}
				if ok {
					added.Add(1)
				}
				// Every other delivery of the burst is its own.
				if ok, err := s.Add(context.Background(), delivery(fmt.Sprintf("own-%d", i), "")); err != nil || !ok {
					t.Errorf("Add(own-%d) = %v, %v; want true", i, ok, err)
				}
			}()
		}
		wg.Wait()
		if n := added.Load(); n != 1 {
			t.Fatalf("%d of %d Adds of one digest reported true; want 1", n, adders)
		}
		if n, err := s.Pending(ctxFor(t)); err != nil || n != adders+1 {
			t.Fatalf("Pending() = %d, %v; want %d", n, err, adders+1)
		}
	})

	t.Run("many workers: each delivery once, one claim per key, keys in order", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		const keys, perKey, unkeyed, workers = 6, 15, 20, 8
		order := make(map[string][]string) // key → ids in added order
		var all []store.Delivery
		for i := range perKey {
			for k := range keys {
				key := fmt.Sprintf("o/r#%d", k)
				id := fmt.Sprintf("k%d-%02d", k, i)
				order[key] = append(order[key], id)
				all = append(all, delivery(id, key))
			}
			if i < unkeyed {
				all = append(all, delivery(fmt.Sprintf("u-%02d", i), ""))
			}
		}
		// Added from several goroutines per key-less part, but each
		// key's deliveries by one, in order.
		var wg sync.WaitGroup
		for _, d := range all {
			if d.Key == "" {
				wg.Add(1)
				go func() { defer wg.Done(); mustAddErr(t, s, d) }()
			}
		}
		for _, d := range all {
			if d.Key != "" {
				mustAdd(t, s, d)
			}
		}
		wg.Wait()

		var (
			mu      sync.Mutex
			held    = make(map[string]string)   // key → id claimed now
			claimed = make(map[string][]string) // key → ids in claim order
			count   = make(map[string]int)      // id → claims
			done    atomic.Int32
		)
		total := int32(len(all))
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w%d", w)
				for done.Load() < total {
					d, ok, err := s.Claim(context.Background(), worker, Long)
					if err != nil {
						t.Errorf("Claim: %v", err)
						return
					}
					if !ok {
						continue
					}
					mu.Lock()
					count[d.ID]++
					if d.Key != "" {
						if other, ok := held[d.Key]; ok {
							t.Errorf("%s claimed %s while %s holds key %s", worker, d.ID, other, d.Key)
						}
						held[d.Key] = d.ID
						claimed[d.Key] = append(claimed[d.Key], d.ID)
					}
					mu.Unlock()
					// The work: others claim meanwhile. The key is let go
					// just before Finish, so a second claim of it during
					// the work is caught (one during Finish is not).
					runtime.Gosched()
					mu.Lock()
					delete(held, d.Key)
					mu.Unlock()
					if err := s.Finish(context.Background(), d.ID, worker, store.Done); err != nil {
						t.Errorf("Finish(%s): %v", d.ID, err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		for _, d := range all {
			if count[d.ID] != 1 {
				t.Errorf("%s was claimed %d times; want once", d.ID, count[d.ID])
			}
		}
		for key, want := range order {
			if fmt.Sprint(claimed[key]) != fmt.Sprint(want) {
				t.Errorf("key %s claimed in the order %v; want %v", key, claimed[key], want)
			}
		}
		if n, err := s.Pending(ctxFor(t)); err != nil || n != 0 {
			t.Fatalf("Pending() = %d, %v; want 0", n, err)
		}
	})
}

// runAddWhileWorking: deliveries of a few keys are added while workers
// claim and finish the earlier ones of the same keys — the moment a key's
// next delivery must become claimable as its head finishes. None is
// stranded, none is claimed twice, and each key's go in order.
func runAddWhileWorking(t *testing.T, open Open) {
	t.Run("deliveries added while their key is worked on are all worked, in order", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		const keys, perKey, workers = 3, 40, 4
		total := int32(keys * perKey)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			claimed = make(map[string][]string) // key → ids in claim order
			count   = make(map[string]int)      // id → claims
			done    atomic.Int32
		)
		for k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perKey {
					mustAddErr(t, s, delivery(fmt.Sprintf("k%d-%02d", k, i), fmt.Sprintf("o/r#%d", k)))
					runtime.Gosched()
				}
			}()
		}
		deadline := time.Now().Add(time.Minute)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w%d", w)
				for done.Load() < total {
					if time.Now().After(deadline) {
						t.Errorf("%s: %d of %d deliveries worked after a minute: the others are stranded", worker, done.Load(), total)
						return
					}
					d, ok, err := s.Claim(context.Background(), worker, Long)
					if err != nil {
						t.Errorf("Claim: %v", err)
						return
					}
					if !ok {
						runtime.Gosched()
						continue
					}
					mu.Lock()
					count[d.ID]++
					claimed[d.Key] = append(claimed[d.Key], d.ID)
					mu.Unlock()
					if err := s.Finish(context.Background(), d.ID, worker, store.Done); err != nil {
						t.Errorf("Finish(%s): %v", d.ID, err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		for k := range keys {
			key := fmt.Sprintf("o/r#%d", k)
			var want []string
			for i := range perKey {
				id := fmt.Sprintf("k%d-%02d", k, i)
				want = append(want, id)
				if count[id] != 1 {
					t.Errorf("%s was claimed %d times; want once", id, count[id])
				}
			}
			if fmt.Sprint(claimed[key]) != fmt.Sprint(want) {
				t.Errorf("key %s claimed in the order %v; want %v", key, claimed[key], want)
			}
		}
		if n, err := s.Pending(ctxFor(t)); err != nil || n != 0 {
			t.Fatalf("Pending() = %d, %v; want 0", n, err)
		}
	})
}

// runRekeyConcurrency: workers of two installations claim while others
// re-key their head-sha deliveries into pull-request keys; a key is still
// held by one claim at a time, and every delivery is done once.
func runRekeyConcurrency(t *testing.T, open Open) {
	t.Run("re-keyed deliveries join their key's one-at-a-time under concurrency", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		const keys, perKey, workers = 4, 12, 8
		var all []store.Delivery
		for i := range perKey {
			for k := range keys {
				key := fmt.Sprintf("o/r#%d", k)
				id := fmt.Sprintf("k%d-%02d", k, i)
				if i%3 == 1 {
					key = fmt.Sprintf("o/r@sha%d%02d", k, i) // a fork's run of #k
				}
				d := delivery(id, key)
				d.Installation = int64(1 + (k+i)%2)
				all = append(all, d)
			}
		}
		for _, d := range all {
			mustAdd(t, s, d)
		}
		var (
			mu    sync.Mutex
			held  = make(map[string]string) // key → id claimed now
			count = make(map[string]int)    // id → times done
			done  atomic.Int32
			wg    sync.WaitGroup
		)
		total := int32(len(all))
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w%d", w)
				for done.Load() < total {
					d, ok, err := s.Claim(context.Background(), worker, Long)
					if err != nil {
						t.Errorf("Claim: %v", err)
						return
					}
					if !ok {
						runtime.Gosched()
						continue
					}
					if i := strings.IndexByte(d.Key, '@'); i > 0 {
						pr := "o/r#" + d.ID[1:2]
						if err := s.Rekey(context.Background(), d.ID, worker, pr); err != nil {
							t.Errorf("Rekey(%s): %v", d.ID, err)
							return
						}
						continue
					}
					mu.Lock()
					if other, ok := held[d.Key]; ok {
						t.Errorf("%s claimed %s while %s holds key %s", worker, d.ID, other, d.Key)
					}
					held[d.Key] = d.ID
					mu.Unlock()
					runtime.Gosched()
					mu.Lock()
					delete(held, d.Key)
					count[d.ID]++
					mu.Unlock()
					if err := s.Finish(context.Background(), d.ID, worker, store.Done); err != nil {
						t.Errorf("Finish(%s): %v", d.ID, err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		for _, d := range all {
			if count[d.ID] != 1 {
				t.Errorf("%s was done %d times; want once", d.ID, count[d.ID])
			}
		}
	})
}

// mustAddErr is mustAdd for other goroutines: it reports, not stops.
func mustAddErr(t *testing.T, s store.Store, d store.Delivery) {
	if added, err := s.Add(context.Background(), d); err != nil || !added {
		t.Errorf("Add(%s) = %v, %v; want true", d.ID, added, err)
	}
}

package storetest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// runWorkers runs n workers ("w0", "w1", …) that claim from s until total
// deliveries are finished, or a minute has passed (the rest are then
// stranded: an error). Each claimed delivery goes to work, which reports
// whether the worker is to finish it as done (false: work handed it back
// itself, e.g. re-keyed it).
func runWorkers(t *testing.T, s store.Store, n int, total int32, work func(worker string, d store.Delivery) (finish bool)) {
	var (
		wg       sync.WaitGroup
		done     atomic.Int32
		deadline = time.Now().Add(time.Minute)
	)
	for w := range n {
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
				if !work(worker, d) {
					continue
				}
				if err := s.Finish(context.Background(), d.ID, worker, store.Done); err != nil {
					t.Errorf("Finish(%s): %v", d.ID, err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
}

package webhook

import (
	"context"
	"sync"
	"time"
)

// budget bounds the bytes of delivery bodies whose signature is not yet
// checked, held at once in memory or spool files across every request. A
// body takes its bytes as they arrive — never what its Content-Length
// claims — and gives them back when its request ends.
type budget struct {
	mu    sync.Mutex
	max   int64
	held  int64
	freed chan struct{} // closed, and replaced, whenever bytes are given back
}

func newBudget(max int64) *budget {
	return &budget{max: max, freed: make(chan struct{})}
}

// take takes n bytes, waiting up to wait for others to give bytes back;
// false when there was no room in time or ctx ended.
func (b *budget) take(ctx context.Context, n int64, wait time.Duration) bool {
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		if b.held+n <= b.max {
			b.held += n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		if wait <= 0 {
			return false
		}
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// give gives back n bytes taken before.
func (b *budget) give(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.held -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// inUse is the bytes held now.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

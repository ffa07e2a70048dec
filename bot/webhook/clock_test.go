package webhook_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/webhook"
)

// manualClock is a clock the test moves: Tick(d) advances it by d and
// ticks every running ticker of period d.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*manualTicker
}

type manualTicker struct {
	clock   *manualClock
	period  time.Duration
	c       chan time.Time
	stopped bool
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) NewTicker(d time.Duration) webhook.Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTicker{clock: c, period: d, c: make(chan time.Time, 1)}
	c.tickers = append(c.tickers, t)
	return t
}

func (t *manualTicker) C() <-chan time.Time { return t.c }

func (t *manualTicker) Stop() {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	t.stopped = true
}

// running is the number of running tickers of period d.
func (c *manualClock) running(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.tickers {
		if t.period == d && !t.stopped {
			n++
		}
	}
	return n
}

// Advance moves the clock by d without ticking.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Tick waits until n tickers of period d run, advances the clock by d and
// ticks them.
func (c *manualClock) Tick(t *testing.T, d time.Duration, n int) {
	t.Helper()
	eventually(t, func() bool { return c.running(d) >= n }, "%d tickers of %v", n, d)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, tk := range c.tickers {
		if tk.period == d && !tk.stopped {
			select {
			case tk.c <- c.now:
			default:
			}
		}
	}
}

// eventually waits, for at most 10 s, until cond holds.
func eventually(t *testing.T, cond func() bool, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for "+what, args...)
		}
		time.Sleep(time.Millisecond)
	}
}

package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// OpenPacers returns two pacers with limits on a new, empty store — two
// replicas sharing it, or the one pacer twice where there are no replicas —
// whose clock is now.
type OpenPacers func(t *testing.T, limits store.PaceLimits, now func() time.Time) [2]store.Pacer

// Clock is a test's clock: it stands still until Advance.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// start is where the pacer tests' clocks stand at first.
var start = time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)

// forever is a Reserve limit no wait reaches.
const forever = 1000 * time.Hour

// RunPacer runs the Pacer conformance suite against the pacers that open
// returns, one pair per subtest; the subtests run in parallel.
func RunPacer(t *testing.T, open OpenPacers) {
	t.Run("minute", func(t *testing.T) { t.Parallel(); runMinute(t, open) })
	t.Run("hour", func(t *testing.T) { t.Parallel(); runHour(t, open) })
	t.Run("max", func(t *testing.T) { t.Parallel(); runMax(t, open) })
	t.Run("block", func(t *testing.T) { t.Parallel(); runBlock(t, open) })
	t.Run("concurrency", func(t *testing.T) { t.Parallel(); runPacerConcurrency(t, open) })
}

func reserve(t *testing.T, p store.Pacer, installation int64, max time.Duration) (time.Duration, bool) {
	t.Helper()
	wait, booked, err := p.Reserve(ctxFor(t), installation, max)
	if err != nil {
		t.Fatalf("Reserve(%d): %v", installation, err)
	}
	return wait, booked
}

// runMinute: 80 requests in a minute go at once, from either replica; the
// 81st waits for the first to be a minute old; another installation's
// budget is its own.
func runMinute(t *testing.T, open OpenPacers) {
	clock := NewClock(start)
	ps := open(t, store.PaceLimits{}, clock.Now)
	for i := range store.DefaultPerMinute {
		if wait, _ := reserve(t, ps[i%2], 1, forever); wait != 0 {
			t.Fatalf("request %d waits %s; want none within the budget", i+1, wait)
		}
		clock.Advance(100 * time.Millisecond)
	}
	// The first went at start, the 80th at start+7.9s; it is now start+8s.
	if wait, booked := reserve(t, ps[0], 1, forever); !booked || wait != 52*time.Second {
		t.Errorf("request 81 waits %s (booked %v); want 52s, until the first is a minute old", wait, booked)
	}
	if wait, _ := reserve(t, ps[1], 1, forever); wait != 52*time.Second+100*time.Millisecond {
		t.Errorf("request 82 waits %s; want 52.1s, until the second is a minute old", wait)
	}
	if wait, _ := reserve(t, ps[1], 2, forever); wait != 0 {
		t.Errorf("another installation's first request waits %s; want none", wait)
	}
}

// runHour: requests sent as soon as the pacer allows never exceed either
// limit in any window, and the hour's limit holds: the 501st of an hour
// waits for the first to be an hour old.
func runHour(t *testing.T, open OpenPacers) {
	clock := NewClock(start)
	limits := store.PaceLimits{PerMinute: 80, PerHour: 500}
	ps := open(t, limits, clock.Now)
	var sent []time.Time
	for i := range limits.PerHour + 20 {
		wait, booked := reserve(t, ps[i%2], 7, forever)
		if !booked {
			t.Fatalf("request %d not booked", i+1)
		}
		clock.Advance(wait)
		sent = append(sent, clock.Now())
	}
	if got, want := sent[limits.PerHour], sent[0].Add(time.Hour); !got.Equal(want) {
		t.Errorf("request 501 goes at %s; want %s, an hour after the first", got.Sub(start), want.Sub(start))
	}
	for _, w := range []struct {
		n   int
		per time.Duration
	}{{limits.PerMinute, time.Minute}, {limits.PerHour, time.Hour}} {
		for i := w.n; i < len(sent); i++ {
			if d := sent[i].Sub(sent[i-w.n]); d < w.per {
				t.Fatalf("requests %d and %d are %s apart: %d in less than %s", i-w.n+1, i+1, d, w.n+1, w.per)
			}
		}
	}
}

// runMax: a wait longer than the caller accepts books nothing.
func runMax(t *testing.T, open OpenPacers) {
	clock := NewClock(start)
	ps := open(t, store.PaceLimits{PerMinute: 2, PerHour: 10}, clock.Now)
	reserve(t, ps[0], 3, forever)
	reserve(t, ps[1], 3, forever)
	for range 3 {
		wait, booked := reserve(t, ps[0], 3, 30*time.Second)
		if booked || wait != time.Minute {
			t.Fatalf("Reserve with 30s to spare = %s, booked %v; want 1m, not booked", wait, booked)
		}
	}
	if wait, booked := reserve(t, ps[1], 3, time.Minute); !booked || wait != time.Minute {
		t.Errorf("Reserve with a minute to spare = %s, booked %v; want 1m, booked: the refused ones took no slot", wait, booked)
	}
}

// runBlock: a block one replica records holds back the other's requests;
// a shorter block does not shorten it; it ends on time.
func runBlock(t *testing.T, open OpenPacers) {
	clock := NewClock(start)
	ps := open(t, store.PaceLimits{}, clock.Now)
	ctx := ctxFor(t)
	if d, err := ps[1].Blocked(ctx, 5); err != nil || d != 0 {
		t.Fatalf("Blocked before any block = %s, %v; want 0", d, err)
	}
	if err := ps[0].Block(ctx, 5, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := ps[1].Block(ctx, 5, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if d, err := ps[1].Blocked(ctx, 5); err != nil || d != 30*time.Second {
		t.Errorf("Blocked on the other replica = %s, %v; want 30s", d, err)
	}
	if wait, _ := reserve(t, ps[1], 5, forever); wait != 30*time.Second {
		t.Errorf("a request during the block waits %s; want 30s", wait)
	}
	if d, _ := ps[0].Blocked(ctx, 6); d != 0 {
		t.Errorf("another installation is blocked %s; want 0", d)
	}
	clock.Advance(31 * time.Second)
	if d, _ := ps[0].Blocked(ctx, 5); d != 0 {
		t.Errorf("Blocked after the block's end = %s; want 0", d)
	}
	if wait, _ := reserve(t, ps[0], 5, forever); wait != 0 {
		t.Errorf("a request after the block waits %s; want none", wait)
	}
}

// runPacerConcurrency: requests booked at once from many goroutines on
// both replicas never exceed the minute's budget.
func runPacerConcurrency(t *testing.T, open OpenPacers) {
	clock := NewClock(start)
	ps := open(t, store.PaceLimits{PerMinute: 20, PerHour: 100}, clock.Now)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		now int
	)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				wait, booked, err := ps[g%2].Reserve(ctxFor(t), 9, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if booked {
					if wait != 0 {
						t.Errorf("booked with a wait of %s beyond the limit 0", wait)
					}
					mu.Lock()
					now++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if now != 20 {
		t.Errorf("%d of 40 requests booked at once; want the minute's budget, 20", now)
	}
}

package webhook

import "time"

// Clock is the workers' time: now, and tickers for the heartbeat, the poll
// and the shutdown's grace. Tests drive it by hand.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker ticks every period until stopped.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }

package store

import (
	"log/slog"
	"time"
)

// Options tune a store. The zero value is the bot's configuration.
type Options struct {
	// Now is Memory's clock, for leases and event times; nil is
	// time.Now. Postgres ignores it: its leases and times are the
	// database's, so that replicas with skewed clocks agree.
	Now func() time.Time

	// Buffer is how many events a subscriber may fall behind before its
	// channel is closed; 0 is DefaultBuffer.
	Buffer int

	// Retained is how many of the newest events are kept for Since; 0 is
	// Retained.
	Retained int

	// Seen is how many finished deliveries Memory remembers, newest
	// first, to refuse their redelivery; 0 is DefaultSeen. Postgres
	// remembers them for Forget instead.
	Seen int

	// Dead is how many dead deliveries Memory keeps, payloads included,
	// for Dead and Redeliver, forgetting the oldest beyond it; 0 is
	// DefaultDead. Postgres keeps them for Forget instead.
	Dead int

	// Log receives what a store does on its own, such as Postgres
	// reconnecting its listener; nil discards it.
	Log *slog.Logger
}

// DefaultSeen is Memory's Options.Seen when it is 0.
const DefaultSeen = 1 << 20

// DefaultDead is Memory's Options.Dead when it is 0.
const DefaultDead = 1000

// DefaultBuffer is a subscriber's buffer when Options.Buffer is 0.
const DefaultBuffer = 256

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Retained <= 0 {
		o.Retained = Retained
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Dead <= 0 {
		o.Dead = DefaultDead
	}
	if o.Seen <= 0 {
		o.Seen = DefaultSeen
	}
	return o
}

package store

import (
	"context"
	"time"
)

// Pacer keeps each App installation's GitHub budget for content-creating
// requests (POST, PATCH, PUT, DELETE), shared by every replica that shares
// the pacer's store: at most PaceLimits.PerMinute of them in any minute and
// PerHour in any hour (GitHub's secondary limits), and none, nor any other
// request, while a block is in force — the wait GitHub asked for with
// Retry-After or X-RateLimit-Reset, as one replica saw it.
//
// Times are the pacer's own clock (PostgreSQL's for PgPacer), and every
// answer is a duration from now, so that replicas with skewed clocks agree.
// The store.Store interface does not include it: a pacer is opened beside
// the store (Memory's NewMemPacer, Postgres's Pacer).
type Pacer interface {
	// Reserve books the earliest moment from now on at which installation
	// may send one content-creating request, and returns the wait until
	// then. A booking is final: the request counts against the budget
	// whether it is sent or not. When the wait would be longer than within,
	// nothing is booked and booked is false; wait is then what it would
	// have been.
	Reserve(ctx context.Context, installation int64, within time.Duration) (wait time.Duration, booked bool, err error)

	// Blocked returns how long installation must still send nothing;
	// 0 when no block is in force.
	Blocked(ctx context.Context, installation int64) (time.Duration, error)

	// Block records that GitHub asked installation to send nothing for d
	// from now. A block in force that ends later is kept.
	Block(ctx context.Context, installation int64, d time.Duration) error
}

// PaceLimits are a pacer's budget per installation. Zero fields take the
// defaults.
type PaceLimits struct {
	// PerMinute caps the content-creating requests in any minute;
	// default DefaultPerMinute.
	PerMinute int
	// PerHour caps them in any hour; default DefaultPerHour.
	PerHour int
}

// GitHub's secondary limits on content-creating requests, the defaults of
// PaceLimits.
const (
	DefaultPerMinute = 80
	DefaultPerHour   = 500
)

func (l PaceLimits) withDefaults() PaceLimits {
	if l.PerMinute <= 0 {
		l.PerMinute = DefaultPerMinute
	}
	if l.PerHour <= 0 {
		l.PerHour = DefaultPerHour
	}
	return l
}

// paceWindow is the longest window of PaceLimits: a booking older than
// that no longer counts.
const paceWindow = time.Hour

// keep is how many of the newest bookings a pacer keeps: as many as the
// larger limit looks back at.
func (l PaceLimits) keep() int { return max(l.PerMinute, l.PerHour) }

// lookback is what next needs of the bookings in force: the newest, and
// the PerMinute-th and PerHour-th newest (zero where there are fewer).
type lookback struct{ last, minute, hour time.Time }

// lookbackOf reads a lookback from the bookings, oldest first.
func (l PaceLimits) lookbackOf(sent []time.Time) lookback {
	var b lookback
	n := len(sent)
	if n > 0 {
		b.last = sent[n-1]
	}
	if n >= l.PerMinute {
		b.minute = sent[n-l.PerMinute]
	}
	if n >= l.PerHour {
		b.hour = sent[n-l.PerHour]
	}
	return b
}

// next returns the earliest moment at or after now at which one more
// request fits, given the bookings' lookback and the end of a block (zero
// for none). Bookings are made in order, each at or after the one before,
// so a sequence where every booking is a window after the one PerMinute
// (PerHour) places before it never holds more than PerMinute (PerHour) in
// any window. The moment is rounded up to the microsecond, PostgreSQL's
// precision, so that a stored booking is never earlier than the one
// computed.
func (l PaceLimits) next(b lookback, blocked, now time.Time) time.Time {
	at := now
	later := func(t time.Time) {
		if t.After(at) {
			at = t
		}
	}
	later(blocked)
	later(b.last)
	if !b.minute.IsZero() {
		later(b.minute.Add(time.Minute))
	}
	if !b.hour.IsZero() {
		later(b.hour.Add(time.Hour))
	}
	if r := at.Truncate(time.Microsecond); r.Before(at) {
		at = r.Add(time.Microsecond)
	}
	return at
}

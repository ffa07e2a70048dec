// Package store holds what makes the bot reliable — the deliveries it has
// seen, the work queue, the per-pull-request serialization of work, and the
// event log behind the live feed — behind one interface with two
// implementations: Memory (one replica; a restart forgets the queue) and
// Postgres (any number of replicas sharing one database).
//
// Every fact of a loop lives on GitHub; nothing here is needed to decide a
// round, and losing the store loses no loop's history.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

// Delivery is one webhook delivery as the bot received it.
type Delivery struct {
	ID           string    // X-GitHub-Delivery; unique
	Event        string    // X-GitHub-Event
	Payload      []byte    // the JSON body (a form-encoded body already unwrapped)
	Key          string    // serialization key: "owner/name#pr", "owner/name", or "" for none
	Installation int64     // the App installation, 0 for a single-repository token
	Received     time.Time // when the bot acknowledged it
	Attempts     int       // claims so far, this one included (set by Claim)
}

// Outcomes of a finished delivery.
const (
	Done    = "done"    // the work was done
	Ignored = "ignored" // there was nothing to do
	Failed  = "failed"  // the work failed and will not be tried again
)

// Errors of the store.
var (
	// ErrLost is a claim that is no longer the caller's: its lease ran out
	// and another worker may have claimed the delivery.
	ErrLost = errors.New("claim lost")
	// ErrClosed is a store that was closed.
	ErrClosed = errors.New("store closed")
)

// Store is the bot's store. Its methods are safe for concurrent use, also
// from several processes sharing one database.
type Store interface {
	// Add records d and queues it as pending. It reports false, and
	// changes nothing, when a delivery with d.ID was added before — by
	// this replica or any other.
	Add(ctx context.Context, d Delivery) (added bool, err error)

	// Claim hands the oldest pending delivery to worker for lease, and
	// reports false when there is none it may take. It never hands out a
	// delivery whose Key is non-empty and held by another claim in force,
	// so deliveries of one key are worked on one at a time, in the order
	// they were added. A claim whose lease runs out before Finish or
	// Release is pending again (its worker is taken for dead); a delivery
	// claimed MaxAttempts times without being finished is finished as
	// Failed instead of being handed out again.
	Claim(ctx context.Context, worker string, lease time.Duration) (d Delivery, ok bool, err error)

	// Extend renews worker's claim of delivery id for lease from now;
	// ErrLost when the claim is no longer worker's.
	Extend(ctx context.Context, id, worker string, lease time.Duration) error

	// Finish ends worker's claim of delivery id with outcome (Done,
	// Ignored or Failed); ErrLost when the claim is no longer worker's.
	Finish(ctx context.Context, id, worker, outcome string) error

	// Release hands worker's claim of delivery id back as pending without
	// counting the attempt against it (shutdown); ErrLost when the claim
	// is no longer worker's.
	Release(ctx context.Context, id, worker string) error

	// Pending is the number of deliveries pending or claimed: the depth
	// of the queue.
	Pending(ctx context.Context) (int, error)

	// Append adds e to the event log, setting its ID and Time, and
	// returns it. IDs only increase, in the order the events become
	// visible to Since and Subscribe.
	Append(ctx context.Context, e event.Event) (event.Event, error)

	// Since returns at most limit retained events with an ID above after,
	// in ID order.
	Since(ctx context.Context, after int64, limit int) ([]event.Event, error)

	// Subscribe returns every event appended from now on, by this replica
	// or any other, in ID order, on a channel that is closed when ctx ends,
	// when the store is closed, or when the subscriber falls too far
	// behind; a subscriber whose channel closed early catches up with
	// Since from the last ID it saw.
	Subscribe(ctx context.Context) (<-chan event.Event, error)

	// Ping reports whether the store can be reached (readiness).
	Ping(ctx context.Context) error

	// Close releases the store's resources; subscriptions end.
	Close() error
}

// MaxAttempts is how many times a delivery is claimed before a store gives
// up on it.
const MaxAttempts = 5

// Retained is how many of the newest events a store keeps for Since.
const Retained = 10000

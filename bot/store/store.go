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

	// Digest is the SHA-256 of the signed body, in hex; "" for none. A
	// delivery whose digest was added before is a replay, whatever its ID.
	Digest string
	// First is when the delivery was first claimed (set by Claim): the
	// start of its retry window.
	First time.Time
	// Error is the last failure's message (set by Retry and Bury; "" for
	// none).
	Error string
	// Finished is when a dead delivery died (set by Dead).
	Finished time.Time

	// Arrival, when its Type is set, is appended to the event log as Add
	// adds the delivery — in the same transaction, where the store has
	// them — and not when Add finds it a duplicate. The store keeps the
	// event, not the field: a claimed delivery has none.
	Arrival event.Event
}

// Outcomes of a finished delivery.
const (
	Done    = "done"    // the work was done
	Ignored = "ignored" // there was nothing to do
	Dead    = "dead"    // the work failed and is not tried again until redelivered

	// Failed is Dead's former name.
	//
	// Deprecated: use Dead.
	Failed = Dead
)

// Errors of the store.
var (
	// ErrLost is a claim that is no longer the caller's: its lease ran out
	// and another worker may have claimed the delivery.
	ErrLost = errors.New("claim lost")
	// ErrClosed is a store that was closed.
	ErrClosed = errors.New("store closed")
	// ErrUnknown is a delivery id the store does not hold.
	ErrUnknown = errors.New("no such delivery")
	// ErrNotDead is a redelivery of a delivery that is not dead.
	ErrNotDead = errors.New("delivery is not dead")
	// ErrNoPayload is a redelivery of a dead delivery whose payload was
	// not kept (it died before the store kept dead deliveries' payloads).
	ErrNoPayload = errors.New("the delivery's payload was not kept")
)

// Store is the bot's store. Its methods are safe for concurrent use, also
// from several processes sharing one database.
type Store interface {
	// Add records d and queues it as pending. It reports false, and
	// changes nothing, when a delivery with d.ID, or with d.Digest when
	// that is not "", was added before — by this replica or any other.
	Add(ctx context.Context, d Delivery) (added bool, err error)

	// Claim hands a pending delivery that is due to worker for lease, and
	// reports false when there is none it may take. Installations with
	// work take turns (round robin), and within one the oldest delivery
	// goes first. It never hands out a delivery whose Key is non-empty
	// and held by another claim in force, nor one behind an older pending
	// delivery of its Key (due or not), so deliveries of one key are
	// worked on one at a time, in the order they were added. A claim
	// whose lease runs out before it is settled is pending again (its
	// worker is taken for dead); one whose lease runs out on its
	// MaxAttempts-th claim or later is Dead instead.
	Claim(ctx context.Context, worker string, lease time.Duration) (d Delivery, ok bool, err error)

	// Extend renews worker's claim of delivery id for lease from now;
	// ErrLost when the claim is no longer worker's.
	Extend(ctx context.Context, id, worker string, lease time.Duration) error

	// Finish ends worker's claim of delivery id with outcome (Done,
	// Ignored or Dead); ErrLost when the claim is no longer worker's.
	Finish(ctx context.Context, id, worker, outcome string) error

	// Retry ends worker's claim of delivery id as a failed attempt to be
	// tried again: pending, first of its key as before, not claimed
	// until after has passed, with reason as its Error; ErrLost when the
	// claim is no longer worker's.
	Retry(ctx context.Context, id, worker string, after time.Duration, reason string) error

	// Bury ends worker's claim of delivery id as Dead, with reason as
	// its Error; the delivery is kept for Dead and Redeliver. ErrLost
	// when the claim is no longer worker's.
	Bury(ctx context.Context, id, worker, reason string) error

	// Rekey hands worker's claim of delivery id back as pending under
	// key, in the place its arrival gives it among that key's
	// deliveries, without counting the attempt; ErrLost when the claim
	// is no longer worker's.
	Rekey(ctx context.Context, id, worker, key string) error

	// Dead lists at most limit dead deliveries, the latest to die first,
	// without their payloads, and counts all the dead ones it keeps.
	Dead(ctx context.Context, limit int) (dead []Delivery, total int, err error)

	// Redeliver queues dead delivery id again as pending, its attempts
	// and retry window reset; ErrUnknown when the store does not hold
	// id, ErrNotDead when the delivery is not dead, ErrNoPayload when its
	// payload was not kept.
	Redeliver(ctx context.Context, id string) error

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

// MaxAttempts is how many times a delivery's lease may run out — its
// worker died, or lost the store — before a store gives up on it: a
// delivery that kills its workers. Attempts settled with Retry do not
// count: the worker lived and decided (the retry window bounds those).
// Ten, not fewer: replicas are killed for reasons of their own (a deploy,
// a node drained), and a long round may be on the victim several times in
// a row — the soak test, killing one of three replicas every three
// seconds, lost deliveries at five.
const MaxAttempts = 10

// Retained is how many of the newest events a store keeps for Since.
const Retained = 10000

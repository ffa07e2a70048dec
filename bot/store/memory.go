package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

// Memory is the store of a single replica: everything lives in the
// process, and a restart forgets the queue and the log. Create it with
// NewMemory.
type Memory struct {
	opts Options
	hub  *hub

	mu     sync.Mutex
	closed bool
	queue  memQueue
	log    memLog
}

// NewMemory returns an empty in-memory store.
func NewMemory(opts Options) *Memory {
	opts = opts.withDefaults()
	return &Memory{
		opts:  opts,
		hub:   newHub(opts.Buffer),
		queue: newMemQueue(opts.Seen, opts.Dead),
		log:   memLog{retained: opts.Retained},
	}
}

var _ Store = (*Memory)(nil)

// lock takes m.mu unless ctx is done or m is closed.
func (m *Memory) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Add implements Store.
func (m *Memory) Add(ctx context.Context, d Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("store: add: delivery without an id (event %q)", d.Event)
	}
	d.Payload = append([]byte(nil), d.Payload...) // outside the lock
	d.Attempts = 0
	arrival := d.Arrival
	d.Arrival = event.Event{}
	if err := m.lock(ctx); err != nil {
		return false, err
	}
	if d.Received.IsZero() {
		d.Received = m.opts.Now()
	}
	defer m.mu.Unlock()
	added := m.queue.add(d, m.opts.Now())
	if added && arrival.Type != "" {
		m.appendLocked(arrival)
	}
	return added, nil
}

// Claim implements Store.
func (m *Memory) Claim(ctx context.Context, worker string, lease time.Duration) (Delivery, bool, error) {
	if err := m.lock(ctx); err != nil {
		return Delivery{}, false, err
	}
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.queue.expire(now)
	d, ok := m.queue.claim(worker, now, now.Add(lease))
	return d, ok, nil
}

// Extend implements Store.
func (m *Memory) Extend(ctx context.Context, id, worker string, lease time.Duration) error {
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.queue.expire(now)
	e, err := m.queue.claimOf(id, worker)
	if err != nil {
		return err
	}
	e.until = now.Add(lease)
	return nil
}

// Finish implements Store.
func (m *Memory) Finish(ctx context.Context, id, worker, outcome string) error {
	if err := checkOutcome(id, outcome); err != nil {
		return err
	}
	return m.settle(ctx, id, worker, func(e *memEntry, now time.Time) {
		if outcome == Dead {
			m.queue.bury(e, "", now)
		} else {
			m.queue.finish(e, now)
		}
	})
}

// Release implements Store.
func (m *Memory) Release(ctx context.Context, id, worker string) error {
	return m.settle(ctx, id, worker, func(e *memEntry, now time.Time) {
		e.d.Attempts--
		m.queue.requeue(e, time.Time{}, now)
	})
}

// Retry implements Store.
func (m *Memory) Retry(ctx context.Context, id, worker string, after time.Duration, reason string) error {
	return m.settle(ctx, id, worker, func(e *memEntry, now time.Time) {
		e.d.Error = reason
		m.queue.requeue(e, now.Add(after), now)
	})
}

// Bury implements Store.
func (m *Memory) Bury(ctx context.Context, id, worker, reason string) error {
	return m.settle(ctx, id, worker, func(e *memEntry, now time.Time) { m.queue.bury(e, reason, now) })
}

// Rekey implements Store.
func (m *Memory) Rekey(ctx context.Context, id, worker, key string) error {
	return m.settle(ctx, id, worker, func(e *memEntry, now time.Time) { m.queue.rekey(e, key, now) })
}

// settle runs do on worker's claim of id, or says ErrLost.
func (m *Memory) settle(ctx context.Context, id, worker string, do func(e *memEntry, now time.Time)) error {
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.queue.expire(now)
	e, err := m.queue.claimOf(id, worker)
	if err != nil {
		return err
	}
	do(e, now)
	return nil
}

// Dead implements Store.
func (m *Memory) Dead(ctx context.Context, limit int) ([]Delivery, int, error) {
	if err := m.lock(ctx); err != nil {
		return nil, 0, err
	}
	defer m.mu.Unlock()
	m.queue.expire(m.opts.Now())
	return m.queue.deadList(limit), len(m.queue.dead), nil
}

// Redeliver implements Store.
func (m *Memory) Redeliver(ctx context.Context, id string) error {
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.queue.expire(now)
	if err := m.queue.redeliver(id, now); err != nil {
		return fmt.Errorf("store: redeliver %s: %w", id, err)
	}
	return nil
}

// Pending implements Store.
func (m *Memory) Pending(ctx context.Context) (int, error) {
	if err := m.lock(ctx); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	m.queue.expire(m.opts.Now())
	return m.queue.depth, nil
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, e event.Event) (event.Event, error) {
	if err := m.lock(ctx); err != nil {
		return event.Event{}, err
	}
	defer m.mu.Unlock()
	return m.appendLocked(e), nil
}

// appendLocked appends e; m.mu is held.
func (m *Memory) appendLocked(e event.Event) event.Event {
	e.Time = m.opts.Now().UTC()
	if len(e.Data) == 0 {
		e.Data = nil
	} else {
		e.Data = append([]byte(nil), e.Data...)
	}
	e = m.log.append(e)
	// Under m.mu, so subscribers see events in ID order.
	m.hub.publish(e)
	return e
}

// Since implements Store.
func (m *Memory) Since(ctx context.Context, after int64, limit int) ([]event.Event, error) {
	if err := m.lock(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	return m.log.since(after, limit), nil
}

// Subscribe implements Store.
func (m *Memory) Subscribe(ctx context.Context) (<-chan event.Event, error) {
	if err := m.lock(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	// Under m.mu: no Append is half published while the subscriber joins.
	return m.hub.subscribe(ctx, 0) // appends publish at once: none is older
}

// Ping implements Store.
func (m *Memory) Ping(ctx context.Context) error {
	if err := m.lock(ctx); err != nil {
		return err
	}
	m.mu.Unlock()
	return nil
}

// Close implements Store. It ends every subscription; later calls fail
// with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	m.hub.close()
	return nil
}

// checkOutcome rejects an outcome that is not Done, Ignored or Dead.
func checkOutcome(id, outcome string) error {
	switch outcome {
	case Done, Ignored, Dead:
		return nil
	}
	return fmt.Errorf("store: finish %s: outcome %q is not %q, %q or %q", id, outcome, Done, Ignored, Dead)
}

package store

import (
	"context"
	"sync"
	"time"
)

// MemPacer is the Pacer of one replica: the in-memory store's companion.
// Safe for concurrent use.
type MemPacer struct {
	limits PaceLimits
	now    func() time.Time

	mu    sync.Mutex
	insts map[int64]*memPace
	sweep int // len(insts) at which idle installations are next dropped
}

type memPace struct {
	sent    []time.Time // the newest bookings, oldest first (2·PaceLimits.keep of them at most)
	blocked time.Time   // when the block ends; zero for none
}

var _ Pacer = (*MemPacer)(nil)

// NewMemPacer returns a pacer with limits on the clock now (nil is
// time.Now).
func NewMemPacer(limits PaceLimits, now func() time.Time) *MemPacer {
	if now == nil {
		now = time.Now
	}
	return &MemPacer{limits: limits.withDefaults(), now: now, insts: map[int64]*memPace{}, sweep: minSweep}
}

// minSweep is the number of installations below which MemPacer does not
// look for idle ones to drop.
const minSweep = 64

// Reserve implements Pacer.
func (m *MemPacer) Reserve(ctx context.Context, installation int64, within time.Duration) (time.Duration, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	p := m.inst(installation, now)
	at := m.limits.next(m.limits.lookbackOf(p.sent), p.blocked, now)
	if at.Sub(now) > within {
		return at.Sub(now), false, nil
	}
	// Bookings beyond keep are dropped in one copy every keep bookings.
	if keep := m.limits.keep(); len(p.sent) >= 2*keep {
		p.sent = append(p.sent[:0], p.sent[len(p.sent)-keep+1:]...)
	}
	p.sent = append(p.sent, at)
	return at.Sub(now), true, nil
}

// Blocked implements Pacer.
func (m *MemPacer) Blocked(ctx context.Context, installation int64) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.insts[installation]
	if !ok {
		return 0, nil
	}
	return max(p.blocked.Sub(m.now()), 0), nil
}

// Block implements Pacer.
func (m *MemPacer) Block(ctx context.Context, installation int64, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	p := m.inst(installation, now)
	if until := now.Add(d); until.After(p.blocked) {
		p.blocked = until
	}
	return nil
}

// inst returns installation's state, made on first use. When the map has
// doubled since the last sweep, installations with no booking in force
// and no block are dropped first, so that memory follows the
// installations that are active, not every one ever seen.
func (m *MemPacer) inst(installation int64, now time.Time) *memPace {
	if p, ok := m.insts[installation]; ok {
		return p
	}
	if len(m.insts) >= m.sweep {
		for id, p := range m.insts {
			if idle := len(p.sent) == 0 || !p.sent[len(p.sent)-1].After(now.Add(-paceWindow)); idle && !p.blocked.After(now) {
				delete(m.insts, id)
			}
		}
		m.sweep = max(2*len(m.insts), minSweep)
	}
	p := &memPace{}
	m.insts[installation] = p
	return p
}

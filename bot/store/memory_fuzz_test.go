package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// model is the queue's contract written the plain way — a list in added
// order, scanned at every claim — against which Memory's heap and
// per-key queues are checked.
type model struct {
	ds []*modelDelivery
}

type modelDelivery struct {
	id, key  string
	state    string // pending, claimed, finished, dead
	worker   string
	until    time.Time
	due      time.Time // not claimed before
	attempts int
	leaseOut int // leases that ran out
}

func (m *model) find(id string) *modelDelivery {
	for _, d := range m.ds {
		if d.id == id {
			return d
		}
	}
	return nil
}

func (m *model) add(id, key string) bool {
	if m.find(id) != nil {
		return false
	}
	m.ds = append(m.ds, &modelDelivery{id: id, key: key, state: "pending"})
	return true
}

func (m *model) expire(now time.Time) {
	for _, d := range m.ds {
		if d.state == "claimed" && !d.until.After(now) {
			d.worker = ""
			if d.leaseOut++; d.leaseOut >= store.MaxAttempts {
				d.state = "dead"
			} else {
				d.state = "pending"
			}
		}
	}
}

func (m *model) claim(worker string, now, until time.Time) (string, int) {
	blocked := map[string]bool{}
	for _, d := range m.ds {
		if d.state == "claimed" && d.key != "" {
			blocked[d.key] = true
		}
	}
	for _, d := range m.ds {
		if d.state != "pending" {
			continue
		}
		if d.key != "" && blocked[d.key] {
			continue
		}
		if d.due.After(now) {
			// Not due: it holds back its key's later deliveries.
			if d.key != "" {
				blocked[d.key] = true
			}
			continue
		}
		d.state, d.worker, d.until, d.due = "claimed", worker, until, time.Time{}
		d.attempts++
		return d.id, d.attempts
	}
	return "", 0
}

func (m *model) claimOf(id, worker string) *modelDelivery {
	d := m.find(id)
	if d == nil || d.state != "claimed" || d.worker != worker {
		return nil
	}
	return d
}

func (m *model) pending() int {
	n := 0
	for _, d := range m.ds {
		if d.state == "pending" || d.state == "claimed" {
			n++
		}
	}
	return n
}

// redeliver is Redeliver on the model: a dead delivery is a new arrival.
func (m *model) redeliver(id string) error {
	for i, d := range m.ds {
		if d.id != id {
			continue
		}
		if d.state != "dead" {
			return store.ErrNotDead
		}
		m.ds = append(append(m.ds[:i:i], m.ds[i+1:]...), &modelDelivery{id: id, key: d.key, state: "pending"})
		return nil
	}
	return store.ErrUnknown
}

// FuzzMemoryQueue runs a sequence of operations, read from the input two
// bytes at a time, on Memory and on the model, and fails where they differ.
// One installation: the order of claims is the order of arrival.
func FuzzMemoryQueue(f *testing.F) {
	f.Add([]byte{0, 0x10, 0, 0x11, 1, 0, 1, 1, 2, 0x00, 1, 2})
	f.Add([]byte{0, 0x21, 0, 0x22, 1, 5, 5, 3, 1, 0, 5, 3, 6, 0, 1, 1, 3, 0x01})
	f.Add([]byte{0, 0x31, 1, 0, 5, 3, 1, 1, 5, 3, 1, 2, 5, 3, 1, 0, 5, 3, 1, 1, 5, 3, 6, 0})
	f.Add([]byte{0, 0x10, 0, 0x11, 1, 0, 8, 0x01, 1, 0, 5, 3, 1, 0, 9, 0, 11, 0, 1, 0, 10, 0x20, 6, 0})
	f.Add([]byte{0, 0x20, 0, 0x21, 0, 0x32, 1, 0x02, 10, 0x12, 1, 0x10, 1, 0x20, 2, 0x00, 1, 0x10, 11, 0x02})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s := store.NewMemory(store.Options{Now: clk.Now})
		defer s.Close()
		var m model
		keys := []string{"", "o/r#1", "o/r#2", "o/r"}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%12, int(ops[i+1])
			id := fmt.Sprintf("d%d", arg%16)
			worker := fmt.Sprintf("w%d", arg/16%3)
			lease := time.Duration(arg%4+1) * 10 * time.Second
			where := fmt.Sprintf("op %d (%d %d)", i/2, op, arg)
			now := clk.Now()
			m.expire(now)
			switch op {
			case 0:
				key := keys[arg/16%len(keys)]
				got, err := s.Add(ctx, store.Delivery{ID: id, Key: key})
				if want := m.add(id, key); err != nil || got != want {
					t.Fatalf("%s: Add(%s) = %v, %v; want %v", where, id, got, err, want)
				}
			case 1, 7:
				d, ok, err := s.Claim(ctx, worker, lease)
				wantID, wantAttempts := m.claim(worker, now, now.Add(lease))
				if err != nil || ok != (wantID != "") || d.ID != wantID || d.Attempts != wantAttempts {
					t.Fatalf("%s: Claim = %q attempt %d, %v, %v; want %q attempt %d", where, d.ID, d.Attempts, ok, err, wantID, wantAttempts)
				}
			case 2, 3, 4:
				var err error
				md := m.claimOf(id, worker)
				switch op {
				case 2:
					err = s.Finish(ctx, id, worker, store.Done)
					if md != nil {
						md.state, md.worker = "finished", ""
					}
				case 3:
					err = s.Release(ctx, id, worker)
					if md != nil {
						md.state, md.worker = "pending", ""
						md.attempts--
					}
				case 4:
					err = s.Extend(ctx, id, worker, lease)
					if md != nil {
						md.until = now.Add(lease)
					}
				}
				if lost := errors.Is(err, store.ErrLost); lost != (md == nil) || (!lost && err != nil) {
					t.Fatalf("%s: op on %s by %s = %v; want lost %v", where, id, worker, err, md == nil)
				}
			case 8, 9, 10:
				var err error
				md := m.claimOf(id, worker)
				switch op {
				case 8:
					after := time.Duration(arg%3) * 5 * time.Second
					err = s.Retry(ctx, id, worker, after, "transient")
					if md != nil {
						md.state, md.worker, md.due = "pending", "", now.Add(after)
					}
				case 9:
					err = s.Bury(ctx, id, worker, "permanent")
					if md != nil {
						md.state, md.worker = "dead", ""
					}
				case 10:
					key := keys[arg/16%len(keys)]
					err = s.Rekey(ctx, id, worker, key)
					if md != nil {
						md.state, md.worker, md.key = "pending", "", key
						md.attempts--
					}
				}
				if lost := errors.Is(err, store.ErrLost); lost != (md == nil) || (!lost && err != nil) {
					t.Fatalf("%s: op on %s by %s = %v; want lost %v", where, id, worker, err, md == nil)
				}
			case 11:
				err := s.Redeliver(ctx, id)
				want := m.redeliver(id)
				if !errors.Is(err, want) || (want == nil && err != nil) {
					t.Fatalf("%s: Redeliver(%s) = %v; want %v", where, id, err, want)
				}
			case 5:
				clk.advance(time.Duration(arg%4) * 5 * time.Second)
			case 6:
				n, err := s.Pending(ctx)
				if want := m.pending(); err != nil || n != want {
					t.Fatalf("%s: Pending() = %d, %v; want %d", where, n, err, want)
				}
			}
		}
	})
}

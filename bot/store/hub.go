package store

import (
	"context"
	"sync"

	"github.com/gcloop/gcloop/bot/event"
)

// hub fans events out to local subscribers. A subscriber whose buffer is
// full is dropped — its channel closed — rather than blocking the others.
type hub struct {
	buffer int

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	ch    chan event.Event
	after int64 // events up to this ID were appended before it subscribed
	done  bool  // ch is closed
}

func newHub(buffer int) *hub {
	return &hub{buffer: buffer, subs: make(map[*subscriber]struct{})}
}

// subscribe registers a subscriber of the events with an ID above after
// until ctx ends or the hub closes.
func (h *hub) subscribe(ctx context.Context, after int64) (<-chan event.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &subscriber{ch: make(chan event.Event, h.buffer), after: after}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.drop(s)
	})
	return s.ch, nil
}

// publish hands e to every subscriber; callers publish in ID order and
// never concurrently with each other.
func (h *hub) publish(e event.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if e.ID <= s.after {
			continue
		}
		select {
		case s.ch <- e:
		default:
			h.drop(s)
		}
	}
}

// drop closes s's channel once; h.mu is held.
func (h *hub) drop(s *subscriber) {
	if s.done {
		return
	}
	s.done = true
	delete(h.subs, s)
	close(s.ch)
}

// close ends every subscription and refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		h.drop(s)
	}
}

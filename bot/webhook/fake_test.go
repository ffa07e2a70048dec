package webhook_test

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// fakeStore is the part of store.Store the receiver and the workers use,
// in memory, with the store's semantics of claims (one claim per key at a
// time, in the order added; leases; MaxAttempts) and errors to inject.
type fakeStore struct {
	mu     sync.Mutex
	now    func() time.Time
	order  []string
	all    map[string]*entry
	events []event.Event

	addErr, claimErr, extendErr, appendErr error
	calls                                  map[string]int
}

type entry struct {
	d       store.Delivery
	state   string // "pending", "claimed" or an outcome
	worker  string
	expires time.Time
}

func newFakeStore() *fakeStore {
	return &fakeStore{now: time.Now, all: map[string]*entry{}, calls: map[string]int{}}
}

func (s *fakeStore) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

func (s *fakeStore) Add(_ context.Context, d store.Delivery) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Add"]++
	if s.addErr != nil {
		return false, s.addErr
	}
	if _, ok := s.all[d.ID]; ok {
		return false, nil
	}
	d.Payload = append([]byte(nil), d.Payload...)
	s.all[d.ID] = &entry{d: d, state: "pending"}
	s.order = append(s.order, d.ID)
	return true, nil
}

func (s *fakeStore) Claim(_ context.Context, worker string, lease time.Duration) (store.Delivery, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Claim"]++
	if s.claimErr != nil {
		return store.Delivery{}, false, s.claimErr
	}
	now := s.now()
	held := map[string]bool{}
	for _, id := range s.order {
		e := s.all[id]
		if e.state == "claimed" && now.After(e.expires) {
			e.state = "pending"
		}
		if e.state == "claimed" && e.d.Key != "" {
			held[e.d.Key] = true
		}
	}
	for _, id := range s.order {
		e := s.all[id]
		if e.state != "pending" {
			continue
		}
		if e.d.Key != "" && held[e.d.Key] {
			continue
		}
		if e.d.Attempts >= store.MaxAttempts {
			e.state = store.Failed
			continue
		}
		e.d.Attempts++
		e.state, e.worker, e.expires = "claimed", worker, now.Add(lease)
		return e.d, true, nil
	}
	return store.Delivery{}, false, nil
}

func (s *fakeStore) mine(id, worker string) (*entry, error) {
	e, ok := s.all[id]
	if !ok || e.state != "claimed" || e.worker != worker || s.now().After(e.expires) {
		return nil, store.ErrLost
	}
	return e, nil
}

func (s *fakeStore) Extend(_ context.Context, id, worker string, lease time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Extend"]++
	if s.extendErr != nil {
		return s.extendErr
	}
	e, err := s.mine(id, worker)
	if err != nil {
		return err
	}
	e.expires = s.now().Add(lease)
	return nil
}

func (s *fakeStore) Finish(_ context.Context, id, worker, outcome string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Finish"]++
	e, err := s.mine(id, worker)
	if err != nil {
		return err
	}
	e.state = outcome
	return nil
}

func (s *fakeStore) Release(_ context.Context, id, worker string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Release"]++
	e, err := s.mine(id, worker)
	if err != nil {
		return err
	}
	e.state = "pending"
	e.d.Attempts--
	return nil
}

func (s *fakeStore) Append(_ context.Context, e event.Event) (event.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.appendErr != nil {
		return e, s.appendErr
	}
	e.ID = int64(len(s.events) + 1)
	e.Time = s.now()
	s.events = append(s.events, e)
	return e, nil
}

// states is each delivery's state, by id.
func (s *fakeStore) states() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for id, e := range s.all {
		out[id] = e.state
	}
	return out
}

// delivery is the stored delivery id.
func (s *fakeStore) delivery(id string) (store.Delivery, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.all[id]
	if !ok {
		return store.Delivery{}, false
	}
	return e.d, true
}

// eventsOf is the log's events of type typ.
func (s *fakeStore) eventsOf(typ string) []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []event.Event
	for _, e := range s.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

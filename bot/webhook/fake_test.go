package webhook_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// testStore is the bot's in-memory store with a record of the calls that
// reached it, what they did, and errors to inject.
type testStore struct {
	*store.Memory

	mu     sync.Mutex
	errs   map[string]error          // by method
	calls  map[string]int            // by method
	added  map[string]store.Delivery // as the receiver added them
	states map[string]string         // "pending", "claimed" or the outcome
}

// newTestStore is a store on the clock now (nil: the wall clock).
func newTestStore(now func() time.Time) *testStore {
	return &testStore{Memory: store.NewMemory(store.Options{Now: now}), errs: map[string]error{}, calls: map[string]int{},
		added: map[string]store.Delivery{}, states: map[string]string{}}
}

// fail makes method fail with err from now on; nil heals it.
func (s *testStore) fail(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs[method] = err
}

// call counts a call of method and returns its injected error.
func (s *testStore) call(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[method]++
	return s.errs[method]
}

func (s *testStore) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

func (s *testStore) set(id, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states[id] = state
}

func (s *testStore) Add(ctx context.Context, d store.Delivery) (bool, error) {
	if err := s.call("Add"); err != nil {
		return false, err
	}
	ok, err := s.Memory.Add(ctx, d)
	if ok {
		s.mu.Lock()
		s.added[d.ID] = d
		s.states[d.ID] = "pending"
		s.mu.Unlock()
	}
	return ok, err
}

func (s *testStore) Claim(ctx context.Context, worker string, lease time.Duration) (store.Delivery, bool, error) {
	if err := s.call("Claim"); err != nil {
		return store.Delivery{}, false, err
	}
	d, ok, err := s.Memory.Claim(ctx, worker, lease)
	if ok {
		s.set(d.ID, "claimed")
	}
	return d, ok, err
}

func (s *testStore) Extend(ctx context.Context, id, worker string, lease time.Duration) error {
	if err := s.call("Extend"); err != nil {
		return err
	}
	return s.Memory.Extend(ctx, id, worker, lease)
}

func (s *testStore) Finish(ctx context.Context, id, worker, outcome string) error {
	if err := s.call("Finish"); err != nil {
		return err
	}
	err := s.Memory.Finish(ctx, id, worker, outcome)
	if err == nil {
		s.set(id, outcome)
	}
	return err
}

func (s *testStore) Release(ctx context.Context, id, worker string) error {
	if err := s.call("Release"); err != nil {
		return err
	}
	err := s.Memory.Release(ctx, id, worker)
	if err == nil {
		s.set(id, "pending")
	}
	return err
}

func (s *testStore) Append(ctx context.Context, e event.Event) (event.Event, error) {
	if err := s.call("Append"); err != nil {
		return e, err
	}
	return s.Memory.Append(ctx, e)
}

// state is delivery id's state as the calls left it: "" for one never
// added.
func (s *testStore) state(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[id]
}

// delivery is delivery id as the receiver added it.
func (s *testStore) delivery(id string) (store.Delivery, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.added[id]
	return d, ok
}

// queued is the number of deliveries added.
func (s *testStore) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.added)
}

// eventsOf is the log's events of type typ, in order.
func (s *testStore) eventsOf(typ string) []event.Event {
	all, err := s.Memory.Since(context.Background(), 0, store.Retained)
	if err != nil {
		panic(errors.New("the log: " + err.Error()))
	}
	var out []event.Event
	for _, e := range all {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

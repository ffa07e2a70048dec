package webhook_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// testStore is a store of the bot (in memory, or PostgreSQL) with a record
// of the calls that reached it through this value, what they did, and
// errors to inject.
type testStore struct {
	store.Store
	*record
}

// record is what the calls did, shared by the replicas of one store.
type record struct {
	mu     sync.Mutex
	errs   map[string]error          // by method
	calls  map[string]int            // by method
	added  map[string]store.Delivery // as the receiver added them
	states map[string]string         // "pending", "claimed" or the outcome
	gate   chan struct{}             // non-nil: a Claim waits for it to close before it reaches the store
}

// holdClaims makes every Claim from now on wait, once counted, until the
// returned func is called.
func (s *record) holdClaims() (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	s.gate = gate
	s.mu.Unlock()
	return func() { close(gate) }
}

// newTestStore is a store on the clock now (nil: the wall clock).
func newTestStore(now func() time.Time) *testStore {
	return wrap(store.NewMemory(store.Options{Now: now}))
}

// newPostgresStore is a store on a new database of the test binary's
// PostgreSQL cluster, closed when tb ends; tb is skipped without a server
// (failed under CI=true).
func newPostgresStore(tb testing.TB, url string) *testStore {
	tb.Helper()
	st, err := store.OpenPostgres(context.Background(), url+"&pool_max_conns=8", store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return wrap(st)
}

func wrap(st store.Store) *testStore {
	return &testStore{Store: st, record: &record{errs: map[string]error{}, calls: map[string]int{},
		added: map[string]store.Delivery{}, states: map[string]string{}}}
}

// replica is another replica's view of the same store, through st, with
// the same record.
func (s *testStore) replica(st store.Store) *testStore {
	return &testStore{Store: st, record: s.record}
}

// fail makes method fail with err from now on; nil heals it.
func (s *record) fail(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs[method] = err
}

// call counts a call of method and returns its injected error.
func (s *record) call(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[method]++
	return s.errs[method]
}

func (s *record) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

func (s *record) set(id, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states[id] = state
}

func (s *testStore) Add(ctx context.Context, d store.Delivery) (bool, error) {
	if err := s.call("Add"); err != nil {
		return false, err
	}
	ok, err := s.Store.Add(ctx, d)
	if ok {
		s.mu.Lock()
		s.added[d.ID] = d
		if _, seen := s.states[d.ID]; !seen { // a worker may have claimed it already
			s.states[d.ID] = "pending"
		}
		s.mu.Unlock()
	}
	return ok, err
}

func (s *testStore) Claim(ctx context.Context, worker string, lease time.Duration) (store.Delivery, bool, error) {
	if err := s.call("Claim"); err != nil {
		return store.Delivery{}, false, err
	}
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	d, ok, err := s.Store.Claim(ctx, worker, lease)
	if ok {
		s.set(d.ID, "claimed")
	}
	return d, ok, err
}

func (s *testStore) Extend(ctx context.Context, id, worker string, lease time.Duration) error {
	if err := s.call("Extend"); err != nil {
		return err
	}
	return s.Store.Extend(ctx, id, worker, lease)
}

func (s *testStore) Finish(ctx context.Context, id, worker, outcome string) error {
	if err := s.call("Finish"); err != nil {
		return err
	}
	err := s.Store.Finish(ctx, id, worker, outcome)
	if err == nil {
		s.set(id, outcome)
	}
	return err
}

func (s *testStore) Release(ctx context.Context, id, worker string) error {
	if err := s.call("Release"); err != nil {
		return err
	}
	err := s.Store.Release(ctx, id, worker)
	if err == nil {
		s.set(id, "pending")
	}
	return err
}

func (s *testStore) Retry(ctx context.Context, id, worker string, after time.Duration, reason string) error {
	if err := s.call("Retry"); err != nil {
		return err
	}
	err := s.Store.Retry(ctx, id, worker, after, reason)
	if err == nil {
		s.set(id, "pending")
	}
	return err
}

func (s *testStore) Bury(ctx context.Context, id, worker, reason string) error {
	if err := s.call("Bury"); err != nil {
		return err
	}
	err := s.Store.Bury(ctx, id, worker, reason)
	if err == nil {
		s.set(id, store.Dead)
	}
	return err
}

func (s *testStore) Rekey(ctx context.Context, id, worker, key string) error {
	if err := s.call("Rekey"); err != nil {
		return err
	}
	err := s.Store.Rekey(ctx, id, worker, key)
	if err == nil {
		s.set(id, "pending")
	}
	return err
}

func (s *testStore) Append(ctx context.Context, e event.Event) (event.Event, error) {
	if err := s.call("Append"); err != nil {
		return e, err
	}
	return s.Store.Append(ctx, e)
}

// state is delivery id's state as the calls left it: "" for one never
// added.
func (s *record) state(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[id]
}

// delivery is delivery id as the receiver added it.
func (s *record) delivery(id string) (store.Delivery, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.added[id]
	return d, ok
}

// queued is the number of deliveries added.
func (s *record) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.added)
}

// eventsOf is the log's events of type typ, in order.
func (s *testStore) eventsOf(typ string) []event.Event {
	all, err := s.Store.Since(context.Background(), 0, store.Retained)
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

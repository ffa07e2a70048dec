package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
	"github.com/google/go-cmp/cmp"
)

// handlerFunc is a Handler of a function.
type handlerFunc func(ctx context.Context, id, event string, payload []byte) error

func (f handlerFunc) Handle(ctx context.Context, id, event string, payload []byte) error {
	return f(ctx, id, event, payload)
}

const lease = 60 * time.Second

// startPool starts a pool over fs with the manual clock; it is shut down
// when the test ends.
func startPool(t *testing.T, fs *testStore, h webhook.Handler, clock *manualClock, o webhook.PoolOptions) *webhook.Pool {
	t.Helper()
	o.Clock, o.Logger, o.Lease = clock, quiet, lease
	if o.Name == "" {
		o.Name = "test"
	}
	p, err := webhook.NewPool(fs, h, o)
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.Shutdown(ctx)
	})
	return p
}

func add(t *testing.T, fs *testStore, id, key string) {
	t.Helper()
	if ok, err := fs.Add(context.Background(), store.Delivery{ID: id, Event: "issue_comment", Key: key,
		Payload: []byte(`{"repository":{"full_name":"octo/shop"},"issue":{"number":1,"pull_request":{}}}`)}); !ok || err != nil {
		t.Fatalf("add %s: %v %v", id, ok, err)
	}
}

// settled waits until delivery id is finished (not pending nor claimed).
func settled(t *testing.T, fs *testStore, id string) string {
	t.Helper()
	eventually(t, func() bool {
		s := fs.state(id)
		return s != "pending" && s != "claimed"
	}, "delivery %s to be finished", id)
	return fs.state(id)
}

func TestPoolFinishesEachDeliveryWithItsOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		panic   bool
		outcome string
		errText string // the error event's text, "" for none
	}{
		{name: "work done", outcome: store.Done},
		{name: "nothing to do", err: fmt.Errorf("a ping: %w", delivery.ErrIgnored), outcome: store.Ignored},
		{name: "work failed", err: errors.New("read the report comment: 502 Bad Gateway\nthe body of the answer"), outcome: store.Dead,
			errText: "read the report comment: 502 Bad Gateway"},
		{name: "a handler that panics", panic: true, outcome: store.Dead, errText: "the handler panicked: index out of range"},
		// The handler logged the error event itself, naming its loop: the
		// feed would show the failure twice.
		{name: "work failed and logged", err: delivery.Logged(errors.New("read the report comment: 404 Not Found")), outcome: store.Dead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			var mu sync.Mutex
			var observed []string
			h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
				if tt.panic {
					panic("index out of range")
				}
				return tt.err
			})
			p := startPool(t, fs, h, newManualClock(), webhook.PoolOptions{Observe: func(ev, result string, _ time.Duration) {
				mu.Lock()
				observed = append(observed, ev+" "+result)
				mu.Unlock()
			}})
			add(t, fs, "d-1", "octo/shop#1")
			p.Wake()
			if got := settled(t, fs, "d-1"); got != tt.outcome {
				t.Errorf("outcome %q, want %q", got, tt.outcome)
			}
			eventually(t, func() bool { return len(fs.eventsOf(event.Delivery)) == 1 }, "the delivery event")
			ev := fs.eventsOf(event.Delivery)[0]
			if ev.Repo != "octo/shop" || ev.PR != 1 || !strings.Contains(string(ev.Data), `"result":"`+tt.outcome+`"`) || !strings.Contains(string(ev.Data), `"attempt":1`) {
				t.Errorf("delivery event %+v %s", ev, ev.Data)
			}
			errs := fs.eventsOf(event.Error)
			switch {
			case tt.errText == "" && len(errs) != 0:
				t.Errorf("error events %+v, want none", errs)
			case tt.errText != "" && (len(errs) != 1 || !strings.Contains(string(errs[0].Data), tt.errText) || strings.Contains(string(errs[0].Data), "body of the answer")):
				t.Errorf("error events %+v, want one with the error's first line %q", errs, tt.errText)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{"issue_comment " + tt.outcome}, observed); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPoolRunsOnePullRequestAtATimeAndOthersMeanwhile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		open func(t *testing.T) []*testStore // one per replica
	}{
		{"one replica, in memory", func(t *testing.T) []*testStore { return []*testStore{newTestStore(nil)} }},
		{"two replicas on one PostgreSQL database", func(t *testing.T) []*testStore {
			url := pgtest.URL(t)
			first := newPostgresStore(t, url)
			return []*testStore{first, first.replica(newPostgresStore(t, url).Store)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			replicas := tt.open(t)
			fs := replicas[0]
			var (
				mu      sync.Mutex
				running = map[string]int{}
				started []string
				most    int
			)
			unblock := make(chan struct{})
			h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
				key := strings.SplitN(id, "-", 2)[0]
				mu.Lock()
				running[key]++
				most = max(most, running[key])
				started = append(started, id)
				mu.Unlock()
				if id == "a-1" {
					<-unblock
				}
				mu.Lock()
				running[key]--
				mu.Unlock()
				return nil
			})
			var pools []*webhook.Pool
			for i, r := range replicas {
				pools = append(pools, startPool(t, r, h, newManualClock(), webhook.PoolOptions{Workers: 4, Name: fmt.Sprintf("replica-%d", i)}))
			}
			add(t, fs, "a-1", "octo/shop#1")
			add(t, fs, "a-2", "octo/shop#1")
			add(t, fs, "b-1", "octo/shop#2")
			add(t, fs, "c-1", "")
			for _, p := range pools {
				p.Wake()
			}
			// b-1 and c-1 finish while a-1 blocks; a-2 waits for a-1.
			settled(t, fs, "b-1")
			settled(t, fs, "c-1")
			eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return index(started, "a-1") >= 0 }, "a-1 to start")
			for _, p := range pools {
				p.Wake() // every replica looks again: a-2 stays pending
			}
			if s := fs.state("a-2"); s != "pending" {
				t.Fatalf("a-2 is %s while a-1 runs on the same pull request", s)
			}
			close(unblock)
			settled(t, fs, "a-2")
			mu.Lock()
			defer mu.Unlock()
			if most != 1 {
				t.Errorf("%d deliveries of one key ran at once", most)
			}
			if i, j := index(started, "a-1"), index(started, "a-2"); i < 0 || j < i {
				t.Errorf("started %v: a-2 before a-1", started)
			}
		})
	}
}

func index(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestHeartbeatRenewsTheLeaseAndALostLeaseCancelsTheWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		extendErr error
		stall     time.Duration // the clock jumps before the first beat
		ticks     int
		canceled  bool
	}{
		{"the lease is renewed while the work runs, past the first lease", nil, 0, 5, false},
		{"a heartbeat that stalled past the lease finds the claim lost", nil, lease, 1, true},
		{"the store says the claim is lost", store.ErrLost, 0, 1, true},
		{"the store is unreachable for less than a lease", errors.New("connection refused"), 0, 2, false},
		{"the store is unreachable for a whole lease", errors.New("connection refused"), 0, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newManualClock()
			fs := newTestStore(clock.Now)
			fs.fail("Extend", tt.extendErr)
			finish := make(chan struct{})
			cause := make(chan error, 1)
			h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
				select {
				case <-ctx.Done():
					cause <- context.Cause(ctx)
					return ctx.Err()
				case <-finish:
					cause <- nil
					return nil
				}
			})
			p := startPool(t, fs, h, clock, webhook.PoolOptions{Workers: 1})
			add(t, fs, "d-1", "octo/shop#1")
			p.Wake()
			eventually(t, func() bool { return fs.state("d-1") == "claimed" }, "the claim")
			clock.Advance(tt.stall)
			for i := range tt.ticks {
				clock.Tick(t, lease/3, 1)
				eventually(t, func() bool { return fs.count("Extend") == i+1 }, "Extend #%d", i+1)
			}
			if !tt.canceled {
				close(finish)
			} else {
				// The delivery is pending again and claimed again: let
				// that run finish.
				defer close(finish)
			}
			var got error
			select {
			case got = <-cause:
			case <-time.After(10 * time.Second):
				t.Fatal("the work was not canceled")
			}
			if tt.canceled != errors.Is(got, store.ErrLost) {
				t.Fatalf("the work's context ended with %v, want canceled %v", got, tt.canceled)
			}
			eventually(t, func() bool { return len(fs.eventsOf(event.Delivery)) == 1 }, "the delivery event")
			if tt.canceled {
				if fs.count("Finish") != 0 {
					t.Error("a lost claim was finished")
				}
				if d := fs.eventsOf(event.Delivery)[0].Data; !strings.Contains(string(d), `"result":"lost"`) {
					t.Errorf("event %s, want lost", d)
				}
			} else if s := fs.state("d-1"); s != store.Done {
				t.Errorf("state %s, want done", s)
			}
		})
	}
}

func TestPollFindsWorkQueuedElsewhere(t *testing.T) {
	t.Parallel()
	fs := newTestStore(nil)
	clock := newManualClock()
	done := make(chan string, 1)
	startPool(t, fs, handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error { done <- id; return nil }), clock, webhook.PoolOptions{Workers: 2})
	// The store fails at first: the claim is tried again at the next poll.
	fs.fail("Claim", errors.New("connection reset"))
	clock.Tick(t, time.Second, 1)
	eventually(t, func() bool { return fs.count("Claim") >= 1 }, "a claim")
	fs.fail("Claim", nil)
	add(t, fs, "d-other-replica", "octo/shop#3") // no Wake: another replica queued it
	clock.Tick(t, time.Second, 1)
	if id := <-done; id != "d-other-replica" {
		t.Errorf("ran %s", id)
	}
}

// A delivery handed back at shutdown is not claimed again by another
// worker of the stopping pool: a claim that returns after Shutdown began
// hands its delivery back unrun. Here a second worker's claim is held in
// flight while the first worker's delivery is canceled and handed back,
// then let through: it finds the delivery pending again.
func TestShutdownRunsNothingClaimedAfterItBegan(t *testing.T) {
	t.Parallel()
	fs := newTestStore(nil)
	clock := newManualClock()
	var runs atomic.Int32
	started := make(chan struct{}, 2)
	h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
		runs.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	p := startPool(t, fs, h, clock, webhook.PoolOptions{Workers: 2, Grace: 5 * time.Second})
	add(t, fs, "d-1", "octo/shop#1")
	p.Wake()
	<-started
	eventually(t, func() bool { return fs.state("d-1") == "claimed" }, "the claim")
	before := fs.count("Claim")
	let := fs.holdClaims()
	p.Wake() // the idle worker claims again, and waits in the store
	eventually(t, func() bool { return fs.count("Claim") > before }, "a second claim in flight")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has passed: the running delivery is canceled at once
	errc := make(chan error, 1)
	go func() { errc <- p.Shutdown(ctx) }()
	eventually(t, func() bool { return fs.state("d-1") == "pending" }, "d-1 handed back")
	let()
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "handed 1 unfinished deliveries back") {
		t.Errorf("Shutdown = %v, want one delivery handed back", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want once", n)
	}
	if s := fs.state("d-1"); s != "pending" {
		t.Errorf("d-1 is %s, want pending", s)
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		honorsCtx  bool // the work returns when its context ends
		finishes   bool // the work finishes before the deadline
		wantState  string
		wantErr    bool
		wantResult string
	}{
		{name: "running work finishes before the deadline", finishes: true, wantState: store.Done, wantResult: store.Done},
		{name: "work canceled at the deadline hands itself back", honorsCtx: true, wantState: "pending", wantErr: true, wantResult: webhook.Released},
		{name: "work that ignores its context is handed back after the grace", wantState: "pending", wantErr: true, wantResult: webhook.Released},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			clock := newManualClock()
			started := make(chan struct{})
			finish := make(chan struct{})
			returned := make(chan struct{})
			h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
				defer close(returned)
				close(started)
				if tt.honorsCtx {
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-finish:
						return nil
					}
				}
				<-finish
				return nil
			})
			p := startPool(t, fs, h, clock, webhook.PoolOptions{Workers: 2, Grace: 5 * time.Second})
			add(t, fs, "d-1", "octo/shop#1")
			p.Wake()
			<-started
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- p.Shutdown(ctx) }()
			switch {
			case tt.finishes:
				close(finish)
			case tt.honorsCtx:
				cancel()
			default:
				cancel()
				clock.Tick(t, 5*time.Second, 1)
			}
			err := <-errc
			cancel()
			if (err != nil) != tt.wantErr || (err != nil && !strings.Contains(err.Error(), "handed 1 unfinished deliveries back")) {
				t.Errorf("Shutdown = %v, want an error %v", err, tt.wantErr)
			}
			if s := fs.state("d-1"); s != tt.wantState {
				t.Errorf("state %s, want %s", s, tt.wantState)
			}
			if !tt.finishes && !tt.honorsCtx {
				close(finish)
			}
			<-returned
			eventually(t, func() bool { return len(fs.eventsOf(event.Delivery)) == 1 }, "the delivery event")
			if d := fs.eventsOf(event.Delivery)[0].Data; !strings.Contains(string(d), `"result":"`+tt.wantResult+`"`) {
				t.Errorf("event %s, want %s", d, tt.wantResult)
			}
			if tt.wantState == "pending" {
				// Another replica takes it up; the hand-back cost it no attempt.
				d, ok, err := fs.Store.Claim(context.Background(), "other-replica", lease)
				if !ok || err != nil || d.ID != "d-1" || d.Attempts != 1 {
					t.Errorf("claim after the hand-back: %+v %v %v, want d-1 at its first attempt", d, ok, err)
				}
			}
			// A stopped pool claims nothing more.
			claims := fs.count("Claim")
			add(t, fs, "d-2", "octo/shop#2")
			p.Wake()
			clock.Tick(t, 5*time.Second, 0)
			if fs.count("Claim") != claims || fs.state("d-2") != "pending" {
				t.Error("a stopped pool claimed a delivery")
			}
		})
	}
}

func TestAFinishTheStoreRefusesIsWorkedAgainAfterTheLease(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	fs := newTestStore(clock.Now)
	runs := make(chan int, 2)
	n := 0
	h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
		n++
		runs <- n
		return nil
	})
	p := startPool(t, fs, h, clock, webhook.PoolOptions{Workers: 1})
	fs.fail("Finish", errors.New("connection reset by peer"))
	add(t, fs, "d-1", "octo/shop#1")
	p.Wake()
	<-runs
	eventually(t, func() bool { return len(fs.eventsOf(event.Delivery)) == 1 }, "the first run's event")
	if d := fs.eventsOf(event.Delivery)[0].Data; !strings.Contains(string(d), `"result":"lost"`) {
		t.Errorf("first run: %s, want lost", d)
	}
	fs.fail("Finish", nil)
	// The claim runs out; the next poll claims the delivery again.
	clock.Advance(lease)
	clock.Tick(t, time.Second, 1)
	if got := <-runs; got != 2 {
		t.Fatalf("run %d", got)
	}
	if got := settled(t, fs, "d-1"); got != store.Done {
		t.Errorf("outcome %s, want done", got)
	}
	eventually(t, func() bool { return len(fs.eventsOf(event.Delivery)) == 2 }, "the second run's event")
	if d := fs.eventsOf(event.Delivery)[1].Data; !strings.Contains(string(d), `"attempt":2`) {
		t.Errorf("second run: %s, want attempt 2", d)
	}
}

func TestShutdownOfAnIdlePoolPastItsDeadline(t *testing.T) {
	t.Parallel()
	fs := newTestStore(nil)
	p := startPool(t, fs, handlerFunc(func(context.Context, string, string, []byte) error { return nil }), newManualClock(), webhook.PoolOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errc := make(chan error, 1)
	go func() { errc <- p.Shutdown(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Shutdown = %v, want nil: nothing was running", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown of an idle pool waits for its grace")
	}
}

package ghclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/store/storetest"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// paceWorld is a test server and replicas of one installation's client,
// each with its own pacer over one store, on a clock that moves only when
// a client sleeps. The server is a bare one, not the fake GitHub: the
// pacer is part of the transport, and these tests read when each request
// arrived on the replicas' test clock and answer with rate-limit headers
// of other resources (search) that no operation of the fake sends.
type paceWorld struct {
	clock   *storetest.Clock
	mux     *http.ServeMux
	clients []*github.Client

	mu     sync.Mutex
	sleeps []string // "replica: wait"
	waits  []string // OnWait: "installation write wait"
	blocks []string // OnBlock: "installation wait"
}

func newPaceWorld(t *testing.T, pacers []store.Pacer, clock *storetest.Clock, o Options) *paceWorld {
	t.Helper()
	w := &paceWorld{clock: clock, mux: http.NewServeMux()}
	srv := httptest.NewServer(w.mux)
	t.Cleanup(srv.Close)
	for i, p := range pacers {
		o.Token, o.BaseURL, o.MutationPause, o.Now, o.Rand = "t0ken", srv.URL, -1, clock.Now, func() float64 { return 0 }
		o.Pacer, o.Installation = p, 42
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			w.mu.Lock()
			w.sleeps = append(w.sleeps, string(rune('A'+i))+": "+d.String())
			w.mu.Unlock()
			clock.Advance(d)
			return ctx.Err()
		}
		o.OnWait = func(inst int64, write bool, d time.Duration) {
			w.mu.Lock()
			defer w.mu.Unlock()
			kind := "read"
			if write {
				kind = "write"
			}
			w.waits = append(w.waits, itoa(inst)+" "+kind+" "+d.String())
		}
		o.OnBlock = func(inst int64, d time.Duration) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.blocks = append(w.blocks, itoa(inst)+" "+d.String())
		}
		c, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		w.clients = append(w.clients, c)
	}
	return w
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (w *paceWorld) send(t *testing.T, replica int, method string) (*github.Response, error) {
	t.Helper()
	var body any
	if method != http.MethodGet {
		body = map[string]string{"body": "x"}
	}
	req, err := w.clients[replica].NewRequest(method, "repos/o/r/thing", body)
	if err != nil {
		t.Fatal(err)
	}
	return w.clients[replica].Do(context.Background(), req, nil)
}

func (w *paceWorld) got() (sleeps, waits, blocks []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sleeps, w.waits, w.blocks
}

// okHandler answers every request 200 and counts them.
func okHandler(n *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{"id":1}`)
	}
}

var start = time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)

// TestThe81stRequestOfAMinuteWaits sends 81 content-creating requests in
// the same instant (the clock moves only when a client sleeps): 80 go at
// once, the 81st waits a minute. Reads are never held back by the budget.
func TestThe81stRequestOfAMinuteWaits(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	w := newPaceWorld(t, []store.Pacer{store.NewMemPacer(store.PaceLimits{}, clock.Now)}, clock, Options{})
	var n atomic.Int32
	w.mux.HandleFunc("/repos/o/r/thing", okHandler(&n))
	methods := []string{http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete}
	for i := range 80 {
		if _, err := w.send(t, 0, methods[i%len(methods)]); err != nil {
			t.Fatal(err)
		}
		if _, err := w.send(t, 0, http.MethodGet); err != nil {
			t.Fatal(err)
		}
	}
	if sleeps, _, _ := w.got(); len(sleeps) != 0 {
		t.Fatalf("80 writes and 80 reads in an instant slept %v; want no wait", sleeps)
	}
	if _, err := w.send(t, 0, http.MethodPost); err != nil {
		t.Fatal(err)
	}
	sleeps, waits, _ := w.got()
	if diff := cmp.Diff([]string{"A: 1m0s"}, sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"42 write 1m0s"}, waits); diff != "" {
		t.Errorf("OnWait (-want +got):\n%s", diff)
	}
	if n.Load() != 161 {
		t.Errorf("the server got %d requests; want 161", n.Load())
	}
}

// TestAWaitPastTheDeadlineFailsAtOnce: a request whose booking would come
// after its context's deadline is not sent, books nothing and says why.
func TestAWaitPastTheDeadlineFailsAtOnce(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	p := store.NewMemPacer(store.PaceLimits{PerMinute: 1, PerHour: 10}, clock.Now)
	w := newPaceWorld(t, []store.Pacer{p}, clock, Options{})
	var n atomic.Int32
	w.mux.HandleFunc("/repos/o/r/thing", okHandler(&n))
	if _, err := w.send(t, 0, http.MethodPost); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := w.clients[0].NewRequest(http.MethodPost, "repos/o/r/thing", map[string]string{"body": "x"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.clients[0].Do(ctx, req, nil)
	var pe *PaceError
	if !errors.As(err, &pe) || pe.Wait != time.Minute || pe.Installation != 42 {
		t.Fatalf("Do = %v; want a *PaceError of installation 42 for a minute's wait", err)
	}
	if Classify(err) != KindRateLimited {
		t.Errorf("Classify = %q; want %q", Classify(err), KindRateLimited)
	}
	if d := Explain(err); !strings.HasPrefix(d, "rate limited: the installation's GitHub budget asks to wait 1m0s, more than the ") {
		t.Errorf("Explain = %q", d)
	}
	if n.Load() != 1 {
		t.Errorf("the server got %d requests; want 1", n.Load())
	}
	if wait, booked, _ := p.Reserve(context.Background(), 42, time.Hour); !booked || wait != time.Minute {
		t.Errorf("the next booking waits %s; want 1m: the refused request booked nothing", wait)
	}
}

// twoReplicas returns two pacers on one PostgreSQL database: two
// replicas' stores, each with its own pacer, on clock.
func twoReplicas(t *testing.T, clock *storetest.Clock) []store.Pacer {
	t.Helper()
	url := pgtest.URL(t)
	var out []store.Pacer
	for range 2 {
		s, err := store.OpenPostgres(context.Background(), url+"&pool_max_conns=2", store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out = append(out, s.Pacer(store.PaceLimits{}, clock.Now))
	}
	return out
}

// TestReplicasShareTheBudget: two replicas on one PostgreSQL send 40
// content-creating requests each in the same instant; the next one, from
// either, waits a minute.
func TestReplicasShareTheBudget(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	w := newPaceWorld(t, twoReplicas(t, clock), clock, Options{})
	var n atomic.Int32
	w.mux.HandleFunc("/repos/o/r/thing", okHandler(&n))
	for i := range 80 {
		if _, err := w.send(t, i%2, http.MethodPost); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.send(t, 1, http.MethodPatch); err != nil {
		t.Fatal(err)
	}
	sleeps, _, _ := w.got()
	if diff := cmp.Diff([]string{"B: 1m0s"}, sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

// TestA429OnOneReplicaBlocksTheOther: replica A's request is answered 429
// with Retry-After: 30 (A does not retry here). Replica B, which has seen
// no 429, holds its next write until the block ends, and no request of
// the installation goes meanwhile.
func TestA429OnOneReplicaBlocksTheOther(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	w := newPaceWorld(t, twoReplicas(t, clock), clock, Options{MaxRetries: -1})
	var (
		mu      sync.Mutex
		arrived []time.Duration
	)
	w.mux.HandleFunc("/repos/o/r/thing", func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived = append(arrived, clock.Now().Sub(start))
		first := len(arrived) == 1
		mu.Unlock()
		if first {
			rw.Header().Set("Retry-After", "30")
			rw.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(rw, `{"message":"You have exceeded a secondary rate limit."}`)
			return
		}
		io.WriteString(rw, `{"id":1}`)
	})
	if _, err := w.send(t, 0, http.MethodPost); Classify(err) != KindRateLimited {
		t.Fatalf("A's request: %v; want the 429", err)
	}
	if _, err := w.send(t, 1, http.MethodPost); err != nil {
		t.Fatal(err)
	}
	if _, err := w.send(t, 1, http.MethodGet); err != nil {
		t.Fatal(err)
	}
	sleeps, _, blocks := w.got()
	if diff := cmp.Diff([]string{"B: 30s"}, sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"42 30s"}, blocks); diff != "" {
		t.Errorf("OnBlock (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{0, 30 * time.Second, 30 * time.Second}, arrived); diff != "" {
		t.Errorf("requests arrived at (-want +got):\n%s", diff)
	}
}

// TestABlockIsWaitedOutOnce: a client that retries after a rate limit
// waits the block out once, in its retry's admission, not twice; a read
// held back by a block is counted as a read's wait.
func TestABlockIsWaitedOutOnce(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	w := newPaceWorld(t, []store.Pacer{store.NewMemPacer(store.PaceLimits{}, clock.Now)}, clock, Options{})
	var n atomic.Int32
	w.mux.HandleFunc("/repos/o/r/thing", func(rw http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			rw.Header().Set("Retry-After", "7")
			rw.WriteHeader(http.StatusForbidden)
			io.WriteString(rw, secondaryBody())
			return
		}
		io.WriteString(rw, `{"id":1}`)
	})
	if _, err := w.send(t, 0, http.MethodGet); err != nil {
		t.Fatal(err)
	}
	sleeps, waits, blocks := w.got()
	if diff := cmp.Diff([]string{"A: 7s"}, sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"42 read 7s"}, waits); diff != "" {
		t.Errorf("OnWait (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"42 7s"}, blocks); diff != "" {
		t.Errorf("OnBlock (-want +got):\n%s", diff)
	}
}

// TestAPrimaryLimitOfAnotherResourceBlocksNothing: search's exhausted
// quota says nothing of the REST core's.
func TestAPrimaryLimitOfAnotherResourceBlocksNothing(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	p := store.NewMemPacer(store.PaceLimits{}, clock.Now)
	w := newPaceWorld(t, []store.Pacer{p}, clock, Options{MaxRetries: -1})
	w.mux.HandleFunc("/repos/o/r/thing", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("X-RateLimit-Remaining", "0")
		rw.Header().Set("X-RateLimit-Resource", "search")
		rw.Header().Set("X-RateLimit-Reset", strconv.FormatInt(start.Add(10*time.Second).Unix(), 10))
		rw.WriteHeader(http.StatusForbidden)
		io.WriteString(rw, `{"message":"API rate limit exceeded"}`)
	})
	_, _ = w.send(t, 0, http.MethodGet)
	if d, _ := p.Blocked(context.Background(), 42); d != 0 {
		t.Errorf("blocked %s by search's limit; want 0", d)
	}
}

// TestAWaitOverMaxPaceWaitFailsAtOnce: with MaxPaceWait, a request whose
// booking is further off than that is not sent, books nothing and says
// how long it would have waited, whatever time its context has left.
func TestAWaitOverMaxPaceWaitFailsAtOnce(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(start)
	p := store.NewMemPacer(store.PaceLimits{PerMinute: 1, PerHour: 10}, clock.Now)
	w := newPaceWorld(t, []store.Pacer{p}, clock, Options{MaxPaceWait: 10 * time.Second})
	var n atomic.Int32
	w.mux.HandleFunc("/repos/o/r/thing", okHandler(&n))
	if _, err := w.send(t, 0, http.MethodPost); err != nil {
		t.Fatal(err)
	}
	_, err := w.send(t, 0, http.MethodPost)
	var pe *PaceError
	if !errors.As(err, &pe) || pe.Wait != time.Minute || pe.Left != 10*time.Second {
		t.Fatalf("second send = %v; want a *PaceError for a minute's wait, 10s allowed", err)
	}
	if n.Load() != 1 {
		t.Errorf("the server got %d requests; want 1", n.Load())
	}
	if wait, booked, _ := p.Reserve(context.Background(), 42, time.Hour); !booked || wait != time.Minute {
		t.Errorf("Reserve after the refusal = %v, %v; want the next slot, a minute off: the refused request booked none", wait, booked)
	}
}

package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
	"github.com/google/go-github/v62/github"
)

// bothStores are the stores the pool is tested on.
var bothStores = []struct {
	name string
	open func(t *testing.T, now func() time.Time) *testStore
}{
	{"memory", func(_ *testing.T, now func() time.Time) *testStore { return newTestStore(now) }},
	{"postgres", func(t *testing.T, _ func() time.Time) *testStore { return newPostgresStore(t, pgtest.URL(t)) }},
}

func gh502() error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: 502, Header: http.Header{},
		Request: &http.Request{Method: http.MethodGet}}, Message: "Bad Gateway"}
}

func TestPoolRetriesATransientFailureAndBuriesTheRest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		errs     []error // the handler's answers, one per attempt; nil after
		outcomes []string
		dead     string // the dead delivery's error, "" when it is not dead
	}{
		{"a 502 is retried, then done", []error{gh502(), gh502()}, []string{webhook.Retried, webhook.Retried, store.Done}, ""},
		{"a permanent failure is dead at once", []error{errors.New("config: unknown key foo on line 3")}, []string{store.Dead}, "unknown key foo"},
		{"a 502 then a permanent failure is dead", []error{gh502(), errors.New("validation failed")}, []string{webhook.Retried, store.Dead}, "validation failed"},
	}
	for _, st := range bothStores {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				fs := st.open(t, nil)
				var (
					mu       sync.Mutex
					calls    int
					observed []string
				)
				h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
					mu.Lock()
					defer mu.Unlock()
					calls++
					if calls <= len(tt.errs) {
						return tt.errs[calls-1]
					}
					return nil
				})
				p := startPool(t, fs, h, newManualClock(), webhook.PoolOptions{
					Jitter: func(time.Duration) time.Duration { return 0 },
					Observe: func(_, result string, _ time.Duration) {
						mu.Lock()
						observed = append(observed, result)
						mu.Unlock()
					}})
				add(t, fs, "d-1", "octo/shop#1")
				for {
					p.Wake()
					mu.Lock()
					n := len(observed)
					mu.Unlock()
					if n == len(tt.outcomes) {
						break
					}
					eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(observed) > n }, "outcome %d", n+1)
				}
				mu.Lock()
				got := strings.Join(observed, " ")
				mu.Unlock()
				if want := strings.Join(tt.outcomes, " "); got != want {
					t.Fatalf("outcomes %q; want %q", got, want)
				}
				dead, _, err := fs.Dead(context.Background(), 10)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case tt.dead == "" && len(dead) != 0:
					t.Errorf("dead %+v; want none", dead)
				case tt.dead != "" && (len(dead) != 1 || dead[0].ID != "d-1" || !strings.Contains(dead[0].Error, tt.dead) || dead[0].Attempts != len(tt.outcomes)):
					t.Errorf("dead %+v; want d-1 after %d attempts with %q", dead, len(tt.outcomes), tt.dead)
				}
			})
		}
	}
}

func TestPoolBuriesATransientFailureOnceItsRetryWindowIsOver(t *testing.T) {
	t.Parallel()
	// The store's clock stands still (no lease runs out); the workers'
	// moves on 20 minutes per attempt.
	clock := newManualClock()
	fs := newTestStore(newManualClock().Now)
	h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
		clock.Advance(20 * time.Minute)
		return gh502()
	})
	p := startPool(t, fs, h, clock, webhook.PoolOptions{Jitter: func(time.Duration) time.Duration { return 0 }})
	add(t, fs, "d-1", "")
	for fs.state("d-1") != store.Dead {
		p.Wake()
		eventually(t, func() bool { return fs.count("Retry")+fs.count("Bury") > 0 }, "the first outcome")
		if fs.count("Bury") > 0 {
			break
		}
	}
	if got := settled(t, fs, "d-1"); got != store.Dead || fs.count("Retry") != 1 {
		t.Fatalf("d-1 is %s after %d retries; want dead after 1 (20 min, then 40 min > 30)", got, fs.count("Retry"))
	}
	dead, _, _ := fs.Dead(context.Background(), 1)
	if len(dead) != 1 || !strings.Contains(dead[0].Error, "given up after 2 attempts in 40m0s") {
		t.Errorf("dead %+v; want the window's end named", dead)
	}
}

// A fork's workflow_run is queued under its head sha; once its handler
// finds the pull request, it is queued again under that pull request's
// key, so a /gc abort of the same pull request never runs beside it and
// the round never writes back a state read before the abort.
func TestPoolNeverRunsAForkRoundBesideAnAbortOfItsPullRequest(t *testing.T) {
	t.Parallel()
	for _, st := range bothStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			fs := st.open(t, nil)
			var (
				mu       sync.Mutex
				state    = "round 1 of 3"
				rekeyed  int
				started  = make(chan string, 1) // what the round read
				release  = make(chan struct{})
				abortRan bool
			)
			h := handlerFunc(func(ctx context.Context, id, ev string, payload []byte) error {
				key, _ := delivery.KeyOf(ctx)
				switch id {
				case "run":
					if key != "octo/shop#1" {
						mu.Lock()
						rekeyed++
						mu.Unlock()
						return &delivery.RekeyError{Key: "octo/shop#1"}
					}
					mu.Lock()
					read := state
					mu.Unlock()
					started <- read
					<-release
					mu.Lock()
					defer mu.Unlock()
					if read != "aborted" {
						state = "round 2 of 3" // written back from what it read
					}
				case "abort":
					mu.Lock()
					defer mu.Unlock()
					state, abortRan = "aborted", true
				}
				return nil
			})
			p := startPool(t, fs, h, newManualClock(), webhook.PoolOptions{Workers: 4})
			free := sync.OnceFunc(func() { close(release) })
			t.Cleanup(free) // before the pool's shutdown, also when the test fails
			add(t, fs, "run", "octo/shop@3f1c0a9e")
			add(t, fs, "abort", "octo/shop#1")
			p.Wake()
			read := <-started
			// While the round runs, nothing of its pull request may be
			// claimed, by this pool or anyone.
			if d, ok, err := fs.Claim(context.Background(), "intruder", time.Minute); err != nil || ok {
				t.Fatalf("while the round runs, Claim = %s, %v, %v; want none", d.ID, ok, err)
			}
			mu.Lock()
			ran := abortRan
			mu.Unlock()
			if s := fs.state("abort"); ran != (read == "aborted") || (s != "pending" && s != store.Done) {
				t.Fatalf("the round read %q while the abort is %s (ran %v): they overlap", read, s, ran)
			}
			free()
			settled(t, fs, "run")
			settled(t, fs, "abort")
			mu.Lock()
			defer mu.Unlock()
			if state != "aborted" || rekeyed != 1 {
				t.Errorf("state %q after %d re-keyings; want aborted after 1", state, rekeyed)
			}
		})
	}
}

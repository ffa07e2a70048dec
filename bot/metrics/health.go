package metrics

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Check is one readiness check: nil when the dependency answers.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// Defaults of Ready.
const (
	DefaultReadyTTL     = 5 * time.Second
	DefaultCheckTimeout = 3 * time.Second
)

// Ready serves /readyz: 200 while every check passes, 503 naming the
// failed ones otherwise. A result is kept for TTL, so that probes from
// every load balancer and kubelet cost the store and GitHub one check per
// TTL; one check runs at a time.
type Ready struct {
	Checks  []Check
	TTL     time.Duration // default DefaultReadyTTL
	Timeout time.Duration // per check; default DefaultCheckTimeout
	Now     func() time.Time
	Logger  *slog.Logger

	run    chan struct{} // holds one value while checks run
	once   sync.Once
	mu     sync.Mutex
	at     time.Time
	failed []string
	valid  bool
}

// Healthz serves /healthz: the process is up.
func Healthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusOK, map[string]any{"status": "up"})
	})
}

func (r *Ready) init() {
	r.once.Do(func() {
		r.run = make(chan struct{}, 1)
		if r.TTL <= 0 {
			r.TTL = DefaultReadyTTL
		}
		if r.Timeout <= 0 {
			r.Timeout = DefaultCheckTimeout
		}
		if r.Now == nil {
			r.Now = time.Now
		}
		if r.Logger == nil {
			r.Logger = slog.Default()
		}
	})
}

// Failed runs the checks, or takes the result of the last run within TTL,
// and returns the names of those that failed.
func (r *Ready) Failed(ctx context.Context) ([]string, error) {
	r.init()
	if f, ok := r.cached(); ok {
		return f, nil
	}
	select {
	case r.run <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.run }()
	if f, ok := r.cached(); ok {
		return f, nil
	}
	var failed []string
	for _, c := range r.Checks {
		cctx, cancel := context.WithTimeout(ctx, r.Timeout)
		err := c.Run(cctx)
		cancel()
		if err != nil {
			failed = append(failed, c.Name)
			r.Logger.Warn("not ready", "check", c.Name, "error", err.Error())
		}
	}
	r.mu.Lock()
	r.at, r.failed, r.valid = r.Now(), failed, true
	r.mu.Unlock()
	return failed, nil
}

func (r *Ready) cached() ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.valid || r.Now().Sub(r.at) >= r.TTL || r.Now().Before(r.at) {
		return nil, false
	}
	return r.failed, true
}

// ServeHTTP answers 200 {"status":"ready"} or 503 {"status":"not ready",
// "failed":[names]}; the errors themselves go to the log.
func (r *Ready) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	failed, err := r.Failed(req.Context())
	switch {
	case err != nil:
		writeStatus(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "failed": []string{"timeout"}})
	case len(failed) > 0:
		writeStatus(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "failed": failed})
	default:
		writeStatus(w, http.StatusOK, map[string]any{"status": "ready"})
	}
}

func writeStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Reuse runs check at most once per d while it passes: a success is
// reused for d, a failure is not. For checks that cost a request to
// someone else (GitHub), where probes come every few seconds.
func Reuse(d time.Duration, now func() time.Time, check func(ctx context.Context) error) func(ctx context.Context) error {
	if now == nil {
		now = time.Now
	}
	var mu sync.Mutex
	var ok time.Time // when check last passed
	return func(ctx context.Context) error {
		mu.Lock()
		last := ok
		mu.Unlock()
		if t := now(); !last.IsZero() && !t.Before(last) && t.Sub(last) < d {
			return nil
		}
		if err := check(ctx); err != nil {
			return err
		}
		mu.Lock()
		ok = now()
		mu.Unlock()
		return nil
	}
}

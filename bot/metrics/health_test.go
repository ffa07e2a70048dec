package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	Healthz().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != 200 || rec.Body.String() != "{\"status\":\"up\"}\n" {
		t.Errorf("/healthz = %d %q", rec.Code, rec.Body)
	}
}

func TestReady(t *testing.T) {
	t.Parallel()
	down := errors.New("connection refused")
	tests := []struct {
		name       string
		store, gh  error
		wantStatus int
		wantFailed []string
	}{
		{"every check passes", nil, nil, 200, nil},
		{"the store is down", down, nil, 503, []string{"store"}},
		{"GitHub refuses the App", nil, down, 503, []string{"github"}},
		{"both are down", down, down, 503, []string{"store", "github"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Ready{Logger: quiet(), Checks: []Check{
				{"store", func(context.Context) error { return tt.store }},
				{"github", func(context.Context) error { return tt.gh }},
			}}
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
			var body struct {
				Status string   `json:"status"`
				Failed []string `json:"failed"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tt.wantStatus || len(body.Failed) != len(tt.wantFailed) {
				t.Fatalf("/readyz = %d %+v, want %d failing %v", rec.Code, body, tt.wantStatus, tt.wantFailed)
			}
			for i := range tt.wantFailed {
				if body.Failed[i] != tt.wantFailed[i] {
					t.Errorf("failed = %v, want %v", body.Failed, tt.wantFailed)
				}
			}
		})
	}
}

func TestReadyKeepsItsResultBriefly(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	var runs atomic.Int32
	var fail atomic.Bool
	r := &Ready{TTL: 5 * time.Second, Logger: quiet(), Now: func() time.Time { return time.Unix(now.Load(), 0) },
		Checks: []Check{{"store", func(context.Context) error {
			runs.Add(1)
			time.Sleep(time.Millisecond)
			if fail.Load() {
				return errors.New("down")
			}
			return nil
		}}}}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f, err := r.Failed(context.Background()); err != nil || len(f) != 0 {
				t.Errorf("Failed = %v, %v", f, err)
			}
		}()
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("10 concurrent probes ran the checks %d times, want 1", n)
	}
	fail.Store(true)
	now.Add(4)
	if f, _ := r.Failed(context.Background()); len(f) != 0 || runs.Load() != 1 {
		t.Errorf("within the TTL: failed %v after %d runs, want the kept result", f, runs.Load())
	}
	now.Add(2)
	if f, _ := r.Failed(context.Background()); len(f) != 1 || runs.Load() != 2 {
		t.Errorf("after the TTL: failed %v after %d runs, want a fresh failing run", f, runs.Load())
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestReuseKeepsOnlySuccesses(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	var runs atomic.Int32
	var fail atomic.Bool
	check := Reuse(time.Minute, func() time.Time { return time.Unix(now.Load(), 0) }, func(context.Context) error {
		runs.Add(1)
		if fail.Load() {
			return errors.New("refused")
		}
		return nil
	})
	steps := []struct {
		advance  int64
		fail     bool
		wantErr  bool
		wantRuns int32
	}{
		{0, false, false, 1}, // first: runs
		{30, true, false, 1}, // within the minute: the success is reused
		{31, true, true, 2},  // past it: runs, fails
		{1, true, true, 3},   // a failure is not reused
		{1, false, false, 4}, // passes again
		{10, true, false, 4}, // reused
	}
	for i, s := range steps {
		now.Add(s.advance)
		fail.Store(s.fail)
		err := check(context.Background())
		if (err != nil) != s.wantErr || runs.Load() != s.wantRuns {
			t.Errorf("step %d: err %v, runs %d; want error %t, %d runs", i, err, runs.Load(), s.wantErr, s.wantRuns)
		}
	}
}

package ghclient

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTransportSkipsABackoffPastTheDeadline checks that a retry whose
// backoff would end after the request's deadline is not waited for: the
// request fails at once with what it got, not with the deadline.
func TestTransportSkipsABackoffPastTheDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handler   func(w http.ResponseWriter, r *http.Request)
		wantKind  Kind
		wantCalls int32
	}{
		{"a 503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, KindServer, 4},
		{"a dropped connection", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, KindNetwork, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Full jitter (Rand 1): backoffs 1s, 2s, 4s, 8s; the 8s one
			// would end past the 5s deadline.
			client, mux, s := setup(t, Options{Rand: func() float64 { return 1 }})
			var calls atomic.Int32
			mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				tt.handler(w, r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, _ := client.NewRequest("GET", "x", nil)
			_, err := client.Do(ctx, req, nil)
			if got := Classify(err); got != tt.wantKind || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v (%s), want %s and not the deadline", err, got, tt.wantKind)
			}
			if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, s.got()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

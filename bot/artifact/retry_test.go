package artifact

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-cmp/cmp"
)

// TestDownloadRetriesDoNotMultiply checks that the fresh-URL retry of
// Download and the retries of the GitHub client's transport never nest: a
// failing API call is retried by the transport alone (Download does not ask
// again), and a failing blob is retried once with a fresh URL, with no wait
// (the plain client has no retry layer).
func TestDownloadRetriesDoNotMultiply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		apiFails, blobFails   bool
		wantAPICalls, wantHit int32
		wantSleeps            []time.Duration
	}{
		{name: "an API call that keeps failing is retried by the transport only",
			apiFails: true, wantAPICalls: 5,
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "a blob that keeps failing costs one fresh URL and no wait",
			blobFails: true, wantAPICalls: 2, wantHit: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			blob := newBlob(t, func(_ int32, w http.ResponseWriter, r *http.Request) {
				if tt.blobFails {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.Write([]byte("data"))
			})
			var apiCalls atomic.Int32
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				apiCalls.Add(1)
				if tt.apiFails {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				http.Redirect(w, r, blob.URL+"/blob?sig=abc", http.StatusFound)
			}))
			t.Cleanup(api.Close)
			var mu sync.Mutex
			var sleeps []time.Duration
			client, err := ghclient.New(ghclient.Options{Token: "tok", BaseURL: api.URL, Rand: func() float64 { return 0 },
				Sleep: func(_ context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					sleeps = append(sleeps, d)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := downloadBytes(client.Actions, "o", "r", 1, blob.Client(), Limits{}); err == nil {
				t.Fatal("Download succeeded, want the failure")
			}
			if apiCalls.Load() != tt.wantAPICalls || blob.hits.Load() != tt.wantHit {
				t.Errorf("%d API calls and %d blob requests, want %d and %d", apiCalls.Load(), blob.hits.Load(), tt.wantAPICalls, tt.wantHit)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.wantSleeps, sleeps); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

package artifact

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
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
		wantAPICalls, wantHit int
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
			s, _, run := fakeGitHub(t)
			id := s.AddArtifact("o", "r", run, "review", []byte("data"))
			if tt.apiFails {
				// No Retry-After: the transport's own backoff.
				s.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}", Status: http.StatusBadGateway, RetryAfter: -1})
			}
			if tt.blobFails {
				s.Fail(ghfake.FailRule{Pattern: "GET /artifacts/{id}", Status: http.StatusServiceUnavailable})
			}
			var mu sync.Mutex
			var sleeps []time.Duration
			client, err := ghclient.New(ghclient.Options{Token: apiToken, BaseURL: s.URL(), Rand: func() float64 { return 0 },
				Sleep: func(_ context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					sleeps = append(sleeps, d)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := downloadBytes(client.Actions, "o", "r", id, &http.Client{}, Limits{}); err == nil {
				t.Fatal("Download succeeded, want the failure")
			}
			if api, blob := downloads(t, s), blobHits(t, s); api != tt.wantAPICalls || blob != tt.wantHit {
				t.Errorf("%d API calls and %d blob requests, want %d and %d", api, blob, tt.wantAPICalls, tt.wantHit)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.wantSleeps, sleeps); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

package ghclient

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMutationsArePacedOnlyAfterASecondaryLimit sends requests one after
// another on one client, whose clock stands still, and records every wait:
// a retry's wait for a rate limit and the pause before a mutation alike.
func TestMutationsArePacedOnlyAfterASecondaryLimit(t *testing.T) {
	t.Parallel()
	ok := reply{status: 200, body: `{"id":1}`}
	reset := strconv.FormatInt(now.Add(4*time.Second).Unix(), 10)
	secondary403 := reply{status: 403, headers: map[string]string{"Retry-After": "2"}, body: secondaryBody()}
	tests := []struct {
		name       string
		pause      time.Duration
		methods    []string // one request each, in order
		replies    []reply  // the server's answers in order; then ok
		wantSleeps []time.Duration
	}{
		{name: "mutations go without a pause while GitHub shows no sign of a secondary limit",
			pause: time.Second, methods: []string{"POST", "PATCH", "POST", "DELETE", "PUT"}},
		{name: "after a 403 secondary limit its Retry-After is honoured, then every mutation waits a second",
			pause: time.Second, methods: []string{"POST", "POST", "PATCH", "POST"}, replies: []reply{ok, secondary403},
			wantSleeps: []time.Duration{2 * time.Second, time.Second, time.Second}},
		{name: "a 429 with no header is a secondary limit: a minute's wait, then pacing",
			pause: time.Second, methods: []string{"POST", "POST"}, replies: []reply{{status: 429, body: `{}`}},
			wantSleeps: []time.Duration{time.Minute, time.Second}},
		{name: "a 403 that only says secondary rate limit in its body starts the pacing",
			pause: time.Second, methods: []string{"PATCH", "PATCH", "PATCH"}, replies: []reply{ok, {status: 403, body: secondaryBody()}},
			wantSleeps: []time.Duration{time.Minute, time.Second}},
		{name: "a secondary limit on a read paces the mutations after it",
			pause: time.Second, methods: []string{"GET", "POST", "POST"}, replies: []reply{{status: 429, headers: map[string]string{"Retry-After": "1"}}},
			wantSleeps: []time.Duration{time.Second, time.Second}},
		{name: "a primary limit (remaining 0) is waited out but does not pace mutations",
			pause: time.Second, methods: []string{"POST", "POST", "POST"},
			replies:    []reply{{status: 403, headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, body: `{"message":"API rate limit exceeded"}`}},
			wantSleeps: []time.Duration{5 * time.Second}},
		{name: "a 403 that is not a rate limit does not pace mutations",
			pause: time.Second, methods: []string{"POST", "POST", "POST"},
			replies: []reply{{status: 403, body: `{"message":"Resource not accessible by integration"}`}}},
		{name: "a negative pause never pauses, even after a secondary limit",
			pause: -1, methods: []string{"POST", "POST", "POST"}, replies: []reply{ok, secondary403},
			wantSleeps: []time.Duration{2 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux, s := setup(t, Options{MutationPause: tc.pause})
			var calls atomic.Int32
			mux.HandleFunc("/repos/o/r/thing", func(w http.ResponseWriter, r *http.Request) {
				rep := ok
				if n := int(calls.Add(1)); n <= len(tc.replies) {
					rep = tc.replies[n-1]
				}
				for k, v := range rep.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(rep.status)
				io.WriteString(w, rep.body)
			})
			for _, m := range tc.methods {
				var body any
				if m != "GET" {
					body = map[string]string{"body": "x"}
				}
				req, err := client.NewRequest(m, "repos/o/r/thing", body)
				if err != nil {
					t.Fatal(err)
				}
				// A refusal that is not a rate limit is an answer like any
				// other here; only the waits matter.
				_, _ = client.Do(context.Background(), req, nil)
			}
			if diff := cmp.Diff(tc.wantSleeps, s.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

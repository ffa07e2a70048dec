package webhook

import (
	"encoding/json"
	"os"
	"testing"
)

// The deliveries of check runs, check suites and merge groups are routed
// as GitHub's payloads name them: a button or a re-run under its pull
// request's lock, a fork's (no pull request in the payload) and a merge
// group on their commit.
func TestRouteOfChecksAndMergeGroups(t *testing.T) {
	t.Parallel()
	const head, group = "3f1c0a9e5b7d2c4e6a8b0d1f3e5c7a9b1d3f5e7a", "c0ffee0c0ffee0c0ffee0c0ffee0c0ffee0c0ffe"
	tests := []struct {
		event, file string
		fork        bool // the payload's pull_requests emptied
		want        route
	}{
		{"check_run", "check_run.requested_action.json", false, route{Key: "octo/shop#1", Repo: "octo/shop", PR: 1, Installation: 42}},
		{"check_run", "check_run.requested_action.json", true, route{Key: "octo/shop@" + head, Repo: "octo/shop", Installation: 42}},
		{"check_suite", "check_suite.rerequested.json", false, route{Key: "octo/shop#1", Repo: "octo/shop", PR: 1, Installation: 42}},
		{"check_suite", "check_suite.rerequested.json", true, route{Key: "octo/shop@" + head, Repo: "octo/shop", Installation: 42}},
		{"merge_group", "merge_group.checks_requested.json", false, route{Key: "octo/shop@" + group, Repo: "octo/shop", Installation: 42}},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if tt.fork {
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			m[tt.event].(map[string]any)["pull_requests"] = []any{}
			if body, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		got, err := routeOf(tt.event, body)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if got != tt.want {
			t.Errorf("%s (fork %v): route %+v, want %+v", tt.file, tt.fork, got, tt.want)
		}
	}
}

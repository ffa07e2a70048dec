package feed

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/event"
)

// historyLog is o/r#7 with two loops, events of another pull request and
// another repository around them: review's round 1 decided with the
// critic run's times, round 2 decided twice (a re-run: the second stands)
// from events without times; coverage's round 1 decided, then a round that
// started and failed.
func historyLog() *memLog {
	l := newMemLog()
	runStart := time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)
	runEnd := runStart.Add(7*time.Minute + 30*time.Second)
	counts := map[string]int{"critical": 0, "high": 2, "medium": 1, "low": 0}
	l.add(event.Delivery, "o/r", 7, "", map[string]any{"delivery": "d1"})                   // 1
	l.add(event.Round, "o/r", 7, "review", map[string]any{"run": 100, "sha": "aaa"})        // 2
	l.add(event.Round, "o/r", 8, "review", map[string]any{"run": 101, "sha": "zzz"})        // 3: another PR
	l.add(event.Decision, "o/r", 7, "review", map[string]any{"round": 1, "decision": "fix", // 4
		"verdict": "FIX", "status": "complete", "sha": "aaa", "run": 100, "run_attempt": 1, "counts": counts,
		"actor": "dev", "started": runStart, "ended": runEnd})
	l.add(event.Round, "o/r", 7, "review", map[string]any{"run": 90, "sha": "old", "ignored": "stale"})                              // 5
	l.add(event.Round, "o/r", 7, "review", map[string]any{"run": 102, "sha": "bbb"})                                                 // 6
	l.add(event.Decision, "o/r", 7, "review", map[string]any{"round": 2, "decision": "fix", "verdict": "FIX", "status": "complete"}) // 7
	l.add(event.Round, "o/r", 7, "review", map[string]any{"run": 102, "sha": "bbb"})                                                 // 8: a re-run
	l.add(event.Decision, "o/r", 7, "review", map[string]any{"round": 2, "decision": "converge", "verdict": "CONVERGE",              // 9
		"status": "complete", "sha": "bbb", "run": 102, "run_attempt": 2, "movement": map[string]any{"previous": 1, "fixed": 2, "persisting": 1, "since": 1}})
	l.add(event.Round, "o/other", 7, "review", map[string]any{"run": 103, "sha": "ccc"})                           // 10: another repo
	l.add(event.Round, "o/r", 7, "coverage", map[string]any{"run": 104, "sha": "bbb"})                             // 11
	l.add(event.Decision, "o/r", 7, "coverage", map[string]any{"round": 1, "decision": "fix", "verdict": "retry"}) // 12
	l.add(event.Round, "o/r", 7, "coverage", map[string]any{"run": 105, "sha": "ccc"})                             // 13
	l.add(event.Error, "o/r", 7, "coverage", map[string]any{"error": "artifact over budget"})                      // 14
	l.add(event.Command, "o/r", 7, "review", map[string]any{"verb": "status"})                                     // 15
	return l
}

func TestAPILoopHistory(t *testing.T) {
	t.Parallel()
	l := historyLog()
	_, srv := testHub(t, l, Options{FilterFor: func(r *http.Request) func(context.Context, string) bool {
		if r.URL.Query().Get("who") == "" {
			return nil
		}
		return func(_ context.Context, repo string) bool { return repo == "o/other" }
	}})
	at := func(id int64) *time.Time { t := base.Add(time.Duration(id) * time.Second); return &t }
	ptr := func(t time.Time) *time.Time { return &t }
	secs := func(s float64) *float64 { return &s }
	runStart := time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)
	want := History{Repo: "o/r", PR: 7, Loops: []LoopHistory{
		{Loop: "coverage", Rounds: []RoundRow{
			{Round: 1, Run: 104, State: StateDecided, Decision: "fix", Verdict: "retry", Started: at(11), Ended: at(12), Duration: secs(1), Decided: at(12), Event: 12},
		}, Current: &RoundRow{SHA: "ccc", Run: 105, State: StateFailed, Started: at(13), Error: "artifact over budget", Event: 14}},
		{Loop: "review", Rounds: []RoundRow{
			{Round: 1, SHA: "aaa", Run: 100, RunAttempt: 1, State: StateDecided, Decision: "fix", Verdict: "FIX", Status: "complete",
				Counts: &Counts{High: 2, Medium: 1}, Actor: "dev", Started: ptr(runStart), Ended: ptr(runStart.Add(450 * time.Second)),
				Duration: secs(450), Decided: at(4), Event: 4},
			{Round: 2, SHA: "bbb", Run: 102, RunAttempt: 2, State: StateDecided, Decision: "converge", Verdict: "CONVERGE", Status: "complete",
				Movement: &Movement{Previous: 1, Fixed: 2, Persisting: 1, Since: 1}, Started: at(8), Ended: at(9), Duration: secs(1), Decided: at(9), Event: 9},
		}},
	}}
	var got History
	if code := getJSON(t, srv.URL+"/api/loops/o/r/7", &got); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}

	tests := []struct {
		name, path string
		code       int
	}{
		{"the repository's name in another case", "/api/loops/O/R/7", http.StatusOK},
		{"a viewer who may not read the repository", "/api/loops/o/r/7?who=x", http.StatusNotFound},
		{"a viewer who may read it", "/api/loops/o/other/7?who=x", http.StatusOK},
		{"a pull request without a loop event", "/api/loops/o/r/9", http.StatusNotFound},
		{"a repository without events", "/api/loops/o/none/7", http.StatusNotFound},
		{"a pull request that is no number", "/api/loops/o/r/seven", http.StatusBadRequest},
		{"pull request 0", "/api/loops/o/r/0", http.StatusBadRequest},
		{"a number with a leading zero", "/api/loops/o/r/07", http.StatusBadRequest},
		{"a number past int", "/api/loops/o/r/99999999999999999999", http.StatusBadRequest},
		{"an owner that is no login", "/api/loops/o%20x/r/7", http.StatusBadRequest},
		{"a bad query", "/api/loops/o/r/7?since=x", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.code {
				t.Errorf("GET %s: %d, want %d", tt.path, resp.StatusCode, tt.code)
			}
		})
	}
	resp, err := http.Post(srv.URL+"/api/loops/o/r/7", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

func TestAPILoopHistoryStoreDown(t *testing.T) {
	t.Parallel()
	l := historyLog()
	_, srv := testHub(t, l, Options{})
	l.mu.Lock()
	l.sinceErr = context.DeadlineExceeded
	l.mu.Unlock()
	var h History
	if code := getJSON(t, srv.URL+"/api/loops/o/r/7", &h); code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", code)
	}
}

// FuzzLoopHistory: any events of a pull request fold into loops without a
// panic; rounds stay in increasing order and their free text capped.
func FuzzLoopHistory(f *testing.F) {
	f.Add("decision", `{"round":2,"decision":"fix","started":"2026-01-01T00:00:00Z","ended":"2025-01-01T00:00:00Z"}`, "decision", `{"round":1}`)
	f.Add("round", `{"run":"x"}`, "error", `{"error":null}`)
	f.Add("decision", `{"round":-4}`, "decision", `[`)
	f.Fuzz(func(t *testing.T, typ1, data1, typ2, data2 string) {
		fo := newHistoryFolder()
		fo.add(event.Event{ID: 1, Type: event.Round, Repo: "o/r", PR: 1, Loop: "l", Data: json.RawMessage(`{"run":1}`)})
		fo.add(event.Event{ID: 2, Type: typ1, Repo: "o/r", PR: 1, Loop: "l", Data: json.RawMessage(data1)})
		fo.add(event.Event{ID: 3, Type: typ2, Repo: "o/r", PR: 1, Loop: "l", Data: json.RawMessage(data2)})
		for _, lh := range fo.loops() {
			prev := 0
			for _, r := range lh.Rounds {
				if r.Round <= prev {
					t.Fatalf("round %d after %d", r.Round, prev)
				}
				prev = r.Round
				if r.Duration != nil && *r.Duration < 0 {
					t.Fatalf("negative duration %v", *r.Duration)
				}
				for _, s := range []string{r.SHA, r.Decision, r.Verdict, r.Status, r.Actor, r.Error} {
					if len(s) > maxText+len("…") {
						t.Fatalf("text of %d bytes", len(s))
					}
				}
			}
		}
	})
}

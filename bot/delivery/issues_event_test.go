package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
)

// The feed's issue event of a round names the fix issues it closed and
// reopened, beside those it keeps open: a finding fixed in round 2 closes
// its issue while the loop goes on, and the same finding back in round 3
// reopens it.
func TestIssueEventsNameClosedAndReopenedIssues(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  max_rounds: 5\n  bot:\n    artifacts: [review-results]\n")
	const (
		both = `{"review_score": 4, "gc_signal": "REVISION_NEEDED", "findings": [` +
			`{"severity": "high", "file": "cart.go", "line": 3, "description": "total is wrong"},` +
			`{"severity": "high", "file": "pay.go", "line": 9, "description": "card logged"}]}`
		cartOnly = `{"review_score": 5, "gc_signal": "REVISION_NEEDED", "findings": [` +
			`{"severity": "high", "file": "cart.go", "line": 4, "description": "total is wrong"}]}`
	)
	rounds := []struct {
		review string
		want   map[string]int // key → how many issues it names
	}{
		{both, map[string]int{"issues": 2}},
		{cartOnly, map[string]int{"issues": 1, "closed": 1}},
		{both, map[string]int{"issues": 2, "reopened": 1}},
	}
	for i, r := range rounds {
		if i > 0 {
			w.head = w.gh.AddCommit(owner, repo, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte(fmt.Sprintf("package cart // round %d\n", i+1))}, w.head)
			w.gh.MovePullHead(owner, repo, w.pr, w.head)
		}
		from := len(w.log.types())
		if err := w.h.Handle(context.Background(), fmt.Sprintf("d-%d", i+1), "workflow_run", w.workflowRunWith(t, []byte(r.review))); err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
		data := w.issueEvent(t, from)
		got := map[string]int{}
		for k, v := range data {
			got[k] = len(v)
		}
		if !maps.Equal(got, r.want) {
			t.Errorf("round %d: issue event %v, want keys with counts %v", i+1, data, r.want)
		}
		if pay := w.issueAbout(t, "pay.go"); i > 0 && !slices.Contains(data["closed"], pay) && !slices.Contains(data["reopened"], pay) {
			t.Errorf("round %d: issue event %v does not name pay.go's issue #%d", i+1, data, pay)
		}
	}
}

// issueEvent is the data of the issue event logged after index from.
func (w *world) issueEvent(t *testing.T, from int) map[string][]int {
	t.Helper()
	w.log.mu.Lock()
	events := slices.Clone(w.log.events[from:])
	w.log.mu.Unlock()
	for _, e := range events {
		if e.Type == event.Issue {
			var data map[string][]int
			if err := json.Unmarshal(e.Data, &data); err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	t.Fatalf("no issue event after %d: %v", from, w.log.types())
	return nil
}

// issueAbout is the number of the fix issue about file.
func (w *world) issueAbout(t *testing.T, file string) int {
	t.Helper()
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && strings.HasPrefix(is.Title, "gcloop: fix "+file+" ") {
			return is.Number
		}
	}
	t.Fatalf("no fix issue about %s", file)
	return 0
}

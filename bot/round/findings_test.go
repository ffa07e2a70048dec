package round_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

// reviewOf is review evidence with these findings and a failing score.
func reviewOf(fs ...decide.Finding) *decide.Evidence {
	score := 4.0
	return &decide.Evidence{Review: &decide.ReviewFacts{Score: &score, Signal: decide.SignalRevisionNeeded},
		Findings: fs, Sources: []string{"review-results.json"}}
}

// push moves the world's PR to a new head commit: the next run judges a
// new round.
func (w *world) push() {
	w.head = w.gh.AddCommit(owner, repo, "feature/cart", w.gh.TreeFiles(owner, repo, w.head), w.head)
	w.gh.MovePullHead(owner, repo, w.pr, w.head)
}

// lastComment is the newest comment on issue n.
func (w *world) lastComment(t *testing.T, n int) string {
	t.Helper()
	cs := w.gh.Comments(owner, repo, n)
	if len(cs) == 0 {
		return ""
	}
	return cs[len(cs)-1].Body
}

// TestFindingsAcrossRounds runs a review loop over four heads of one pull
// request against the fake GitHub: a finding fixed in round 2 closes its
// issue in round 2 while the loop goes on, a finding on a moved line stays
// the same finding (its issue stays open, "persisting since round 1"), a
// finding that comes back in round 3 reopens its issue, and an escalation
// in round 4 closes the issue it fixed. Every re-run of a round mutates
// nothing.
func TestFindingsAcrossRounds(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	maxRounds, stall := 4, 0 // no stall: the same score round after round
	o := round.Options{Comment: true, Check: true, Overrides: config.Overrides{MaxRounds: &maxRounds, Stall: &stall}}
	deref := func(line int) decide.Finding {
		return decide.Finding{Severity: decide.High, File: "cart.go", Line: line, Rule: "nil-deref", Message: "nil map written"}
	}
	leak := decide.Finding{Severity: decide.Critical, File: "store.go", Line: 5, Message: "connection leaked on error"}
	const (
		list     = "GET /repos/octo/shop/issues"
		config   = "GET /repos/octo/shop/contents/.github/gcloop.yml"
		comments = "GET /repos/octo/shop/issues/1/comments"
		check    = "POST /repos/octo/shop/check-runs"
	)
	var reportID int64
	steps := []struct {
		name     string
		push     bool
		findings []decide.Finding
		outcome  decide.Outcome
		movement string // the report's movement line; "" in round 1
		requests []string
		open     []int // open fix issues after the round
		comments map[int]string
	}{
		{name: "round 1 opens an issue per file", findings: []decide.Finding{deref(10), leak}, outcome: decide.Fix,
			open: []int{2, 3}},
		{name: "round 2 fixed the leak and moved the nil deref: the leak's issue is closed, the loop goes on", push: true,
			findings: []decide.Finding{deref(14)}, outcome: decide.Fix,
			movement: "**Since round 1:** 1 fixed, 1 still open since round 1.",
			requests: []string{config, comments, list, "PATCH /repos/octo/shop/issues/3", "POST /repos/octo/shop/issues/2/comments",
				"PATCH /repos/octo/shop/issues/2", check, "GET /repos/octo/shop/issues/comments/REPORT", "PATCH /repos/octo/shop/issues/comments/REPORT"},
			open:     []int{3},
			comments: map[int]string{2: "Fixed in round 2: the review loop `review` on #1 no longer reports the findings of this issue. The loop goes on; this issue is reopened if one of them comes back."}},
		{name: "round 3 brings the leak back: its issue is reopened", push: true,
			findings: []decide.Finding{deref(14), leak}, outcome: decide.Fix,
			movement: "**Since round 2:** 1 new, 1 still open since round 1.",
			requests: []string{config, comments, list, "GET /repos/octo/shop/issues/2", "PATCH /repos/octo/shop/issues/2",
				"POST /repos/octo/shop/issues/2/comments", "PATCH /repos/octo/shop/issues/3", check, "GET /repos/octo/shop/issues/comments/REPORT", "PATCH /repos/octo/shop/issues/comments/REPORT"},
			open:     []int{2, 3},
			comments: map[int]string{2: "Reopened in round 3: the review loop `review` on #1 reports 1 finding of this issue again."}},
		{name: "round 4 escalates at the cap having fixed the nil deref: that issue is closed, the leak's stays open", push: true,
			findings: []decide.Finding{leak}, outcome: decide.Escalate,
			movement: "**Since round 3:** 1 fixed, 1 still open since round 3.",
			requests: []string{config, comments, list, "POST /repos/octo/shop/issues/3/comments", "PATCH /repos/octo/shop/issues/3",
				check, "GET /repos/octo/shop/issues/comments/REPORT", "PATCH /repos/octo/shop/issues/comments/REPORT"},
			open:     []int{2},
			comments: map[int]string{3: "Fixed in round 4: the review loop `review` on #1 no longer reports the findings of this issue. It is reopened if one of them comes back."}},
	}
	for i, st := range steps {
		if st.push {
			w.push()
		}
		runID := int64(10 + i)
		res, reqs := w.run(t, reviewOf(st.findings...), o, runID)
		if got := res.Decision.Outcome; got != st.outcome {
			t.Fatalf("%s: outcome %s, want %s", st.name, got, st.outcome)
		}
		if i == 0 {
			reportID = w.gh.Comments(owner, repo, w.pr)[0].ID
		}
		for k, r := range reqs {
			reqs[k] = strings.Replace(r, fmt.Sprintf("comments/%d", reportID), "comments/REPORT", 1)
		}
		if st.requests != nil {
			if diff := cmp.Diff(st.requests, reqs); diff != "" {
				t.Errorf("%s: requests (-want +got):\n%s", st.name, diff)
			}
		}
		var open []int
		for _, is := range w.gh.Issues(owner, repo) {
			if !is.IsPull && is.State == "open" {
				open = append(open, is.Number)
			}
		}
		if diff := cmp.Diff(st.open, open); diff != "" {
			t.Errorf("%s: open issues (-want +got):\n%s", st.name, diff)
		}
		for n, want := range st.comments {
			if got := w.lastComment(t, n); got != want {
				t.Errorf("%s: last comment on #%d %q, want %q", st.name, n, got, want)
			}
		}
		body := w.gh.Comments(owner, repo, w.pr)[0].Body
		lines := strings.Split(body, "\n")
		hasMovement := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "**Since round") })
		if st.movement == "" && hasMovement || st.movement != "" && !slices.Contains(lines, st.movement) {
			t.Errorf("%s: report lacks the movement line %q:\n%s", st.name, st.movement, body)
		}
		// The same run again: no mutation, and no request beyond reading
		// the configuration, the report and the open issues.
		_, again := w.run(t, reviewOf(st.findings...), o, runID)
		if n := mutations(again); n != 0 || len(again) > 3 {
			t.Errorf("%s: re-run made %d requests, %d mutations: %q", st.name, len(again), n, again)
		}
	}
	// Issue #3 was never duplicated: the moved line stayed its finding,
	// whose status the report showed as persisting.
	if n := len(w.gh.Issues(owner, repo)); n != 3 {
		t.Errorf("%d issues and PRs, want the PR and 2 fix issues", n)
	}
	st, err := report.ParseMarker(w.gh.Comments(owner, repo, w.pr)[0].Body, "review")
	if err != nil {
		t.Fatal(err)
	}
	var ms []decide.Movement
	for _, r := range st.Rounds {
		if r.Movement != nil {
			ms = append(ms, *r.Movement)
		}
	}
	want := []decide.Movement{{New: 2}, {Previous: 1, Fixed: 1, Persisting: 1, Since: 1}, {Previous: 2, New: 1, Persisting: 1, Since: 1}, {Previous: 3, Fixed: 1, Persisting: 1, Since: 3}}
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("movements in the state (-want +got):\n%s", diff)
	}
	// The reopening request opened the issue, as GitHub's API takes it.
	for _, r := range w.gh.Requests() {
		if r.Method == "PATCH" && r.Path == "/repos/octo/shop/issues/2" && strings.Contains(string(r.Body), `"state":"open"`) {
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil || body["state"] != "open" || r.Status != 200 {
				t.Errorf("reopen request %s answered %d", r.Body, r.Status)
			}
			return
		}
	}
	t.Error("no request reopened issue #2")
}

package action_test

import (
	"strings"
	"testing"
)

// The round's check run sits on the judged commit with the conclusion of
// the decision, its findings annotated; a re-run that changes nothing
// writes nothing (at most two requests); a new head gets its own check.
func TestCheckRunGatesTheJudgedCommit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "issues": "false"}
	r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}})
	if r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	runs := w.gh.CheckRuns(owner, repo)
	if len(runs) != 1 {
		t.Fatalf("%d check runs, want 1", len(runs))
	}
	c := runs[0]
	if c.Name != "gcloop / review" || c.HeadSHA != w.head || c.Conclusion != "action_required" || c.DetailsURL != "https://github.com/octo/shop/actions/runs/5000" {
		t.Errorf("check run %+v, want gcloop / review on %s, action_required, linked to the run", c, w.head)
	}
	mustContain(t, "the check title", c.Title, "FIX", "round 1 of 3")
	mustContain(t, "the check summary", c.Summary, "cart.go")
	if len(c.Annotations) != 3 || c.Annotations[0].Level != "failure" || c.Annotations[0].Path != "pay.go" {
		t.Errorf("annotations %+v, want the three findings with a line, critical first", c.Annotations)
	}

	// A re-run of the same run: nothing changed, nothing is written.
	from := len(w.gh.Requests())
	r = w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, attempt: 2})
	if r.code != 0 {
		t.Fatalf("re-run: exit %d\n%s", r.code, r.stderr)
	}
	var api []string
	for _, q := range w.requestsSince(from) {
		if !strings.Contains(q, "/contents/") { // the config read from the base branch
			api = append(api, q)
		}
	}
	if len(api) > 2 || len(w.mutations(from)) != 0 {
		t.Errorf("an unchanged re-run made %q (mutations %q), want ≤ 2 requests and none that writes", api, w.mutations(from))
	}

	// The next head converges: a check run of its own, success.
	w.push(map[string]string{"cart.go": "package cart // fixed\n"})
	r = w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewOK}, runID: 5001})
	runs = w.gh.CheckRuns(owner, repo)
	if r.code != 0 || len(runs) != 2 || runs[1].HeadSHA != w.head || runs[1].Conclusion != "success" || runs[0].Conclusion != "action_required" {
		t.Errorf("after the next head: exit %d, runs %+v", r.code, runs)
	}
}

// Without checks: write (or with a personal token) the same gate is a
// commit status, and the report says why.
func TestCheckFallsBackToACommitStatus(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.Forbid(bot, "checks")
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "issues": "false"},
		files: map[string]string{"r.json": reviewFix}})
	if r.code != 0 || r.outputs["decision"] != "escalate" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	st := w.gh.Statuses(owner, repo)
	if len(st) != 1 || st[0].Context != "gcloop / review" || st[0].State != "failure" || st[0].SHA != w.head {
		t.Fatalf("statuses %+v, want one failure status gcloop / review on the head", st)
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "commit status", "checks: write")
}

// check: false writes neither.
func TestCheckInputOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json", "check": "false"}, files: map[string]string{"r.json": reviewOK}})
	if r.code != 0 || len(w.gh.CheckRuns(owner, repo)) != 0 || len(w.gh.Statuses(owner, repo)) != 0 {
		t.Errorf("exit %d, %d check runs, %d statuses; want none", r.code, len(w.gh.CheckRuns(owner, repo)), len(w.gh.Statuses(owner, repo)))
	}
}

// /gc approve turns the escalated round's check run into success, so that
// branch protection follows the maintainer; /gc abort leaves it failed.
func TestApproveSettlesTheCheckRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.SetPermission(owner, repo, "lead", "maintain")
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "issues": "false"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}}); r.outputs["decision"] != "escalate" {
		t.Fatalf("setup: outputs %v\n%s", r.outputs, r.stderr)
	}
	id := w.gh.AddComment(owner, repo, w.pr, "lead", "/gc approve")
	if r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "lead", "/gc approve"), inputs: in}); r.code != 0 {
		t.Fatalf("approve: exit %d\n%s", r.code, r.stderr)
	}
	runs := w.gh.CheckRuns(owner, repo)
	if len(runs) != 1 || runs[0].Conclusion != "success" || runs[0].HeadSHA != w.head || runs[0].Updates != 1 {
		t.Fatalf("check runs %+v, want the round's one run updated to success", runs)
	}
	mustContain(t, "the check title", runs[0].Title, "approved by lead")
}

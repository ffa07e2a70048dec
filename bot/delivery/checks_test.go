package delivery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

const (
	reviewOK  = `{"review_score": 9, "gc_signal": "CONVERGED", "findings": []}`
	reviewFix = `{"review_score": 5, "gc_signal": "REVISION_NEEDED", "findings": [{"severity": "high", "file": "cart.go", "line": 1, "description": "total is wrong"}]}`
)

// appJSON is gcloop's App as a check event names it (the handler's login
// is "<slug>[bot]").
var appJSON = map[string]any{"id": 5150, "slug": strings.TrimSuffix(bot, "[bot]"), "name": "gcloop", "owner": map[string]any{"login": owner}}

// pullOn opens a pull request on branch with one commit.
func (w *world) pullOn(t *testing.T, branch string) (int, string) {
	t.Helper()
	head := w.gh.AddCommit(owner, repo, branch, map[string][]byte{"README.md": []byte("# shop\n"), branch + ".go": []byte("package cart\n")}, w.base)
	return w.gh.AddPull(owner, repo, ghfake.PullSpec{Title: branch, User: "dev", HeadSHA: head, HeadRef: branch, BaseSHA: w.base}), head
}

// runOf is a completed workflow_run delivery of a run on pull request pr
// at head whose review artifact is review.
func (w *world) runOf(t *testing.T, pr int, head, branch, review string) []byte {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: head, HeadBranch: branch, PullRequests: []int{pr}})
	w.gh.AddArtifact(owner, repo, runID, "review-results", ghfake.Zip(t, map[string][]byte{"review-results.json": []byte(review)}))
	return payload(t, map[string]any{"action": "completed", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev"},
		"workflow_run": map[string]any{"id": runID, "run_attempt": 1, "head_sha": head, "head_branch": branch, "status": "completed", "conclusion": "success",
			"head_repository": map[string]any{"id": 100, "full_name": owner + "/" + repo},
			"pull_requests":   []any{map[string]any{"number": pr, "head": map[string]any{"sha": head, "ref": branch, "repo": map[string]any{"id": 100}}}}}})
}

// mergeGroupOf builds a merge queue's group of prs (its branch names the
// last one; GitHub associates its commit with all of them) and returns
// its commit and the merge_group delivery, shaped as GitHub documents it.
func (w *world) mergeGroupOf(t *testing.T, prs ...int) (string, []byte) {
	t.Helper()
	ref := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", prs[len(prs)-1], w.base)
	sha := w.gh.AddCommit(owner, repo, ref, map[string][]byte{"README.md": []byte("# shop\n")}, w.base)
	w.gh.AssociatePulls(owner, repo, sha, prs...)
	return sha, payload(t, map[string]any{"action": "checks_requested", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev", "type": "User"},
		"merge_group": map[string]any{"head_sha": sha, "head_ref": "refs/heads/" + ref, "base_sha": w.base, "base_ref": "refs/heads/main",
			"head_commit": map[string]any{"id": sha, "tree_id": sha, "message": "Merge queue", "timestamp": "2026-11-25T12:00:00Z",
				"author": map[string]any{"name": "dev", "email": "dev@example.com"}, "committer": map[string]any{"name": "GitHub", "email": "noreply@github.com"}}}})
}

// checkRunEvent is a check_run delivery about gcloop's check run cr:
// action rerequested, or requested_action with the button identifier.
func (w *world) checkRunEvent(t *testing.T, cr ghfake.CheckRun, action, identifier, sender string) []byte {
	t.Helper()
	run := map[string]any{"id": cr.ID, "name": cr.Name, "head_sha": cr.HeadSHA, "status": cr.Status, "conclusion": cr.Conclusion,
		"details_url": cr.DetailsURL, "app": appJSON, "check_suite": map[string]any{"id": cr.ID + 1_000_000, "head_sha": cr.HeadSHA, "app": appJSON},
		"pull_requests": []any{map[string]any{"number": w.pr, "head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}},
			"base": map[string]any{"ref": "main", "sha": w.base, "repo": map[string]any{"id": 100}}}}}
	body := map[string]any{"action": action, "check_run": run, "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": sender, "type": "User"}}
	if identifier != "" {
		body["requested_action"] = map[string]any{"identifier": identifier}
	}
	return payload(t, body)
}

// state is loop review's state on pull request pr, as gcloop's report
// comment holds it.
func (w *world) state(t *testing.T, pr int) *decide.State {
	t.Helper()
	found, err := report.FindState(context.Background(), w.gh.Client(token).Issues, owner, repo, pr, "review", report.Trust{Login: bot})
	if err != nil || found.State == nil {
		t.Fatalf("state of #%d: %v (notes %v)", pr, err, found.Notes)
	}
	return found.State
}

func requests(gh *ghfake.Server, from int) []string {
	var out []string
	for _, r := range gh.Requests()[from:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// A merge group of two pull requests passes only when both loops
// converged at their heads; otherwise its check fails naming the pull
// request and why. No critic runs, and it costs five requests.
func TestMergeGroupPassesOnlyWhenEveryLoopConverged(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  max_rounds: 1\n  bot:\n    artifacts: [review-results]\n")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.runOf(t, w.pr, w.head, "feature/cart", reviewOK)); err != nil {
		t.Fatal(err)
	}
	pr2, head2 := w.pullOn(t, "feature/pay")
	if err := w.h.Handle(context.Background(), "d-2", "workflow_run", w.runOf(t, pr2, head2, "feature/pay", reviewFix)); err != nil {
		t.Fatal(err)
	}
	group, body := w.mergeGroupOf(t, w.pr, pr2)
	from, events := len(w.gh.Requests()), len(w.log.types())
	if err := w.h.Handle(context.Background(), "d-3", "merge_group", body); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /repos/octo/shop/contents/.github/gcloop.yml",
		"GET /repos/octo/shop/commits/" + group + "/pulls",
		fmt.Sprintf("GET /repos/octo/shop/issues/%d/comments", w.pr),
		fmt.Sprintf("GET /repos/octo/shop/issues/%d/comments", pr2),
		"POST /repos/octo/shop/check-runs",
	}
	if diff := cmp.Diff(want, requests(w.gh, from)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	c := lastCheck(t, w.gh, group)
	if wantTitle := fmt.Sprintf("PR #%d: loop review escalated at round 1", pr2); c.Conclusion != "failure" || c.Title != wantTitle {
		t.Errorf("group check %s %q, want failure %q", c.Conclusion, c.Title, wantTitle)
	}
	w.log.mu.Lock()
	for _, e := range w.log.events[events:] {
		if e.Type != event.Check || e.Loop != "review" || (e.PR != w.pr && e.PR != pr2) || !strings.Contains(string(e.Data), `"conclusion":"failure"`) {
			t.Errorf("event %+v (%s), want a failed check of loop review on #%d or #%d", e, e.Data, w.pr, pr2)
		}
	}
	w.log.mu.Unlock()

	// The second pull request converges on a new head: the next group passes.
	head2 = w.gh.AddCommit(owner, repo, "feature/pay", map[string][]byte{"README.md": []byte("# shop\n"), "feature/pay.go": []byte("package cart // fixed\n")}, head2)
	w.gh.MovePullHead(owner, repo, pr2, head2)
	if err := w.h.Handle(context.Background(), "d-4", "workflow_run", w.runOf(t, pr2, head2, "feature/pay", reviewOK)); err != nil {
		t.Fatal(err)
	}
	group, body = w.mergeGroupOf(t, w.pr, pr2)
	if err := w.h.Handle(context.Background(), "d-5", "merge_group", body); err != nil {
		t.Fatal(err)
	}
	if c := lastCheck(t, w.gh, group); c.Conclusion != "success" || c.Title != "loop review converged on all 2 pull requests of the group" {
		t.Errorf("group check %s %q, want success", c.Conclusion, c.Title)
	}
}

// A repository that configures no loop has no gcloop check to write on a
// merge group: nothing is written.
func TestMergeGroupWithoutLoopsIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "# no loops\n")
	_, body := w.mergeGroupOf(t, w.pr)
	from := len(w.gh.Requests())
	if err := w.h.Handle(context.Background(), "d", "merge_group", body); !errors.Is(err, delivery.ErrIgnored) {
		t.Fatalf("Handle = %v, want ErrIgnored", err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("wrote %v", m)
	}
}

// The Re-run button on gcloop's check run judges the same round again
// from the run its last round read — here under a configuration changed
// since — and replaces the round's record: the report and the check run
// are updated, no round is added.
func TestRerunJudgesTheSameRoundAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.runOf(t, w.pr, w.head, "feature/cart", reviewFix)); err != nil {
		t.Fatal(err)
	}
	before := w.state(t, w.pr)
	if len(before.Rounds) != 1 || before.Rounds[0].Decision != decide.Fix {
		t.Fatalf("setup: rounds %+v, want one fix round", before.Rounds)
	}
	runs := w.gh.CheckRuns(owner, repo)
	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  threshold: 5\n  bot:\n    artifacts: [review-results]\n"))
	from := len(w.gh.Requests())
	if err := w.h.Handle(context.Background(), "d-2", "check_run", w.checkRunEvent(t, runs[0], "rerequested", "", "lead")); err != nil {
		t.Fatal(err)
	}
	after := w.state(t, w.pr)
	if len(after.Rounds) != 1 || after.Rounds[0].Decision != decide.Converge || after.Rounds[0].RunID != before.Rounds[0].RunID {
		t.Errorf("rounds after the re-run %+v, want round 1 of the same run judged again: converge", after.Rounds)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "CONVERGE") {
		t.Errorf("comments %d, want the one report updated to CONVERGE", len(comments))
	}
	if got := w.gh.CheckRuns(owner, repo); len(got) != 1 || got[0].ID != runs[0].ID || got[0].Conclusion != "success" {
		t.Errorf("check runs %+v, want the round's one run updated to success", got)
	}
	got := requests(w.gh, from)
	if !slices.Contains(got, fmt.Sprintf("GET /repos/octo/shop/actions/runs/%d", before.Rounds[0].RunID)) || !slices.Contains(got, fmt.Sprintf("PATCH /repos/octo/shop/check-runs/%d", runs[0].ID)) {
		t.Errorf("requests %q, want the recorded run read and the check run updated", got)
	}

	// The suite's re-run button does the same for every loop of the bot:
	// nothing changed since, nothing is written.
	from = len(w.gh.Requests())
	suite := payload(t, map[string]any{"action": "rerequested", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "lead", "type": "User"},
		"check_suite": map[string]any{"id": 99, "head_sha": w.head, "head_branch": "feature/cart", "app": appJSON,
			"pull_requests": []any{map[string]any{"number": w.pr, "head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}})
	if err := w.h.Handle(context.Background(), "d-3", "check_suite", suite); err != nil {
		t.Fatal(err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("an unchanged re-run wrote %v", m)
	}
	if n := len(w.state(t, w.pr).Rounds); n != 1 {
		t.Errorf("%d rounds after the suite's re-run, want 1", n)
	}
}

// Someone else's check run, or a check of a commit gcloop judged no round
// on, is no business of the bot's.
func TestRerunOfOtherChecksIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	cr := ghfake.CheckRun{ID: 7, Name: "ci / test", HeadSHA: w.head, Status: "completed", Conclusion: "failure"}
	from := len(w.gh.Requests())
	if err := w.h.Handle(context.Background(), "d-1", "check_run", w.checkRunEvent(t, cr, "rerequested", "", "lead")); !errors.Is(err, delivery.ErrIgnored) {
		t.Errorf("another check: %v, want ErrIgnored", err)
	}
	if n := len(w.gh.Requests()) - from; n != 0 {
		t.Errorf("another check cost %d requests, want none", n)
	}
	cr.Name = "gcloop / review"
	if err := w.h.Handle(context.Background(), "d-2", "check_run", w.checkRunEvent(t, cr, "rerequested", "", "lead")); !errors.Is(err, delivery.ErrIgnored) || !strings.Contains(err.Error(), "no judged round") {
		t.Errorf("a loop with no round: %v, want ErrIgnored saying so", err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("wrote %v", m)
	}
}

// "Retry round" on an escalated loop's check run: a read-only user is
// refused and nothing changes on GitHub (the feed says why); a writer gets
// the round /gc retry grants, with the same dispatch and the same cap.
func TestRetryButtonIsAuthorizedLikeTheCommand(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  max_rounds: 1\n  dispatch: review.yml\n  commands:\n    max_retries: 1\n  bot:\n    artifacts: [review-results]\n")
	w.gh.AddWorkflow(owner, repo, "review.yml")
	w.gh.SetPermission(owner, repo, "reader", "read")
	w.gh.SetPermission(owner, repo, "lead", "write")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.runOf(t, w.pr, w.head, "feature/cart", reviewFix)); err != nil {
		t.Fatal(err)
	}
	cr := w.gh.CheckRuns(owner, repo)[0]
	if cr.Conclusion != "failure" || len(cr.Actions) != 2 || cr.Actions[0].Identifier != "retry" || cr.Actions[1].Identifier != "approve" {
		t.Fatalf("check run %+v, want an escalation with the buttons retry and approve", cr)
	}
	before := w.gh.Comments(owner, repo, w.pr)[0].Body

	from, events := len(w.gh.Requests()), len(w.log.types())
	if err := w.h.Handle(context.Background(), "d-2", "check_run", w.checkRunEvent(t, cr, "requested_action", "retry", "reader")); err != nil {
		t.Fatal(err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("a read-only user's click wrote %v", m)
	}
	if got := requests(w.gh, from); !slices.Contains(got, "GET /repos/octo/shop/collaborators/reader/permission") {
		t.Errorf("requests %q, want the sender's permission checked", got)
	}
	if body := w.gh.Comments(owner, repo, w.pr)[0].Body; body != before || len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Errorf("the report or the dispatches changed after a refused click")
	}
	refusal := w.commandEvent(t, events)
	if refusal["refused"] != true || refusal["button"] != "retry" || refusal["by"] != "reader" || !strings.Contains(fmt.Sprint(refusal["reason"]), "**read**") {
		t.Errorf("command event %v, want the refusal with its reason", refusal)
	}

	events = len(w.log.types())
	if err := w.h.Handle(context.Background(), "d-3", "check_run", w.checkRunEvent(t, cr, "requested_action", "retry", "lead")); err != nil {
		t.Fatal(err)
	}
	st := w.state(t, w.pr)
	if st.Status != decide.StateOpen || len(st.Grants) != 1 || st.Grants[0].By != "lead" || !st.NewRound {
		t.Errorf("state %s grants %+v new round %v, want open with lead's grant, as /gc retry", st.Status, st.Grants, st.NewRound)
	}
	if d := w.gh.Dispatches(owner, repo); len(d) != 1 || d[0].Ref != "feature/cart" {
		t.Errorf("dispatches %+v, want review.yml on the head branch", d)
	}
	if ev := w.commandEvent(t, events); ev["refused"] != false || ev["dispatched"] != true || ev["verb"] != "retry" {
		t.Errorf("command event %v, want the retry carried out and dispatched", ev)
	}
	if !strings.Contains(w.gh.Comments(owner, repo, w.pr)[0].Body, "/gc retry") {
		t.Errorf("the report has no banner of the retry")
	}
}

// "Approve" settles the loop as /gc approve: the check run turns to
// success and loses its buttons.
func TestApproveButtonSettlesTheLoop(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  max_rounds: 1\n  bot:\n    artifacts: [review-results]\n")
	w.gh.SetPermission(owner, repo, "lead", "admin")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.runOf(t, w.pr, w.head, "feature/cart", reviewFix)); err != nil {
		t.Fatal(err)
	}
	cr := w.gh.CheckRuns(owner, repo)[0]
	if err := w.h.Handle(context.Background(), "d-2", "check_run", w.checkRunEvent(t, cr, "requested_action", "approve", "lead")); err != nil {
		t.Fatal(err)
	}
	if st := w.state(t, w.pr); st.Status != decide.StateApproved {
		t.Errorf("status %s, want approved", st.Status)
	}
	if got := w.gh.CheckRuns(owner, repo); len(got) != 1 || got[0].Conclusion != "success" || !strings.Contains(got[0].Title, "approved by lead") || len(got[0].Actions) != 0 {
		t.Errorf("check runs %+v, want the run settled to success, its buttons gone", got)
	}
	// The same click handled again (its delivery tried again after an
	// effect failed) is the command applied: ignored, the check run
	// settled again, no second action in the state.
	events := len(w.log.types())
	if err := w.h.Handle(context.Background(), "d-2", "check_run", w.checkRunEvent(t, cr, "requested_action", "approve", "lead")); err != nil {
		t.Fatal(err)
	}
	if ev := w.commandEvent(t, events); ev["ignored"] != "the loop already applied this command (a redelivery)" || ev["refused"] != false {
		t.Errorf("command event %v, want the click ignored as applied", ev)
	}
	if st := w.state(t, w.pr); len(st.Actions) != 1 {
		t.Errorf("actions %+v, want the one approve", st.Actions)
	}
	// An unknown button, or a bot's click, does nothing.
	for _, tt := range []struct{ id, sender string }{{"deploy", "lead"}, {"retry", "renovate[bot]"}} {
		from := len(w.gh.Requests())
		if err := w.h.Handle(context.Background(), "d-x", "check_run", w.checkRunEvent(t, cr, "requested_action", tt.id, tt.sender)); !errors.Is(err, delivery.ErrIgnored) {
			t.Errorf("button %q by %s: %v, want ErrIgnored", tt.id, tt.sender, err)
		}
		if m := mutations(w.gh, from); len(m) != 0 {
			t.Errorf("button %q by %s wrote %v", tt.id, tt.sender, m)
		}
	}
}

// commandEvent is the data of the last command event after index from.
func (w *world) commandEvent(t *testing.T, from int) map[string]any {
	t.Helper()
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	for i := len(w.log.events) - 1; i >= from; i-- {
		if e := w.log.events[i]; e.Type == event.Command {
			var data map[string]any
			if err := json.Unmarshal(e.Data, &data); err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	t.Fatalf("no command event after %d: %v", from, w.log.types())
	return nil
}

// lastCheck is the newest check run gcloop / review on sha.
func lastCheck(t *testing.T, gh *ghfake.Server, sha string) ghfake.CheckRun {
	t.Helper()
	var out *ghfake.CheckRun
	for _, c := range gh.CheckRuns(owner, repo) {
		if c.HeadSHA == sha && c.Name == "gcloop / review" {
			out = &c
		}
	}
	if out == nil {
		t.Fatalf("no check run gcloop / review on %s", sha)
	}
	return *out
}

// A click on a fork's check run names no pull request: queued under its
// head commit, it is queued again under its pull request's key before it
// does anything, so it never runs beside other work on that pull request.
func TestAForksClickIsQueuedAgainUnderItsPullRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	body := w.checkRunEvent(t, ghfake.CheckRun{ID: 9, Name: "gcloop / review", HeadSHA: w.head, Status: "completed", Conclusion: "failure"}, "requested_action", "retry", "lead")
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	m["check_run"].(map[string]any)["pull_requests"] = []any{}
	from := len(w.gh.Requests())
	err := w.h.Handle(delivery.WithKey(context.Background(), "octo/shop@"+w.head), "d-1", "check_run", payload(t, m))
	var rk *delivery.RekeyError
	if !errors.As(err, &rk) || rk.Key != fmt.Sprintf("octo/shop#%d", w.pr) {
		t.Fatalf("Handle = %v, want a RekeyError to octo/shop#%d", err, w.pr)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("wrote %v before it was queued again", m)
	}
}

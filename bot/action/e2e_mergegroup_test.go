package action_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// secondPull opens another pull request on its own branch and returns its
// number and head.
func (w *world) secondPull(branch string) (int, string) {
	w.t.Helper()
	files := w.gh.TreeFiles(owner, repo, w.base)
	files[branch+".go"] = []byte("package cart\n")
	head := w.gh.AddCommit(owner, repo, branch, files, w.base)
	return w.gh.AddPull(owner, repo, ghfake.PullSpec{Title: branch, User: "dev", HeadSHA: head, HeadRef: branch, BaseSHA: w.base}), head
}

// pullPayloadOf is the pull_request payload of pull request pr at head.
func pullPayloadOf(pr int, branch, head, base string) map[string]any {
	return map[string]any{"action": "synchronize", "number": pr, "pull_request": map[string]any{
		"number": pr, "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, pr),
		"head": map[string]any{"sha": head, "ref": branch, "repo": map[string]any{"id": 100}},
		"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"id": 100}},
	}}
}

// mergeGroup builds a merge queue's group of the pull requests prs on the
// fake (its branch names the last one, GitHub associates its commit with
// all of them) and returns its commit and the merge_group payload, shaped
// as GitHub's webhook documentation shows it.
func (w *world) mergeGroup(prs ...int) (string, map[string]any) {
	w.t.Helper()
	ref := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", prs[len(prs)-1], w.base)
	sha := w.gh.AddCommit(owner, repo, ref, w.gh.TreeFiles(owner, repo, w.base), w.base)
	w.gh.AssociatePulls(owner, repo, sha, prs...)
	return sha, map[string]any{
		"action": "checks_requested",
		"merge_group": map[string]any{
			"head_sha": sha, "head_ref": "refs/heads/" + ref, "base_sha": w.base, "base_ref": "refs/heads/main",
			"head_commit": map[string]any{"id": sha, "tree_id": sha, "message": "Merge queue", "timestamp": "2026-11-27T08:00:00Z",
				"author": map[string]any{"name": "dev", "email": "dev@example.com"}, "committer": map[string]any{"name": "GitHub", "email": "noreply@github.com"}},
		},
		"repository": map[string]any{"id": 100, "name": repo, "full_name": owner + "/" + repo, "owner": map[string]any{"login": owner}},
		"sender":     map[string]any{"login": "dev", "type": "User"},
	}
}

// The action on merge_group writes gcloop / <id> on the group's commit
// from the loops' reports on its pull requests: no evidence, no critic,
// a handful of requests, and a failure that names the pull request that
// may not merge and why.
func TestMergeGroupCheckFromTheLoopsOfItsPullRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "issues": "false"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewOK}}); r.outputs["decision"] != "converge" {
		t.Fatalf("setup #%d: exit %d outputs %v\n%s", w.pr, r.code, r.outputs, r.stderr)
	}
	pr2, head2 := w.secondPull("feature/pay")
	step2 := step{inputs: in, files: map[string]string{"r.json": reviewFix}, payload: pullPayloadOf(pr2, "feature/pay", head2, w.base),
		extra: map[string]string{"GITHUB_SHA": head2}, runID: 5001}
	if r := w.runAction(step2); r.outputs["decision"] != "escalate" {
		t.Fatalf("setup #%d: exit %d outputs %v\n%s", pr2, r.code, r.outputs, r.stderr)
	}
	// The action's check run has no buttons: GitHub would send their
	// clicks to GitHub Actions, the App of GITHUB_TOKEN, not to gcloop.
	for _, c := range w.gh.CheckRuns(owner, repo) {
		if len(c.Actions) != 0 {
			t.Errorf("the action's check run %s on %s has buttons %+v", c.Name, c.HeadSHA, c.Actions)
		}
	}

	group, payload := w.mergeGroup(w.pr, pr2)
	from := len(w.gh.Requests())
	r := w.runAction(step{event: "merge_group", payload: payload, inputs: map[string]string{"loop": "review"},
		extra: map[string]string{"GITHUB_SHA": group}, runID: 5002})
	if r.code != 0 {
		t.Fatalf("merge group: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := w.requestsSince(from)
	want := []string{
		"GET /repos/octo/shop/commits/" + group + "/pulls",
		fmt.Sprintf("GET /repos/octo/shop/issues/%d/comments", w.pr),
		fmt.Sprintf("GET /repos/octo/shop/issues/%d/comments", pr2),
		"POST /repos/octo/shop/check-runs",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c := groupCheck(t, w, group)
	wantTitle := fmt.Sprintf("PR #%d: loop review escalated at round 1", pr2)
	if c.Conclusion != "failure" || c.Title != wantTitle || c.DetailsURL != "https://github.com/octo/shop/actions/runs/5002" {
		t.Errorf("check %q %q %q, want failure %q linked to the run", c.Conclusion, c.Title, c.DetailsURL, wantTitle)
	}
	mustContain(t, "the check summary", c.Summary, fmt.Sprintf("✅ PR #%d", w.pr), fmt.Sprintf("❌ PR #%d: loop review escalated", pr2))
	if len(c.Actions) != 0 {
		t.Errorf("the group's check has buttons %+v, want none", c.Actions)
	}

	// The second pull request is fixed and converges: the next group passes.
	files := w.gh.TreeFiles(owner, repo, head2)
	files["feature/pay.go"] = []byte("package cart // fixed\n")
	head2 = w.gh.AddCommit(owner, repo, "feature/pay", files, head2)
	w.gh.MovePullHead(owner, repo, pr2, head2)
	step2.payload, step2.extra, step2.runID, step2.files = pullPayloadOf(pr2, "feature/pay", head2, w.base), map[string]string{"GITHUB_SHA": head2}, 5003, map[string]string{"r.json": reviewOK}
	if r := w.runAction(step2); r.outputs["decision"] != "converge" {
		t.Fatalf("#%d fixed: exit %d outputs %v\n%s", pr2, r.code, r.outputs, r.stderr)
	}
	group, payload = w.mergeGroup(w.pr, pr2)
	r = w.runAction(step{event: "merge_group", payload: payload, inputs: map[string]string{"loop": "review"}, extra: map[string]string{"GITHUB_SHA": group}, runID: 5004})
	if c := groupCheck(t, w, group); r.code != 0 || c.Conclusion != "success" || c.Title != "loop review converged on all 2 pull requests of the group" {
		t.Errorf("both converged: exit %d, check %q %q\n%s", r.code, c.Conclusion, c.Title, r.stderr)
	}

	// The first pull request's head moves after its last judged round:
	// the group may not merge on an old judgment.
	moved := w.push(map[string]string{"cart.go": "package cart // unjudged\n"})
	w.gh.MovePullHead(owner, repo, w.pr, moved)
	group, payload = w.mergeGroup(w.pr, pr2)
	r = w.runAction(step{event: "merge_group", payload: payload, inputs: map[string]string{"loop": "review"}, extra: map[string]string{"GITHUB_SHA": group}, runID: 5005})
	c = groupCheck(t, w, group)
	if r.code != 0 || c.Conclusion != "failure" || !strings.HasPrefix(c.Title, fmt.Sprintf("PR #%d: head moved since the last judged round", w.pr)) {
		t.Errorf("head moved: exit %d, check %q %q", r.code, c.Conclusion, c.Title)
	}
}

// A loop that never ran on a pull request of the group fails the group's
// check rather than leave the queue waiting; without checks: write the
// conclusion is a commit status.
func TestMergeGroupWithoutStateFailsAsACommitStatus(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.Forbid(bot, "checks")
	group, payload := w.mergeGroup(w.pr)
	r := w.runAction(step{event: "merge_group", payload: payload, inputs: map[string]string{"loop": "review"}, extra: map[string]string{"GITHUB_SHA": group}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	st := w.gh.Statuses(owner, repo)
	if len(st) != 1 || st[0].SHA != group || st[0].Context != "gcloop / review" || st[0].State != "failure" ||
		!strings.Contains(st[0].Description, fmt.Sprintf("PR #%d: loop review has no report", w.pr)) {
		t.Fatalf("statuses %+v, want one failure on the group naming #%d", st, w.pr)
	}
	mustContain(t, "the log", r.stdout+r.stderr, "commit status")
}

// groupCheck is the newest check run gcloop / review on the group's
// commit.
func groupCheck(t *testing.T, w *world, sha string) ghfake.CheckRun {
	t.Helper()
	var found *ghfake.CheckRun
	for _, c := range w.gh.CheckRuns(owner, repo) {
		if c.HeadSHA == sha && c.Name == "gcloop / review" {
			found = &c
		}
	}
	if found == nil {
		t.Fatalf("no check run gcloop / review on %s", sha)
	}
	return *found
}

// A dry run on merge_group reads nothing from GitHub and says what it
// would check.
func TestMergeGroupDryRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	group, payload := w.mergeGroup(w.pr)
	from := len(w.gh.Requests())
	r := w.runAction(step{event: "merge_group", payload: payload, inputs: map[string]string{"loop": "review", "dry-run": "true"},
		extra: map[string]string{"GITHUB_SHA": group}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "the log", r.stdout, "dry run: would check loops review on the pull requests of merge group "+group[:7])
	if got := w.requestsSince(from); len(got) != 0 {
		t.Errorf("a dry run made %q", got)
	}
}

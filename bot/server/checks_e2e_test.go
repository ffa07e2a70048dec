package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestBotChecksEndToEnd runs the gcloop binary as the App: a merge
// queue's group gets gcloop / review on its commit from the loop's report
// (no critic run), and a click on the check run's "Retry round" button by
// a writer runs /gc retry — each delivery through the signed webhook, the
// queue and the workers.
func TestBotChecksEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := startBot(t, gcloop(t), "GCLOOP_WEBHOOK_SECRET="+secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
		"GCLOOP_APP_PRIVATE_KEY_FILE="+w.keyFile, "GITHUB_API_URL="+w.gh.URL())
	if status, body := b.deliver(t, "workflow_run", "run-1", w.workflowRun(t)); status != http.StatusAccepted {
		t.Fatalf("workflow_run delivery: %d %s", status, body)
	}
	// The check run is written before the report comment: wait for the
	// whole round, or the merge group could find no report yet.
	waitFor(t, b, "the round to be done", func() bool {
		return strings.Contains(b.metrics(t), `gcloop_deliveries_total{event="workflow_run",result="done"} 1`)
	})
	if n := len(w.gh.CheckRuns(owner, repo)); n != 1 {
		t.Fatalf("%d check runs after the round, want 1", n)
	}
	round := w.gh.CheckRuns(owner, repo)[0]

	// The merge group of the pull request, as GitHub's merge_group
	// webhook documents it.
	base := w.gh.Ref(owner, repo, "heads/main")
	ref := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", w.pr, base)
	group := w.gh.AddCommit(owner, repo, ref, map[string][]byte{"README.md": []byte("# shop\n")}, base)
	from := len(w.gh.Requests())
	status, body := b.deliver(t, "merge_group", "mg-1", map[string]any{"action": "checks_requested",
		"merge_group": map[string]any{"head_sha": group, "head_ref": "refs/heads/" + ref, "base_sha": base, "base_ref": "refs/heads/main",
			"head_commit": map[string]any{"id": group, "tree_id": group, "message": "Merge queue", "timestamp": "2026-11-27T08:00:00Z",
				"author": map[string]any{"name": "dev", "email": "dev@example.com"}, "committer": map[string]any{"name": "GitHub", "email": "noreply@github.com"}}},
		"repository": repository(), "installation": map[string]any{"id": instID}, "sender": map[string]any{"login": "dev", "type": "User"}})
	if status != http.StatusAccepted {
		t.Fatalf("merge_group delivery: %d %s", status, body)
	}
	waitFor(t, b, "the group's check", func() bool { return len(w.gh.CheckRuns(owner, repo)) == 2 })
	g := w.gh.CheckRuns(owner, repo)[1]
	if g.HeadSHA != group || g.Name != "gcloop / review" || g.Conclusion != "failure" || !strings.HasPrefix(g.Title, fmt.Sprintf("PR #%d: loop review is open at round 1", w.pr)) {
		t.Errorf("group check %+v, want a failure naming #%d's open loop", g, w.pr)
	}
	var artifacts int
	for _, r := range w.gh.Requests()[from:] {
		if strings.Contains(r.Path, "/artifacts") {
			artifacts++
		}
	}
	if artifacts != 0 {
		t.Errorf("the merge group read %d artifacts, want none (no critic run)", artifacts)
	}

	// "Retry round" on the round's check run, clicked by a writer.
	app := map[string]any{"id": appID, "slug": slug, "name": "gcloop", "owner": map[string]any{"login": owner}}
	side := map[string]any{"ref": "feature/cart", "sha": w.head, "repo": map[string]any{"id": 100, "name": repo}}
	click := map[string]any{"action": "requested_action", "requested_action": map[string]any{"identifier": "retry"},
		"check_run": map[string]any{"id": round.ID, "name": round.Name, "head_sha": round.HeadSHA, "status": "completed", "conclusion": round.Conclusion, "app": app,
			"check_suite":   map[string]any{"id": 1, "head_sha": round.HeadSHA, "app": app},
			"pull_requests": []any{map[string]any{"number": w.pr, "head": side, "base": map[string]any{"ref": "main", "sha": base, "repo": map[string]any{"id": 100, "name": repo}}}}},
		"repository": repository(), "installation": map[string]any{"id": instID}, "sender": map[string]any{"login": "lead", "type": "User"}}
	if status, body := b.deliver(t, "check_run", "click-1", click); status != http.StatusAccepted {
		t.Fatalf("check_run delivery: %d %s", status, body)
	}
	waitFor(t, b, "the retry's dispatch", func() bool { return len(w.gh.Dispatches(owner, repo)) == 1 })
	if d := w.gh.Dispatches(owner, repo)[0]; d.Workflow != "review.yml" || d.Ref != "feature/cart" {
		t.Errorf("dispatch %+v, want review.yml on feature/cart", d)
	}
	waitFor(t, b, "both deliveries to be done", func() bool {
		m := b.metrics(t)
		return strings.Contains(m, `gcloop_deliveries_total{event="merge_group",result="done"} 1`) &&
			strings.Contains(m, `gcloop_deliveries_total{event="check_run",result="done"} 1`)
	})
	if code := b.stop(t); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0\n%s", code, b.logs())
	}
}

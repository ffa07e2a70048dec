package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// runnerCommands lists the lines of a step's output that the Actions
// runner would run as workflow commands: it ends lines at CR as well as LF
// and trims white space. Only commands that start with one of the allowed
// prefixes (after the "::") may appear.
func runnerCommands(out string, allowed ...string) []string {
	var bad []string
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "::") {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(l, "::"+a)
		}
		if !ok {
			bad = append(bad, l)
		}
	}
	return bad
}

// hostileWorkspace makes a workspace for steps that need more than regular
// files (symlinks, odd names).
func hostileWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "workspace")
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// Point 1: file names and messages from the evidence cannot start a
// workflow command through a CR or a line break.
func TestHostileEvidenceTextStartsNoWorkflowCommand(t *testing.T) {
	t.Parallel()
	const name = "bad\r::add-mask::leak\r.json"
	tests := []struct {
		name   string
		files  map[string]string
		inputs map[string]string
	}{
		{"an unreadable evidence file whose name holds a CR", map[string]string{name: `{"review_score": 99, "findings": []}`},
			map[string]string{"loop": "review", "evidence": "*.json"}},
		{"a dry run whose finding and file name hold a CR", map[string]string{"r.json": `{"review_score": 4, "gc_signal": "REVISION_NEEDED", "findings": [
			{"severity": "critical", "file": "a.go\r::add-mask::leak", "line": 2, "description": "x\r::set-output name=decision::converge\n::add-mask::leak"}]}`},
			map[string]string{"loop": "review", "evidence": "r.json", "dry-run": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			ws := hostileWorkspace(t, tt.files)
			r := w.runAction(step{inputs: tt.inputs, ws: ws})
			if bad := runnerCommands(r.stdout+"\n"+r.stderr, append(logGroups, "error ", "error::", "warning ", "notice::", "add-mask::"+token)...); len(bad) != 0 {
				t.Errorf("the step output runs workflow commands %q (exit %d)\nstdout:\n%s\nstderr:\n%s", bad, r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout+r.stderr, "leak") {
				t.Errorf("the hostile text is not shown at all (exit %d)\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// Point 2: an evidence symlink out of the workspace is refused and named;
// nothing is written to GitHub.
func TestHostileEvidenceSymlinkOutOfTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	secret := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(secret, []byte(reviewOK), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := hostileWorkspace(t, nil)
	if err := os.Symlink(secret, filepath.Join(ws, "review-results.json")); err != nil {
		t.Fatal(err)
	}
	from := len(w.gh.Requests())
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "review-results.json"}, ws: ws})
	if r.code == 0 {
		t.Fatalf("exit 0: the symlink was read\n%s", r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "evidence review-results.json", "symlink", "out of the workspace")
	if m := w.mutations(from); len(m) != 0 {
		t.Errorf("mutations %q after a refused symlink", m)
	}
}

// Point 4: `/gc retry` inside an inline code span that spans lines is no
// command: nothing is dispatched, the state and report stay as they are.
func TestHostileRetryInsideAMultiLineCodeSpan(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "dispatch": "review.yml"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}}); r.outputs["decision"] != "escalate" {
		t.Fatalf("setup: outputs %v\n%s", r.outputs, r.stderr)
	}
	w.gh.SetPermission(owner, repo, "writer", "write")
	report := w.gh.Comments(owner, repo, w.pr)[0].Body
	body := "To start over, type `\n/gc retry\n` in a comment."
	id := w.gh.AddComment(owner, repo, w.pr, "writer", body)
	from := len(w.gh.Requests())
	r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "writer", body), inputs: in})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if d := w.gh.Dispatches(owner, repo); len(d) != 0 {
		t.Errorf("a command in a code span dispatched %+v", d)
	}
	if got := w.gh.Comments(owner, repo, w.pr)[0].Body; got != report {
		t.Error("a command in a code span changed the report")
	}
	if m := w.mutations(from); len(m) != 0 {
		t.Errorf("mutations %q for a comment without a command", m)
	}
}

// Point 5: a PR whose fork was deleted (`head.repo: null`) is a fork: a
// coverage round escalates and touches no Git data.
func TestHostileDeletedForkIsAFork(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	head := w.head
	payload := w.pullPayload()
	payload["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = nil
	r := w.coverageRound(t, map[string]string{"cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {}\n"}, nil, payload)
	if r.code != 0 || r.outputs["decision"] != "escalate" || r.outputs["commit"] != "" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	for _, q := range w.gh.Requests() {
		if strings.Contains(q.Path, "/git/") || strings.Contains(q.Path, "/dispatches") {
			t.Errorf("a deleted fork's round made %s %s", q.Method, q.Path)
		}
	}
	if got := w.gh.Ref(owner, repo, "heads/feature/cart"); got != head {
		t.Errorf("the branch moved to %s", got)
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "fork")
}

// Point 6: a workflow_run whose head sha is a PR's head but whose head
// repository or branch is another is not that PR's run: nothing happens,
// and the message says why.
func TestHostileWorkflowRunOfAnotherHead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		repoID   int64
		repoName string
		branch   string
		listed   bool // the run lists the PR (same-repository runs do)
		why      string
	}{
		{"a fork run with the same sha (commit lookup)", 999, "evil/shop", "feature/cart", false, "from repository id 100, not the run's 999"},
		{"a run on another branch (listed PR)", 100, "octo/shop", "other", true, `head branch "feature/cart", not the run's "other"`},
		{"a run on another branch (commit lookup)", 100, "octo/shop", "other", false, `not the run's "other"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			var prs []int
			var listed []any
			if tt.listed {
				prs = []int{w.pr}
				listed = []any{map[string]any{"number": w.pr,
					"head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}
			}
			runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{ID: 8100, HeadSHA: w.head, HeadBranch: tt.branch,
				HeadRepoID: tt.repoID, HeadRepo: tt.repoName, PullRequests: prs})
			payload := map[string]any{"action": "completed", "workflow_run": map[string]any{"id": runID, "head_sha": w.head,
				"head_branch": tt.branch, "head_repository": map[string]any{"id": tt.repoID, "full_name": tt.repoName},
				"pull_requests": listed}}
			from := len(w.gh.Requests())
			r := w.runAction(step{event: "workflow_run", payload: payload, runID: 8101,
				inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewFix}})
			if r.code == 0 {
				t.Fatalf("exit 0: the run was taken for PR #%d's\n%s", w.pr, r.stderr)
			}
			mustContain(t, "stderr", r.stderr, "not its pull request", tt.why)
			if m := w.mutations(from); len(m) != 0 {
				t.Errorf("mutations %q for another head's run", m)
			}
			if n := len(w.gh.Comments(owner, repo, w.pr)); n != 0 {
				t.Errorf("%d comments on the PR", n)
			}
		})
	}
}

// Point 7: loop ids are [a-z0-9][a-z0-9_-]{0,31}: `..` and the like are
// refused before anything is read or written.
func TestHostileLoopIDs(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"..", ".", "Review", "a.b"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			from := len(w.gh.Requests())
			r := w.runAction(step{inputs: map[string]string{"loop": "review", "id": id, "evidence": "r.json"},
				files: map[string]string{"r.json": reviewFix}})
			if r.code != 2 {
				t.Fatalf("exit %d, want 2 (usage)\n%s", r.code, r.stderr)
			}
			mustContain(t, "stderr", r.stderr, "input id", "[a-z0-9][a-z0-9_-]{0,31}")
			if reqs := w.requestsSince(from); len(reqs) != 0 {
				t.Errorf("requests %q with a bad id", reqs)
			}
			if _, err := os.Stat(filepath.Join(r.ws, ".gcloop")); err == nil {
				t.Error("outputs were written with a bad id")
			}
		})
	}
}

package action_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/action"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

// inProcess runs the Runner in this process against the world's fake, as
// `gcloop run` wires it; inputs are the action's inputs by name.
func (w *world) inProcess(t *testing.T, ev round.Event, inputs map[string]string, files map[string]string, dry bool) (*action.Result, string, error) {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := map[string]string{"token": token, "config": ".github/gcloop.yml", "timeout": "1m"}
	for k, v := range inputs {
		in[k] = v
	}
	opts, err := action.Gather(func(name string) string { return in[name] })
	if err != nil {
		t.Fatal(err)
	}
	ev.Owner, ev.Repo, ev.ServerURL = owner, repo, "https://github.com"
	var logBuf, out bytes.Buffer
	lg := action.NewLog(&logBuf, true)
	lg.LogInputs(opts)
	r := &action.Runner{Opts: opts, Ctx: &action.Context{Event: ev, Workspace: ws}, Out: &out, Log: lg,
		Now: func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }}
	if !dry {
		r.GH = w.gh.Client(token)
		r.Plain = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	res, err := r.Run(context.Background())
	lg.End()
	return res, logBuf.String(), err
}

func (w *world) prEvent() round.Event {
	return round.Event{Name: "pull_request", SHA: w.head, RunID: 50, RunAttempt: 1, Actor: "dev",
		Pull: &round.Pull{Number: w.pr, HeadSHA: w.head, HeadRef: "feature/cart", HeadRepoID: 100, BaseRepoID: 100, BaseRef: "main"}}
}

func TestRunnerInProcess(t *testing.T) {
	t.Parallel()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	junit, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "coverage", "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	lcov, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "coverage", "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a live round on a pull request", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		res, log, err := w.inProcess(t, w.prEvent(), map[string]string{"evidence": "review-results.json"},
			map[string]string{"review-results.json": string(review)}, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Outcome != decide.Fix || len(res.Issues) != 2 || res.CommentURL == "" || res.Check == nil {
			t.Errorf("outcome %s, issues %v, comment %q, check %v", res.Decision.Outcome, res.Issues, res.CommentURL, res.Check)
		}
		mustContain(t, "log", log, "::group::gcloop: inputs", "gcloop: evidence review-results.json: read as review", "gcloop: issues: opened #")
		if len(res.EvidenceFiles) != 1 || res.EvidenceFiles[0] != "review-results.json" {
			t.Errorf("evidence files %v", res.EvidenceFiles)
		}
	})

	t.Run("a dry run outside a pull request writes nothing", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		from := len(w.gh.Requests())
		res, log, err := w.inProcess(t, round.Event{Name: "push", SHA: w.head}, map[string]string{"evidence": "review-results.json", "dry-run": "true"},
			map[string]string{"review-results.json": string(review), ".github/gcloop.yml": "review:\n  max_rounds: 5\n"}, true)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.MaxRounds != 5 || len(res.Planned) != 2 || !strings.Contains(res.Report, "gcloop:report review") {
			t.Errorf("max rounds %d (the workspace configuration), %d planned, report %q", res.Decision.MaxRounds, len(res.Planned), res.Report)
		}
		mustContain(t, "log", log, "effects: none, a dry run writes nothing to GitHub",
			"check run gcloop / review: action_required, planned (a dry run writes none)")
		if strings.Contains(log, "written (id") {
			t.Errorf("the dry run's log says a check run was written:\n%s", log)
		}
		if n := len(w.gh.Requests()) - from; n != 0 {
			t.Errorf("a dry run made %d requests", n)
		}
	})

	t.Run("a workflow_run round reads the run's artifacts", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
		w.gh.AddArtifact(owner, repo, runID, "review", ghfake.Zip(t, map[string][]byte{"review-results.json": review, "notes.txt": []byte("hello")}))
		run := &github.WorkflowRun{ID: github.Int64(runID), HeadSHA: github.String(w.head), HeadBranch: github.String("feature/cart"),
			HeadRepository: &github.Repository{ID: github.Int64(100), FullName: github.String(owner + "/" + repo)},
			PullRequests: []*github.PullRequest{{Number: github.Int(w.pr), Head: &github.PullRequestBranch{SHA: github.String(w.head), Ref: github.String("feature/cart"),
				Repo: &github.Repository{ID: github.Int64(100)}}}}}
		res, log, err := w.inProcess(t, round.Event{Name: "workflow_run", Run: run, RunID: 51}, map[string]string{"artifacts": "review"}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Outcome != decide.Fix || len(res.Issues) != 2 {
			t.Errorf("outcome %s, issues %v", res.Decision.Outcome, res.Issues)
		}
		mustContain(t, "log", log, "artifacts of workflow run", "artifact review/notes.txt: not a format gcloop reads, passed over",
			"evidence artifact review/review-results.json: read as review")
	})

	t.Run("a workflow_run round refuses an unsafe artifact with a neutral check", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
		w.gh.AddArtifact(owner, repo, runID, "review", ghfake.Zip(t, map[string][]byte{"../review-results.json": review}))
		run := &github.WorkflowRun{ID: github.Int64(runID), HeadSHA: github.String(w.head), HeadBranch: github.String("feature/cart"),
			HeadRepository: &github.Repository{ID: github.Int64(100), FullName: github.String(owner + "/" + repo)},
			PullRequests: []*github.PullRequest{{Number: github.Int(w.pr), Head: &github.PullRequestBranch{SHA: github.String(w.head), Ref: github.String("feature/cart"),
				Repo: &github.Repository{ID: github.Int64(100)}}}}}
		res, log, err := w.inProcess(t, round.Event{Name: "workflow_run", Run: run, RunID: 52}, map[string]string{"loop": "review", "artifacts": "review"}, nil, false)
		if err != nil {
			t.Fatalf("a refused artifact is a round, not a failure: %v", err)
		}
		if res.Decision.Verdict != round.VerdictRefused || res.Check == nil || res.Check.Conclusion != "neutral" || len(res.Issues) != 0 {
			t.Errorf("verdict %s, check %+v, issues %v; want a neutral refusal", res.Decision.Verdict, res.Check, res.Issues)
		}
		mustContain(t, "report", res.Report, `**Why:** ⚠️ the evidence was refused, nothing was judged: artifact "review": entry "../review-results.json": ".." in the path`)
		mustContain(t, "log", log, "artifacts refused")
	})

	t.Run("a coverage round with a baseline", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		files := map[string]string{"lcov.info": string(lcov), "junit.xml": string(junit), "base.xml": string(junit)}
		for k, v := range w.gh.TreeFiles(owner, repo, w.head) {
			files[k] = string(v)
		}
		res, _, err := w.inProcess(t, w.prEvent(), map[string]string{"evidence": "lcov.info\njunit.xml", "baseline": "base.xml"}, files, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Loop != decide.Coverage || res.Commit != "" {
			t.Errorf("loop %s commit %q; want a coverage round with nothing to push", res.Decision.Loop, res.Commit)
		}
		_, _, err = w.inProcess(t, w.prEvent(), map[string]string{"evidence": "lcov.info", "baseline": "../outside.xml"}, files, false)
		if err != nil {
			t.Fatalf("a baseline outside the workspace is a refusal of the change set, not a failure: %v", err)
		}
	})

	t.Run("a comment runs the command", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		id := w.gh.AddComment(owner, repo, w.pr, "dev", "/gc help")
		ev := round.Event{Name: "issue_comment", Comment: &github.IssueCommentEvent{Action: github.String("created"),
			Comment: &github.IssueComment{ID: github.Int64(id), Body: github.String("/gc help"), User: &github.User{Login: github.String("dev"), Type: github.String("User")}},
			Issue:   &github.Issue{Number: github.Int(w.pr), PullRequestLinks: &github.PullRequestLinks{URL: github.String("u")}}}}
		res, _, err := w.inProcess(t, ev, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.Command == nil || res.Command.Reply == "" {
			t.Errorf("command result %+v, want the help reply", res.Command)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		if _, _, err := w.inProcess(t, round.Event{Name: "push"}, map[string]string{"evidence": "r.json"}, map[string]string{"r.json": string(review)}, false); !errors.Is(err, action.ErrNoPull) {
			t.Errorf("a live push round: %v, want ErrNoPull", err)
		}
		if _, _, err := w.inProcess(t, round.Event{Name: "push"}, map[string]string{"artifacts": "review", "dry-run": "true"}, nil, true); err == nil || !strings.Contains(err.Error(), "input artifacts") {
			t.Errorf("artifacts in a dry run: %v", err)
		}
		if _, _, err := w.inProcess(t, round.Event{Name: "push"}, map[string]string{"config": "../x.yml", "dry-run": "true"}, nil, true); err == nil || !strings.Contains(err.Error(), "config") {
			t.Errorf("a configuration outside the workspace: %v", err)
		}
	})
}

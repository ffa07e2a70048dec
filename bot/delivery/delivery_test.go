package delivery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
)

const (
	owner = "octo"
	repo  = "shop"
	token = "ghs_installationtoken"
	bot   = "gcloop-app[bot]"
)

// memLog keeps the events appended.
type memLog struct {
	mu     sync.Mutex
	events []event.Event
}

func (l *memLog) Append(_ context.Context, e event.Event) (event.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.ID = int64(len(l.events) + 1)
	l.events = append(l.events, e)
	return e, nil
}

func (l *memLog) types() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		out = append(out, e.Type)
	}
	return out
}

type world struct {
	gh         *ghfake.Server
	h          *delivery.Handler
	log        *memLog
	pr         int
	head, base string
}

func newWorld(t *testing.T, config string) *world {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, bot, true)
	base := gh.AddCommit(owner, repo, "main", map[string][]byte{"README.md": []byte("# shop\n"), ".github/gcloop.yml": []byte(config)})
	head := gh.AddCommit(owner, repo, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}, base)
	pr := gh.AddPull(owner, repo, ghfake.PullSpec{Title: "Cart", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(config))
	log := &memLog{}
	h := &delivery.Handler{Clients: ghfake.Installation{Server: gh, ID: 42, Token: token}, Login: bot, Log: log, Timeout: time.Minute,
		Plain: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		Now:   func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }}
	return &world{gh: gh, h: h, log: log, pr: pr, head: head, base: base}
}

// comment adds a comment by author to the pull request and returns its id
// and the body of its issue_comment delivery.
func (w *world) comment(t *testing.T, author, body string) (int64, []byte) {
	t.Helper()
	id := w.gh.AddComment(owner, repo, w.pr, author, body)
	return id, payload(t, map[string]any{"action": "created", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender":  map[string]any{"login": author},
		"issue":   map[string]any{"number": w.pr, "pull_request": map[string]any{"url": "https://api.github.com/repos/octo/shop/pulls/1"}},
		"comment": map[string]any{"id": id, "body": body, "user": map[string]any{"login": author, "type": "User"}}})
}

func (w *world) repoJSON() map[string]any {
	return map[string]any{"id": 100, "name": repo, "full_name": owner + "/" + repo, "html_url": "https://github.com/" + owner + "/" + repo,
		"owner": map[string]any{"login": owner}}
}

func payload(t *testing.T, v map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// workflowRun is a completed workflow_run delivery of a run with the
// review artifact.
func (w *world) workflowRun(t *testing.T) []byte {
	t.Helper()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	return w.workflowRunWith(t, review)
}

// workflowRunWith is a completed workflow_run delivery of a run on the
// pull request's head whose review artifact is review.
func (w *world) workflowRunWith(t *testing.T, review []byte) []byte {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review-results", ghfake.Zip(t, map[string][]byte{"review-results.json": review}))
	return payload(t, map[string]any{"action": "completed", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev"},
		"workflow_run": map[string]any{"id": runID, "run_attempt": 1, "head_sha": w.head, "head_branch": "feature/cart", "status": "completed", "conclusion": "success",
			"head_repository": map[string]any{"id": 100, "full_name": owner + "/" + repo},
			"pull_requests":   []any{map[string]any{"number": w.pr, "head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}})
}

func mutations(gh *ghfake.Server, from int) []string {
	var out []string
	for _, r := range gh.Requests()[from:] {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func TestWorkflowRunRunsARoundFromTheArtifacts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	body := w.workflowRun(t)
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", body); err != nil {
		t.Fatal(err)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "gcloop review — FIX") || comments[0].Author != bot {
		t.Fatalf("comments %+v, want the report by the App", comments)
	}
	if n := len(w.gh.CheckRuns(owner, repo)); n != 1 {
		t.Errorf("%d check runs, want 1", n)
	}
	if diff := cmp.Diff([]string{event.Round, event.Decision, event.Comment, event.Issue, event.Check}, w.log.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The same delivery again (a redelivery): the same round, nothing written.
	from := len(w.gh.Requests())
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", body); err != nil {
		t.Fatal(err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("a redelivery wrote %v", m)
	}
}

func TestCommandsAndClosedPullRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	w.gh.SetPermission(owner, repo, "lead", "write")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.workflowRun(t)); err != nil {
		t.Fatal(err)
	}
	_, comment := w.comment(t, "lead", "/gc abort")
	if err := w.h.Handle(context.Background(), "d-2", "issue_comment", comment); err != nil {
		t.Fatal(err)
	}
	if got := w.log.types(); got[len(got)-1] != event.Command {
		t.Errorf("events %v, want a command last", got)
	}
	// The command named no loop: its event names the one it went to.
	w.log.mu.Lock()
	for _, e := range w.log.events {
		if e.Loop != "review" {
			t.Errorf("a %s event names loop %q, want review", e.Type, e.Loop)
		}
	}
	w.log.mu.Unlock()
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("issue #%d is %s after /gc abort (the only configured loop)", is.Number, is.State)
		}
	}
	closed := payload(t, map[string]any{"action": "closed", "number": w.pr, "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"pull_request": map[string]any{"number": w.pr, "state": "closed"}})
	from := len(w.gh.Requests())
	if err := w.h.Handle(context.Background(), "d-3", "pull_request", closed); err != nil {
		t.Fatal(err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("closing a PR whose issues are closed wrote %v", m)
	}
}

func TestDeliveriesWithNothingToDo(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  max_rounds: 3\n")
	tests := []struct {
		name, event string
		body        map[string]any
	}{
		{"ping", "ping", map[string]any{"zen": "Keep it logically awesome.", "hook_id": 1}},
		{"a run that is not completed", "workflow_run", map[string]any{"action": "requested", "workflow_run": map[string]any{"id": 1}}},
		{"a comment on an issue", "issue_comment", map[string]any{"action": "created", "issue": map[string]any{"number": 9}, "comment": map[string]any{"body": "/gc retry"}}},
		{"an edited comment", "issue_comment", map[string]any{"action": "edited", "issue": map[string]any{"number": 1, "pull_request": map[string]any{"url": "u"}}}},
		{"a pull request opened", "pull_request", map[string]any{"action": "opened", "number": 1}},
		{"a run of a repository whose loops read no artifacts", "workflow_run", map[string]any{"action": "completed", "installation": map[string]any{"id": 42},
			"repository": w.repoJSON(), "workflow_run": map[string]any{"id": 5, "head_sha": w.head}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := len(w.gh.Requests())
			err := w.h.Handle(context.Background(), "d", tt.event, payload(t, tt.body))
			if !errors.Is(err, delivery.ErrIgnored) {
				t.Errorf("Handle = %v, want ErrIgnored", err)
			}
			if m := mutations(w.gh, from); len(m) != 0 {
				t.Errorf("wrote %v", m)
			}
		})
	}
	if err := w.h.Handle(context.Background(), "d", "issue_comment", []byte("{")); err == nil || !strings.Contains(err.Error(), "issue_comment payload") {
		t.Errorf("a broken payload: %v", err)
	}
}

// A run older than the loop's last judged one, delivered after it (a slow
// run): recorded in the feed with its loop and why, and ignored.
func TestAnOlderRunDeliveredLateIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	older, newer := w.workflowRun(t), w.workflowRun(t)
	if err := w.h.Handle(context.Background(), "d-new", "workflow_run", newer); err != nil {
		t.Fatal(err)
	}
	from, events := len(w.gh.Requests()), len(w.log.types())
	err := w.h.Handle(context.Background(), "d-old", "workflow_run", older)
	if !errors.Is(err, delivery.ErrIgnored) || !strings.Contains(err.Error(), "superseded") {
		t.Fatalf("Handle = %v, want ErrIgnored saying superseded", err)
	}
	if m := mutations(w.gh, from); len(m) != 0 {
		t.Errorf("an older run wrote %v", m)
	}
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	got := w.log.events[events:]
	last := got[len(got)-1]
	var data map[string]any
	if err := json.Unmarshal(last.Data, &data); err != nil {
		t.Fatal(err)
	}
	if last.Type != event.Round || last.Loop != "review" || !strings.Contains(fmt.Sprint(data["ignored"]), "older than run") {
		t.Errorf("last event %s (loop %q) %v; want a round of review saying why it was ignored", last.Type, last.Loop, data)
	}
}

// An effect GitHub refuses for a while (a 502 on the check run) fails the
// delivery as transient, so the workers try it again; the round carried out
// again does nothing twice — one report, one check run, the same issues.
func TestARoundWhoseEffectFailedTransientlyIsTriedAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/check-runs", Status: http.StatusBadGateway, Times: 5})
	body := w.workflowRun(t)
	err := w.h.Handle(context.Background(), "d-1", "workflow_run", body)
	if err == nil || !ghclient.Transient(err) || !strings.Contains(err.Error(), "check run") {
		t.Fatalf("first attempt: %v; want a transient error naming the check run", err)
	}
	issues := len(w.gh.Issues(owner, repo))
	for attempt := 2; ; attempt++ {
		if err = w.h.Handle(context.Background(), "d-1", "workflow_run", body); err == nil {
			break
		}
		if attempt == 6 {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	if n := len(w.gh.Comments(owner, repo, w.pr)); n != 1 {
		t.Errorf("%d report comments, want 1", n)
	}
	if runs := w.gh.CheckRuns(owner, repo); len(runs) != 1 || runs[0].Conclusion != "action_required" {
		t.Errorf("check runs %+v, want one action_required", runs)
	}
	if n := len(w.gh.Issues(owner, repo)); n != issues {
		t.Errorf("%d issues after the retries, %d after the first attempt: opened twice", n, issues)
	}
}

// A /gc abort whose check run GitHub refused for a while fails as
// transient; tried again, the command finds itself applied and settles
// the check run and the issues only — no second reaction or state edit.
func TestAnAbortWhoseEffectFailedIsCarriedOutOnTheRetry(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	w.gh.SetPermission(owner, repo, "lead", "write")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.workflowRun(t)); err != nil {
		t.Fatal(err)
	}
	id, comment := w.comment(t, "lead", "/gc abort")
	w.gh.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", Status: http.StatusBadGateway, Times: 5})
	err := w.h.Handle(context.Background(), "d-2", "issue_comment", comment)
	if err == nil || !ghclient.Transient(err) || !delivery.WasLogged(err) {
		t.Fatalf("first attempt: %v; want a transient error the handler logged", err)
	}
	reactions := len(w.gh.Reactions(owner, repo, id))
	for attempt := 2; ; attempt++ {
		if err = w.h.Handle(context.Background(), "d-2", "issue_comment", comment); err == nil {
			break
		}
		if attempt == 6 {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	runs := w.gh.CheckRuns(owner, repo)
	if len(runs) != 1 || runs[0].Conclusion != "failure" {
		t.Errorf("check runs %+v, want the one settled as failure (aborted)", runs)
	}
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("issue #%d is %s after /gc abort", is.Number, is.State)
		}
	}
	if n := len(w.gh.Reactions(owner, repo, id)); n != reactions {
		t.Errorf("%d reactions after the retries, %d after the first attempt", n, reactions)
	}
}

// A converged round whose closing of the fix issues GitHub refused for a
// while fails as transient, and keeps the issues in its record; tried
// again, it closes them — none is left open when the loop has converged.
func TestAConvergedRoundWhoseIssuesFailedToCloseClosesThemOnTheRetry(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.workflowRun(t)); err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State == "open" {
			opened++
		}
	}
	if opened == 0 {
		t.Fatal("round 1 opened no fix issue")
	}
	w.head = w.gh.AddCommit(owner, repo, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart // fixed\n")}, w.head)
	w.gh.MovePullHead(owner, repo, w.pr, w.head)
	body := w.workflowRunWith(t, []byte(`{"review_score": 9, "gc_signal": "CONVERGED", "findings": []}`))
	w.gh.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", Status: http.StatusBadGateway, Times: 5})
	err := w.h.Handle(context.Background(), "d-2", "workflow_run", body)
	if err == nil || !ghclient.Transient(err) || !strings.Contains(err.Error(), "fix issues") {
		t.Fatalf("first attempt: %v; want a transient error naming the fix issues", err)
	}
	for attempt := 2; ; attempt++ {
		if err = w.h.Handle(context.Background(), "d-2", "workflow_run", body); err == nil {
			break
		}
		if attempt == 6 {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("issue #%d is %s after the loop converged", is.Number, is.State)
		}
	}
	if comments := w.gh.Comments(owner, repo, w.pr); len(comments) != 1 || !strings.Contains(comments[0].Body, "CONVERGED") {
		t.Errorf("comments %+v; want the one report, converged", comments)
	}
}

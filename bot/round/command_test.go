package round_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

// comment is an issue_comment event of user on the world's PR.
func (w *world) comment(user, body string) round.Event {
	id := w.gh.AddComment(owner, repo, w.pr, user, body)
	return round.Event{Name: "issue_comment", Comment: &github.IssueCommentEvent{
		Action:  github.String("created"),
		Comment: &github.IssueComment{ID: github.Int64(id), Body: github.String(body), User: &github.User{Login: github.String(user), Type: github.String("User")}},
		Issue:   &github.Issue{Number: github.Int(w.pr), PullRequestLinks: &github.PullRequestLinks{URL: github.String("https://api.github.com/repos/octo/shop/pulls/1")}},
	}}
}

func TestEngineCommands(t *testing.T) {
	t.Parallel()
	const (
		eyes     = "POST /repos/octo/shop/issues/comments/ID/reactions"
		reread   = "GET /repos/octo/shop/issues/comments/ID"
		swap     = "GET /repos/octo/shop/issues/comments/REPORT"
		pull     = "GET /repos/octo/shop/pulls/1"
		comments = "GET /repos/octo/shop/issues/1/comments"
		config   = "GET /repos/octo/shop/contents/.github/gcloop.yml"
		perm     = "GET /repos/octo/shop/collaborators/USER/permission"
		edit     = "PATCH /repos/octo/shop/issues/comments/REPORT"
		reply    = "POST /repos/octo/shop/issues/1/comments"
		issues   = "GET /repos/octo/shop/issues"
		closeIt  = "PATCH /repos/octo/shop/issues/"
		note     = "POST /repos/octo/shop/issues/"
		check    = "PATCH /repos/octo/shop/check-runs/CHECK"
	)
	tests := []struct {
		name, user, level, body string
		refused                 bool
		status                  string
		requests                []string
	}{
		{"a writer approves", "lead", "write", "/gc approve", false, decide.StateApproved,
			[]string{reread, pull, comments, eyes, config, perm, swap, edit, issues, note + "2/comments", closeIt + "2", note + "3/comments", closeIt + "3", note + "4/comments", closeIt + "4", check, eyes}},
		{"a writer aborts", "lead", "write", "/gc abort", false, decide.StateAborted,
			[]string{reread, pull, comments, eyes, config, perm, swap, edit, issues, note + "2/comments", closeIt + "2", note + "3/comments", closeIt + "3", note + "4/comments", closeIt + "4", check, eyes}},
		{"a reader is refused", "dev", "read", "/gc approve", true, "",
			[]string{reread, pull, comments, eyes, config, perm, comments, reply, eyes}},
		{"help is answered", "dev", "read", "/gc help", false, "",
			[]string{reread, eyes, config, comments, reply, eyes}},
		{"a /gc line that is no command gets the help, whoever wrote it", "dev", "read", "/gc halp", true, "",
			[]string{reread, eyes, config, comments, reply, eyes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.SetPermission(owner, repo, tt.user, tt.level)
			first, _ := w.run(t, evidence(t, "review"), round.Options{Comment: true, Check: true}, 7)
			if len(first.Issues) != 3 {
				t.Fatalf("the first round opened issues %v, want 3", first.Issues)
			}
			ev := w.comment(tt.user, tt.body)
			from := len(w.gh.Requests())
			res, err := w.engine(ev, round.Options{ID: "review", Check: true}).Command(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Command == nil || res.Command.Refused != tt.refused {
				t.Fatalf("command result %+v, want refused %t", res.Command, tt.refused)
			}
			if tt.status != "" && res.Command.State.Status != tt.status {
				t.Errorf("state status %q, want %q", res.Command.State.Status, tt.status)
			}
			got := w.since(from)
			report := w.gh.Comments(owner, repo, w.pr)[0].ID
			runs := w.gh.CheckRuns(owner, repo)
			r := strings.NewReplacer("comments/"+itoa(ev.Comment.GetComment().GetID()), "comments/ID", "/"+tt.user+"/", "/USER/", "/"+itoa(report), "/REPORT")
			for i := range got {
				got[i] = r.Replace(got[i])
				if len(runs) > 0 {
					got[i] = strings.Replace(got[i], "check-runs/"+itoa(runs[0].ID), "check-runs/CHECK", 1)
				}
			}
			if diff := cmp.Diff(tt.requests, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestEngineRetryDispatchesTheNextRound(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "dispatched", true: "dispatch refused"}[fail], func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  dispatch: coverage.yml\n"))
			w.gh.SetPermission(owner, repo, "lead", "write")
			if fail {
				w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", Status: 422, Message: "Workflow does not have 'workflow_dispatch' trigger"})
			}
			w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
			res, err := w.engine(w.comment("lead", "/gc retry"), round.Options{ID: "review"}).Command(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ds := w.gh.Dispatches(owner, repo)
			if fail {
				if !res.Command.Refused || !strings.Contains(res.Command.Reply, "dispatch coverage.yml on feature/cart: validation failed: Workflow does not have") || len(ds) != 0 {
					t.Errorf("refused %t, reply %q, %d dispatches; want a refusal that says why", res.Command.Refused, res.Command.Reply, len(ds))
				}
				return
			}
			if res.Command.Refused || !res.Command.Dispatched || len(ds) != 1 || ds[0].Ref != "feature/cart" || ds[0].Inputs["pr"] != "1" {
				t.Errorf("refused %t, dispatched %t, dispatches %+v; want coverage.yml on feature/cart for #1", res.Command.Refused, res.Command.Dispatched, ds)
			}
		})
	}
}

func TestEngineCommandGuards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		opts       round.Options
		round      bool // run a round first
		wantNote   string
		wantReply  string
	}{
		{name: "a comment without a command", body: "looks good", opts: round.Options{ID: "review"}, wantNote: "no command run"},
		{name: "a command for another loop", body: "/gc retry coverage", opts: round.Options{ID: "review"}, wantNote: "the command is for loop coverage; this workflow runs review"},
		{name: "a loop without a report", body: "/gc approve", opts: round.Options{ID: "review"}, wantReply: "review"},
		{name: "no loop named", body: "/gc approve", wantReply: "this workflow runs no fixed loop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.SetPermission(owner, repo, "lead", "admin")
			res, err := w.engine(w.comment("lead", tt.body), tt.opts).Command(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes %q, want %q", res.Notes, tt.wantNote)
			}
			if tt.wantReply != "" && (res.Command == nil || !res.Command.Refused || !strings.Contains(res.Command.Reply, tt.wantReply)) {
				t.Errorf("command %+v, want a refusal saying %q", res.Command, tt.wantReply)
			}
		})
	}
}

func TestEngineRoundOfASettledLoop(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"approve", "abort"} {
		t.Run(verb, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.SetPermission(owner, repo, "lead", "write")
			w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
			if _, err := w.engine(w.comment("lead", "/gc "+verb), round.Options{ID: "review"}).Command(context.Background()); err != nil {
				t.Fatal(err)
			}
			// A new head after the loop was settled: judged, shown, no fix round.
			w.head = w.gh.AddCommit(owner, repo, "feature/cart", w.gh.TreeFiles(owner, repo, w.head), w.head)
			res, reqs := w.run(t, evidence(t, "review"), round.Options{Comment: true}, 8)
			d := res.Decision
			want := map[string]string{"approve": "CONVERGE (approved)", "abort": "ABORTED"}[verb]
			if d.Verdict != want || len(d.Tasks) != 0 || len(res.Issues) != 0 {
				t.Errorf("verdict %q, %d tasks, issues %v; want %q and no fix round", d.Verdict, len(d.Tasks), res.Issues, want)
			}
			for _, r := range reqs {
				if r == "POST /repos/octo/shop/issues" {
					t.Errorf("a settled loop opened an issue: %v", reqs)
				}
			}
		})
	}
}

func TestEngineAuditEscalatesWhenItsTasksCannotBeOpened(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues", Status: 403, Message: "Resource not accessible by integration"})
	res, _ := w.run(t, evidence(t, "audit"), round.Options{Comment: true}, 7)
	if d := res.Decision; d.Outcome != decide.Escalate || !strings.Contains(strings.Join(d.Reasons, "\n"), "the revision tasks could not be created") {
		t.Errorf("outcome %s, reasons %q; want an escalation at once", d.Outcome, d.Reasons)
	}
}

func TestEngineClosedPullRequestClosesTheFixIssues(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first, _ := w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
	e := w.engine(round.Event{Name: "pull_request"}, round.Options{})
	closed, err := e.Closed(context.Background(), w.pr, "review")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Issues, closed); diff != "" {
		t.Errorf("closed (-opened +closed):\n%s", diff)
	}
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("issue #%d is %s", is.Number, is.State)
		}
	}
	// Again: nothing open, nothing written.
	from := len(w.gh.Requests())
	if closed, err := e.Closed(context.Background(), w.pr, "review"); err != nil || len(closed) != 0 {
		t.Errorf("second close: %v, %v", closed, err)
	}
	if n := mutations(w.since(from)); n != 0 {
		t.Errorf("second close made %d mutations", n)
	}
	// A loop that never ran: one request.
	from = len(w.gh.Requests())
	if closed, err := e.Closed(context.Background(), w.pr, "coverage"); err != nil || closed != nil || len(w.since(from)) != 1 {
		t.Errorf("unknown loop: %v, %v, %v", closed, err, w.since(from))
	}
}

func TestEngineCommandOfACommentWithoutItsIssue(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ev := w.comment("lead", "/gc retry")
	ev.Comment.Issue = nil // "issue": null in the payload
	res, err := w.engine(ev, round.Options{ID: "review"}).Command(context.Background())
	if err != nil || res.Command != nil {
		t.Errorf("Command = %+v, %v; want no command run", res, err)
	}
}

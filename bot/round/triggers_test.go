package round_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

// decideOn runs a round of the world's PR started by ev and returns it
// with the requests it made.
func (w *world) decideOn(t *testing.T, ev round.Event, loop string, o round.Options) (*round.Result, []string, error) {
	t.Helper()
	from := len(w.gh.Requests())
	e := w.engine(ev, o)
	pull, err := e.Pull(context.Background())
	if err != nil {
		return nil, w.since(from), err
	}
	res := &round.Result{}
	err = e.Run(context.Background(), round.Input{Pull: pull, Evidence: evidence(t, loop)}, res)
	return res, w.since(from), err
}

func TestEngineFindsThePullRequestOfEachTrigger(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	run := &github.WorkflowRun{ID: github.Int64(runID), HeadSHA: github.String(w.head), HeadBranch: github.String("feature/cart"),
		HeadRepository: &github.Repository{ID: github.Int64(100), FullName: github.String(owner + "/" + repo)}}
	fork := &github.WorkflowRun{ID: github.Int64(runID), HeadSHA: github.String(w.head), HeadBranch: github.String("feature/cart"),
		HeadRepository: &github.Repository{ID: github.Int64(999), FullName: github.String("evil/shop")}}
	tests := []struct {
		name    string
		ev      round.Event
		want    []string // the requests that find the pull request
		wantErr error
	}{
		{"pull_request carries it", round.Event{Name: "pull_request", Pull: w.pull()}, nil, nil},
		{"workflow_dispatch names it", round.Event{Name: "workflow_dispatch", DispatchPR: w.pr, SHA: w.head},
			[]string{"GET /repos/octo/shop/pulls/1"}, nil},
		{"workflow_run of a fork lists none: found by its head", round.Event{Name: "workflow_run", Run: run},
			[]string{"GET /repos/octo/shop/commits/HEAD/pulls", "GET /repos/octo/shop/pulls/1"}, nil},
		{"workflow_run of another repository with the same head is not its", round.Event{Name: "workflow_run", Run: fork},
			[]string{"GET /repos/octo/shop/commits/HEAD/pulls"}, round.ErrNoPull},
		{"push names none", round.Event{Name: "push"}, nil, round.ErrNoPull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := len(w.gh.Requests())
			pull, err := w.engine(tt.ev, round.Options{}).Pull(context.Background())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Pull: %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && (pull == nil || pull.Number != w.pr || pull.HeadSHA != w.head) {
				t.Errorf("pull = %+v, want #%d at %s", pull, w.pr, w.head)
			}
			got := w.since(from)
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], w.head, "HEAD")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEngineDryRunRecordsAndCallsNothing(t *testing.T) {
	t.Parallel()
	rec := &round.Recorder{}
	ev := &round.Event{Name: "workflow_dispatch", Owner: owner, Repo: repo, DispatchPR: 3, SHA: strings.Repeat("c", 40)}
	e := &round.Engine{GH: rec, Event: ev, Opts: round.Options{Comment: true, Check: true}, Now: func() time.Time { return clock }}
	pull, err := e.Pull(context.Background())
	if err != nil || pull != nil {
		t.Fatalf("Pull offline = %v, %v; want nil, nil (unknown)", pull, err)
	}
	res := &round.Result{}
	if err := e.Run(context.Background(), round.Input{Evidence: evidence(t, "review")}, res); err != nil {
		t.Fatal(err)
	}
	if res.Decision.Outcome != decide.Fix || len(res.Planned) == 0 || res.Report == "" || res.Check == nil {
		t.Errorf("dry run: outcome %s, %d issues planned, report %d bytes, check %v", res.Decision.Outcome, len(res.Planned), len(res.Report), res.Check)
	}
	var kinds []string
	for _, w := range rec.Writes {
		kinds = append(kinds, w.Kind)
	}
	// Without a pull request no comment is written; the issues are planned
	// for a stand-in.
	if diff := cmp.Diff([]string{"issues", "check"}, kinds); diff != "" {
		t.Errorf("recorded writes (-want +got):\n%s", diff)
	}
}

func TestEngineWithTheAPIDownDecidesOnTheEvidenceAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 503, Message: "unavailable"})
	res, reqs, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull()}, "review", round.Options{Comment: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Status != decide.StatusPartial || res.APIError == nil {
		t.Errorf("status %s, API error %v; want partial with the error", res.Decision.Status, res.APIError)
	}
	if n := mutations(reqs); n != 0 {
		t.Errorf("%d mutations with the API down: %v", n, reqs)
	}
}

func TestEngineRefusesASupersededReRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if _, _, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull(), RunID: 20, RunAttempt: 1}, "review", round.Options{Comment: true}); err != nil {
		t.Fatal(err)
	}
	_, reqs, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull(), RunID: 10, RunAttempt: 2}, "review", round.Options{Comment: true})
	var nd *decide.NoDecisionError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), "superseded") {
		t.Fatalf("re-run of an older run: %v, want a superseded no-decision", err)
	}
	if n := mutations(reqs); n != 0 {
		t.Errorf("%d mutations by a superseded re-run: %v", n, reqs)
	}
}

func TestEngineCutShortIsPartial(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.Delay("POST /repos/{owner}/{repo}/check-runs", 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	e := w.engine(round.Event{Name: "pull_request", Pull: w.pull()}, round.Options{Comment: true, Check: true, Timeout: time.Minute})
	res := &round.Result{}
	if err := e.Run(ctx, round.Input{Pull: w.pull(), Evidence: evidence(t, "review")}, res); err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if d.Status != decide.StatusPartial || !strings.Contains(strings.Join(d.Notes, "\n"), "cut short by the 1m0s timeout") {
		t.Errorf("status %s, notes %q; want partial, cut short", d.Status, d.Notes)
	}
	if len(w.gh.Comments(owner, repo, w.pr)) != 0 {
		t.Errorf("a report comment was written after the deadline")
	}
}

func TestEngineDryRunOfACommand(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rec := &round.Recorder{}
	ev := w.comment("lead", "/gc approve review")
	ev.Owner, ev.Repo = owner, repo
	from := len(w.gh.Requests())
	e := &round.Engine{GH: rec, Event: &ev, Now: func() time.Time { return clock }}
	res, err := e.Command(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "dry run: would check @lead's permission and run /gc approve on loop review") {
		t.Errorf("notes %q", res.Notes)
	}
	if len(rec.Writes) != 1 || rec.Writes[0].Kind != "reaction" || len(w.gh.Requests()) != from {
		t.Errorf("writes %+v, %d requests; want the reaction recorded and nothing sent", rec.Writes, len(w.gh.Requests())-from)
	}
}

func TestEngineCapsTheIssuesOfARound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	max := 1
	res, _, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull()}, "review",
		round.Options{Comment: true, Overrides: config.Overrides{MaxIssues: &max}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Issues) != 1 || !strings.Contains(strings.Join(res.Decision.Notes, "\n"), "max-issues 1: 2 more task(s) got no fix issue") {
		t.Errorf("issues %v, notes %q; want one issue and the others listed", res.Issues, res.Decision.Notes)
	}
}

func TestEngineDryRunOnAPullRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, loop := range []string{"review", "coverage"} {
		rec := &round.Recorder{}
		ev := &round.Event{Name: "pull_request", Owner: owner, Repo: repo, Pull: w.pull(), SHA: w.head}
		e := &round.Engine{GH: rec, Event: ev, Opts: round.Options{Comment: true, Check: true}, Now: func() time.Time { return clock }}
		res := &round.Result{}
		if err := e.Run(context.Background(), round.Input{Pull: w.pull(), Evidence: evidence(t, loop), Workspace: t.TempDir()}, res); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, w := range rec.Writes {
			kinds = append(kinds, w.Kind)
		}
		want := []string{"issues", "check", "comment"}
		if loop == "coverage" {
			want = []string{"check", "comment"}
			if !strings.Contains(strings.Join(res.Decision.Notes, "\n"), "dry run: the workspace changes are judged against the PR head, which needs the API") {
				t.Errorf("coverage dry run notes %q", res.Decision.Notes)
			}
		}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Errorf("%s: recorded writes (-want +got):\n%s", loop, diff)
		}
	}
	// Offline, the pull request of a workflow run is unknown.
	run := &github.WorkflowRun{ID: github.Int64(5), HeadSHA: github.String(w.head)}
	e := &round.Engine{GH: &round.Recorder{}, Event: &round.Event{Name: "workflow_run", Run: run}}
	if p, err := e.Pull(context.Background()); p != nil || err != nil {
		t.Errorf("offline workflow_run pull = %v, %v; want nil, nil", p, err)
	}
}

func TestEngineConfiguration(t *testing.T) {
	t.Parallel()
	t.Run("a configuration that does not parse stops the round", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_round: 3\n"))
		_, reqs, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull()}, "review", round.Options{Comment: true})
		var pe *parse.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), `unknown key "max_round"`) {
			t.Fatalf("err = %v, want the parse error", err)
		}
		if mutations(reqs) != 0 {
			t.Errorf("mutations with a bad configuration: %v", reqs)
		}
	})
	t.Run("a configuration GitHub cannot serve is a partial round", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.gh.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/contents/{path}", Status: 500, Message: "boom"})
		res, reqs, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull()}, "review", round.Options{Comment: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Status != decide.StatusPartial || mutations(reqs) != 0 {
			t.Errorf("status %s, requests %v; want partial, nothing written", res.Decision.Status, reqs)
		}
	})
	t.Run("the configuration names the loop of an id", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("sec:\n  loop: review\n  max_rounds: 4\n"))
		res, _, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull()}, "review", round.Options{ID: "sec", Comment: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Decision; d.ID != "sec" || d.Loop != decide.Review || d.MaxRounds != 4 {
			t.Errorf("id %s loop %s max %d; want sec, review, 4", d.ID, d.Loop, d.MaxRounds)
		}
	})
}

func TestEngineCheckRunFollowsTheRound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	o := round.Options{Comment: true, Check: true}
	if _, _, err := w.decideOn(t, round.Event{Name: "pull_request", Pull: w.pull(), RunID: 1, RunAttempt: 1}, "review", o); err != nil {
		t.Fatal(err)
	}
	if runs := w.gh.CheckRuns(owner, repo); len(runs) != 1 || runs[0].HeadSHA != w.head {
		t.Fatalf("check runs %+v, want one on the head", runs)
	}
	// Without checks: write, a commit status stands in.
	w2 := newWorld(t)
	w2.gh.Forbid(bot, "checks")
	res, _, err := w2.decideOn(t, round.Event{Name: "pull_request", Pull: w2.pull()}, "review", o)
	if err != nil {
		t.Fatal(err)
	}
	if st := w2.gh.Statuses(owner, repo); len(st) != 1 || res.Check == nil {
		t.Errorf("statuses %v; want the commit status standing in for the check run", st)
	}
}

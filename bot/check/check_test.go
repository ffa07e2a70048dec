package check_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

const (
	owner, repo = "octo", "shop"
	jobToken    = "ghs_job"
	patToken    = "ghp_person"
)

var now = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// fixture is a repository with one commit on the fake GitHub.
func fixture(t *testing.T) (*ghfake.Server, string) {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 1, "main")
	gh.AddToken(jobToken, "github-actions[bot]", true)
	gh.AddToken(patToken, "person", false)
	sha := gh.AddCommit(owner, repo, "main", map[string][]byte{"cart.go": []byte("package cart\n")})
	return gh, sha
}

func annotations(n int) []check.Annotation {
	out := make([]check.Annotation, n)
	for i := range out {
		out[i] = check.Annotation{Path: "cart.go", Line: i + 1, Level: check.LevelWarning, Title: "high", Message: fmt.Sprintf("finding %d", i)}
	}
	return out
}

func publish(t *testing.T, gh *ghfake.Server, token string, spec check.Spec) (check.Result, error) {
	t.Helper()
	c := gh.Client(token)
	return check.Publish(context.Background(), check.Service{Client: c}, c.Repositories, spec)
}

func TestPublishCreatesACompletedCheckRunWithBatchedAnnotations(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	res, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.ActionRequired,
		Title: "FIX: round 1 of 3", Summary: "## report\n", DetailsURL: "https://github.com/octo/shop/actions/runs/5", Annotations: annotations(120), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 3 || res.Status || res.ID == 0 {
		t.Errorf("result %+v, want one create and two annotation batches", res)
	}
	runs := gh.CheckRuns(owner, repo)
	if len(runs) != 1 {
		t.Fatalf("%d check runs, want 1", len(runs))
	}
	r := runs[0]
	got := []string{r.Name, r.HeadSHA, r.Status, r.Conclusion, r.Title, r.Summary, r.DetailsURL}
	want := []string{"gcloop / review", sha, "completed", "action_required", "FIX: round 1 of 3", "## report\n", "https://github.com/octo/shop/actions/runs/5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check run (-want +got):\n%s", diff)
	}
	if len(r.Annotations) != 120 || r.Annotations[119].Message != "finding 119" {
		t.Errorf("%d annotations, want all 120 in order", len(r.Annotations))
	}
	for _, q := range gh.Requests() {
		if q.Status >= 300 {
			t.Errorf("%s %s answered %d", q.Method, q.Path, q.Status)
		}
	}
}

func TestPublishUpdatesTheRoundsCheckRun(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	spec := check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.ActionRequired, Title: "FIX", Summary: "s", Now: now}
	first, err := publish(t, gh, jobToken, spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.ID, spec.Conclusion, spec.Title = first.ID, check.Success, "CONVERGE"
	second, err := publish(t, gh, jobToken, spec)
	if err != nil {
		t.Fatal(err)
	}
	runs := gh.CheckRuns(owner, repo)
	if len(runs) != 1 || second.ID != first.ID || runs[0].Conclusion != "success" || runs[0].Title != "CONVERGE" || runs[0].Updates != 1 {
		t.Errorf("runs %+v, second %+v: want the one run updated in place", runs, second)
	}
}

func TestPublishRecreatesADeletedCheckRun(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	res, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "audit", Conclusion: check.Failure,
		Title: "ESCALATE", Summary: "s", ID: 999999, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 2 || len(gh.CheckRuns(owner, repo)) != 1 {
		t.Errorf("result %+v, runs %d: want a 404 update then a create", res, len(gh.CheckRuns(owner, repo)))
	}
}

func TestPublishFallsBackToACommitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		token      string
		forbid     string
		conclusion string
		wantState  string
		wantWhy    string
	}{
		{"a personal token cannot write check runs", patToken, "", check.ActionRequired, "failure", "must authenticate via a GitHub App"},
		{"a job without checks: write", jobToken, "checks", check.Success, "success", "Resource not accessible by integration"},
		{"a partial decision does not block", jobToken, "checks", check.Neutral, "success", "Resource not accessible"},
		{"an escalation blocks", jobToken, "checks", check.Failure, "failure", "Resource not accessible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, sha := fixture(t)
			if tt.forbid != "" {
				gh.Forbid("github-actions[bot]", tt.forbid)
			}
			title := strings.Repeat("decision words ", 20)
			res, err := publish(t, gh, tt.token, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "coverage", Conclusion: tt.conclusion,
				Title: title, Summary: "s", DetailsURL: "https://github.com/octo/shop/actions/runs/7", Annotations: annotations(3), Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Status || !strings.Contains(res.Note, tt.wantWhy) || !strings.Contains(res.Note, "checks: write") {
				t.Errorf("result %+v, want a status fallback whose note says why (%q)", res, tt.wantWhy)
			}
			st := gh.Statuses(owner, repo)
			if len(st) != 1 {
				t.Fatalf("%d statuses, want 1", len(st))
			}
			if st[0].Context != "gcloop / coverage" || st[0].State != tt.wantState || st[0].SHA != sha ||
				utf8.RuneCountInString(st[0].Description) > 140 || st[0].TargetURL == "" {
				t.Errorf("status %+v, want context gcloop / coverage, state %s, a description of ≤ 140 characters", st[0], tt.wantState)
			}
			if len(gh.CheckRuns(owner, repo)) != 0 {
				t.Error("a refused check run exists")
			}
		})
	}
}

func TestPublishFailsWhenStatusesAreRefusedToo(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	gh.Forbid("github-actions[bot]", "checks")
	gh.Forbid("github-actions[bot]", "statuses")
	_, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.Success, Title: "ok", Summary: "s", Now: now})
	if err == nil || !strings.Contains(err.Error(), "commit status too") {
		t.Fatalf("err = %v, want one naming both refusals", err)
	}
}

func TestPublishKeepsWithinGitHubsLimits(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	long := strings.Repeat("a line of the report that goes on and on\n", 3000) // ~123 000 characters
	res, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.ActionRequired,
		Title: "FIX\nwith a second line", Summary: long, Annotations: annotations(check.MaxAnnotations + 57), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	r := gh.CheckRuns(owner, repo)[0]
	if n := utf8.RuneCountInString(r.Summary); n > check.MaxSummary {
		t.Errorf("summary of %d characters", n)
	}
	if !strings.Contains(r.Summary, "the report is cut here") || !strings.HasSuffix(r.Summary, "57 more findings with a file and line are not annotated.") {
		t.Errorf("summary ends %q", r.Summary[len(r.Summary)-200:])
	}
	if len(r.Annotations) != check.MaxAnnotations || res.Requests != check.MaxAnnotations/50 {
		t.Errorf("%d annotations in %d requests, want %d in %d", len(r.Annotations), res.Requests, check.MaxAnnotations, check.MaxAnnotations/50)
	}
	if r.Title != "FIX with a second line" {
		t.Errorf("title %q, want one line", r.Title)
	}
}

func TestPublishRefusesAnIncompleteSpec(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	tests := []check.Spec{
		{Repo: repo, SHA: sha, LoopID: "r", Conclusion: check.Success},
		{Owner: owner, Repo: repo, LoopID: "r", Conclusion: check.Success},
		{Owner: owner, Repo: repo, SHA: sha, Conclusion: check.Success},
		{Owner: owner, Repo: repo, SHA: sha, LoopID: "r", Conclusion: "cancelled"},
	}
	for _, spec := range tests {
		if _, err := publish(t, gh, jobToken, spec); err == nil {
			t.Errorf("Publish(%+v) = nil error", spec)
		}
	}
	if n := len(gh.Requests()); n != 0 {
		t.Errorf("%d requests for invalid specs", n)
	}
}

func TestConclusionOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		outcome decide.Outcome
		status  string
		want    string
	}{
		{decide.Converge, decide.StatusComplete, check.Success},
		{decide.Fix, decide.StatusComplete, check.ActionRequired},
		{decide.Escalate, decide.StatusComplete, check.Failure},
		{decide.Fix, decide.StatusPartial, check.Neutral},
		{decide.Converge, decide.StatusPartial, check.Neutral},
	}
	for _, tt := range tests {
		if got := check.ConclusionOf(&decide.Decision{Outcome: tt.outcome, Status: tt.status}); got != tt.want {
			t.Errorf("ConclusionOf(%s, %s) = %s, want %s", tt.outcome, tt.status, got, tt.want)
		}
	}
}

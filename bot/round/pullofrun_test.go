package round

import (
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

func TestHeadMismatch(t *testing.T) {
	t.Parallel()
	run := &github.WorkflowRun{HeadSHA: github.String("h1"), HeadBranch: github.String("feat"),
		HeadRepository: &github.Repository{ID: github.Int64(100), FullName: github.String("octo/shop")}}
	pr := func(sha, ref string, repo *github.Repository) *github.PullRequest {
		return &github.PullRequest{Number: github.Int(1), Head: &github.PullRequestBranch{SHA: github.String(sha), Ref: github.String(ref), Repo: repo}}
	}
	same := &github.Repository{ID: github.Int64(100)}
	tests := []struct {
		name    string
		pr      *github.PullRequest
		withSHA bool
		want    string // "" = the run's PR; else a part of the reason
	}{
		{"same sha, repository and branch", pr("h1", "feat", same), true, ""},
		{"another sha", pr("h2", "feat", same), true, "has head h2"},
		{"another sha after the run is fine when fetched later", pr("h2", "feat", same), false, ""},
		{"another repository by id", pr("h1", "feat", &github.Repository{ID: github.Int64(999)}), true, "repository id 999"},
		{"another branch", pr("h1", "main", same), true, `head branch "main"`},
		{"no head repository (a deleted fork)", pr("h1", "feat", nil), true, "no head repository"},
		{"the same repository by full name", pr("h1", "feat", &github.Repository{FullName: github.String("Octo/Shop")}), true, ""},
		{"another repository by full name", pr("h1", "feat", &github.Repository{FullName: github.String("evil/shop")}), true, `repository "evil/shop"`},
		{"no branch", pr("h1", "", same), true, "head branch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := headMismatch(run, tt.pr, tt.withSHA)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("headMismatch = %q, want %q", got, tt.want)
			}
		})
	}
}

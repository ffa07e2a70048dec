package check_test

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghfake"
)

// TestPublishGitHubFailuresReachNoTextRaw makes each GitHub call of Publish
// fail and checks that the error, which becomes a report note, reads in
// Describe's words: no request URL, no host, no raw error list.
func TestPublishGitHubFailuresReachNoTextRaw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(gh *ghfake.Server)
		want    string
	}{
		{"the check run cannot be created",
			func(gh *ghfake.Server) {
				gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/check-runs", Status: 500, Message: "Resource not accessible by integration"})
			}, `write check run "gcloop / review" on `},
		{"an annotation batch is refused",
			func(gh *ghfake.Server) {
				gh.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", Status: 500, Message: "Resource not accessible by integration"})
			}, `annotate check run "gcloop / review": server error: Resource not accessible by integration`},
		{"the commit status fallback fails too",
			func(gh *ghfake.Server) {
				gh.Forbid("github-actions[bot]", "checks")
				gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/statuses/{sha}", Status: 500, Message: "Resource not accessible by integration"})
			}, "and the commit status too: server error: Resource not accessible by integration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, sha := fixture(t)
			tt.prepare(gh)
			_, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.ActionRequired,
				Title: "FIX", Summary: "s", Annotations: annotations(check.MaxAnnotations + 1), Now: now})
			if err == nil {
				t.Fatal("err = nil, want GitHub's refusal")
			}
			got := err.Error()
			if !strings.Contains(got, tt.want) {
				t.Errorf("err = %q, want it to contain %q", got, tt.want)
			}
			for _, leak := range []string{"://", "127.0.0.1", "[]"} {
				if strings.Contains(got, leak) {
					t.Errorf("err = %q names %q", got, leak)
				}
			}
		})
	}
}

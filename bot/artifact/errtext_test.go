package artifact

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/google/go-github/v62/github"
)

// TestGitHubFailuresReadWithoutURLs checks that a failure of the API
// reads as the operation and GitHub's words: no URL, no token.
func TestGitHubFailuresReadWithoutURLs(t *testing.T) {
	t.Parallel()
	const token = "ghs_artifacttoken0123456789"
	tests := []struct {
		name    string
		pattern string
		status  int
		call    func(*testing.T, context.Context, *ghclient.Options) error
		want    string
	}{
		{"listing answered 502", "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", 502,
			func(t *testing.T, ctx context.Context, o *ghclient.Options) error {
				_, err := List(ctx, newClient(t, o).Actions, "o", "r", 7, []string{"review"})
				return err
			}, "list artifacts of run 7 in o/r: server error: Resource not accessible by integration"},
		{"listing unauthorized", "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", 401,
			func(t *testing.T, ctx context.Context, o *ghclient.Options) error {
				_, err := List(ctx, newClient(t, o).Actions, "o", "r", 7, []string{"review"})
				return err
			}, "list artifacts of run 7 in o/r: unauthorized: Resource not accessible by integration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ghfake.New(t)
			s.AddRepo("o", "r", 1, "main")
			s.AddToken(token, "github-actions[bot]", true)
			s.Fail(ghfake.FailRule{Pattern: tt.pattern, Status: tt.status, Message: "Resource not accessible by integration"})
			o := &ghclient.Options{Token: token, BaseURL: s.URL(), Sleep: func(context.Context, time.Duration) error { return nil }}
			err := tt.call(t, context.Background(), o)
			if err == nil {
				t.Fatal("err = nil, want GitHub's refusal")
			}
			got := err.Error()
			if got != tt.want {
				t.Errorf("err = %q, want %q", got, tt.want)
			}
			for _, leak := range []string{"://", "127.0.0.1", token} {
				if strings.Contains(got, leak) {
					t.Errorf("err = %q names %q", got, leak)
				}
			}
		})
	}
}

func newClient(t *testing.T, o *ghclient.Options) *github.Client {
	t.Helper()
	c, err := ghclient.New(*o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

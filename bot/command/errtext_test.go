package command

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// refusingReactions answers every reaction with err.
type refusingReactions struct{ err error }

func (f refusingReactions) CreateIssueCommentReaction(context.Context, string, string, int64, string) (*github.Reaction, *github.Response, error) {
	return nil, nil, f.err
}

// TestGitHubFailuresReachNoTextRaw checks that a refusal of GitHub, whose
// go-github text names the request URL (here with a token in it), reads in
// Describe's words once Authorize or React returns it: the action puts
// these errors in replies and notes.
func TestGitHubFailuresReachNoTextRaw(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://api.github.com/repos/o/r/x?access_token=ghp_leakleakleak0123456789")
	refusal := &github.ErrorResponse{Message: "Resource not accessible by integration",
		Response: &http.Response{StatusCode: 403, Request: &http.Request{Method: "POST", URL: u}}}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"Authorize", func() error {
			_, _, err := Authorize(context.Background(), &fakePermissions{err: refusal}, "o", "r", "alice", "write")
			return err
		}, "permission of alice on o/r: permission denied: Resource not accessible by integration"},
		{"React", func() error {
			return React(context.Background(), refusingReactions{err: refusal}, "o", "r", 42, Rocket)
		}, "reacting rocket to comment 42 on o/r: permission denied: Resource not accessible by integration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.call()
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			var er *github.ErrorResponse
			if !errors.As(err, &er) || er != refusal {
				t.Errorf("err = %v, want it to wrap GitHub's answer", err)
			}
			if err != nil && strings.Contains(err.Error(), "ghp_leak") {
				t.Errorf("err = %q names the token", err)
			}
		})
	}
}

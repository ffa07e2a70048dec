package identity

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-github/v62/github"
)

// leakyUsers answers GET /user with go-github's error for a 401 whose
// request URL carries a token.
type leakyUsers struct{ err *github.ErrorResponse }

func (f leakyUsers) Get(context.Context, string) (*github.User, *github.Response, error) {
	return nil, &github.Response{Response: f.err.Response}, f.err
}

func TestResolveGitHubFailureReachesNoTextRaw(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://api.github.com/user?access_token=ghp_leakleakleak0123456789")
	refusal := &github.ErrorResponse{Message: "Bad credentials",
		Response: &http.Response{StatusCode: 401, Request: &http.Request{Method: "GET", URL: u}}}
	_, err := Resolve(context.Background(), leakyUsers{err: refusal}, "ghp_x", "")
	const want = "identity: GET /user for the token's login: unauthorized: Bad credentials"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er != refusal {
		t.Errorf("err = %v, want it to wrap GitHub's answer", err)
	}
}

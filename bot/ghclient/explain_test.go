package ghclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/google/go-github/v62/github"
)

var (
	errHeadMoved = errors.New("the pull request's head branch moved")
	netOpError   = net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
)

func TestExplainKeepsTheContextAndDropsURLsAndTokens(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://api.github.com/repos/o/r/issues/comments/7")
	resp := &http.Response{StatusCode: 422, Request: &http.Request{Method: "PATCH", URL: u}}
	tooLong := &github.ErrorResponse{Response: resp, Message: "Validation Failed",
		Errors: []github.Error{{Resource: "IssueComment", Field: "body", Code: "custom", Message: "body is too long"}}}
	wait := &url.Error{Op: "Post", URL: "https://api.github.com/repos/o/r/git/blobs",
		Err: &ghclient.WaitError{Method: "POST", Path: "/repos/o/r/git/blobs", Status: 429, Wait: time.Hour, Limit: time.Minute, Reason: "the longest wait allowed"}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"a wrapped 422", fmt.Errorf("write the report comment: %w", tooLong),
			"write the report comment: validation failed: Validation Failed (body is too long)"},
		{"a rate limit refused in the transport", fmt.Errorf("push: create blob for a_test.go: %w", wait),
			"push: create blob for a_test.go: rate limited: GitHub asked to wait 1h0m0s, more than 1m0s"},
		{"two wrapped errors", fmt.Errorf("push: update refs/heads/x: %w (%w)", errHeadMoved, tooLong),
			"push: update refs/heads/x: the pull request's head branch moved (validation failed: Validation Failed (body is too long))"},
		{"a transport error that is not GitHub's", &url.Error{Op: "Get", URL: "https://api.github.com/x", Err: errors.New("GET /x: cannot retry")},
			"GET /x: cannot retry"},
		{"an error of ours is kept", errors.New("push: path \"a b\" is refused"), "push: path \"a b\" is refused"},
		{"a URL and tokens in an unknown error are redacted",
			errors.New("fetch https://example.com/a?sig=abc: Authorization: Bearer abcdefghijkl with ghs_0123456789abcdef and github_pat_11ABCDEFG0123456789"),
			"fetch [url]: Authorization: [redacted] with [redacted] and [redacted]"},
		{"a network error names the failure", &url.Error{Op: "Get", URL: "http://127.0.0.1:1/x", Err: &netOpError},
			"network error: dial: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ghclient.Explain(tt.err); got != tt.want {
				t.Errorf("Explain =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestExplainedKeepsTheErrorChain(t *testing.T) {
	t.Parallel()
	base := &github.ErrorResponse{Response: &http.Response{StatusCode: 404, Request: &http.Request{Method: "GET", URL: &url.URL{Scheme: "https", Host: "api.github.com", Path: "/x"}}}, Message: "Not Found"}
	err := ghclient.Explained(fmt.Errorf("read the pull request: %w: %w", errHeadMoved, base))
	if got, want := err.Error(), "read the pull request: the pull request's head branch moved: not found: Not Found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var er *github.ErrorResponse
	if !errors.Is(err, errHeadMoved) || !errors.As(err, &er) || ghclient.Classify(err) != ghclient.KindNotFound {
		t.Errorf("the chain is lost: %#v", err)
	}
	if ghclient.Explained(nil) != nil {
		t.Error("Explained(nil) != nil")
	}
}

// TestExplainAFailedMutationOnTheFake runs real requests through the client
// against the fake GitHub, which refuses them, and checks the words.
func TestExplainAFailedMutationOnTheFake(t *testing.T) {
	t.Parallel()
	const token = "ghs_explaintoken0123456789"
	s := ghfake.New(t)
	s.AddRepo("o", "r", 1, "main")
	s.AddToken(token, "github-actions[bot]", true)
	s.AddPull("o", "r", ghfake.PullSpec{Number: 1, User: "alice", HeadSHA: strings.Repeat("a", 40), HeadRef: "x", BaseSHA: strings.Repeat("b", 40)})
	s.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 500, Message: "boom at " + s.URL()})
	c, err := ghclient.New(ghclient.Options{Token: token, BaseURL: s.URL(), MutationPause: -1,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", 70000)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"a 500 on a comment", func() error {
			_, _, err := c.Issues.CreateComment(context.Background(), "o", "r", 1, &github.IssueComment{Body: github.String("hi")})
			return err
		}, "write the report comment: server error: boom at [url]"},
		{"a body over the limit", func() error {
			_, _, err := c.Issues.Create(context.Background(), "o", "r", &github.IssueRequest{Title: github.String("t"), Body: &body})
			return err
		}, "write the report comment: validation failed: Validation Failed (body is too long (maximum is 65536 characters))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := fmt.Errorf("write the report comment: %w", tt.call())
			got := ghclient.Explain(err)
			if got != tt.want {
				t.Errorf("Explain =\n  %q\nwant\n  %q\n(raw: %v)", got, tt.want, err)
			}
			for _, leak := range []string{"http", "127.0.0.1", token, "/repos/"} {
				if strings.Contains(got, leak) {
					t.Errorf("Explain = %q names %q", got, leak)
				}
			}
		})
	}
}

// FuzzExplain feeds GitHub-shaped failures with arbitrary messages (what
// GitHub or a proxy may answer) through Explain: it never panics, and its
// line names no URL of the request and no token.
func FuzzExplain(f *testing.F) {
	f.Add("Validation Failed", "body is too long", 422, "write the report comment")
	f.Add("see https://docs.github.com/x", "ghs_0123456789abcdefgh", 500, "push: %s")
	f.Add("", "", 0, "%w %w")
	f.Add("Bearer abcdefghijk\nsecond line", "github_pat_0123456789ABC", 403, "reply on #1")
	f.Fuzz(func(t *testing.T, message, detail string, status int, context string) {
		u, _ := url.Parse("https://api.github.com/repos/o/r/issues/1?access_token=ghs_0123456789abcdef")
		er := &github.ErrorResponse{Response: &http.Response{StatusCode: status, Request: &http.Request{Method: "POST", URL: u}},
			Message: message, Errors: []github.Error{{Message: detail}}}
		ue := &url.Error{Op: "Post", URL: u.String(), Err: errors.New(message)}
		for _, err := range []error{fmt.Errorf("%s: %w", context, er), fmt.Errorf("%s: %w (%w)", context, ue, er), ghclient.Explained(er)} {
			got := ghclient.Explain(err)
			if strings.Contains(got, "\n") {
				t.Errorf("Explain(%q) = %q: a line break", err, got)
			}
			for _, leak := range []string{"api.github.com", "ghs_0123456789abcdef"} {
				if !strings.Contains(message+detail+context, leak) && strings.Contains(got, leak) {
					t.Errorf("Explain(%q) = %q names %q", err, got, leak)
				}
			}
		}
	})
}

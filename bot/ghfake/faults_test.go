package ghfake_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// The answers about the resource are validated like the fake's own: a
// shape the description does not allow would be reported.
func TestInjectedAnswersAboutTheResourceAreValidated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rule ghfake.FailRule
	}{
		{name: "a 422 with error objects is what the description declares",
			rule: ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 422, Errors: []ghfake.FieldError{{Resource: "IssueComment", Field: "body", Code: "custom"}}}},
		{name: "a 422 without error objects is too",
			rule: ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 422}},
		{name: "a 404 on an edit (deleted meanwhile), a status the description leaves out",
			rule: ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 404}},
		{name: "a 5xx is never validated (GitHub declares none)",
			rule: ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 502}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			s := ghfake.New(rec)
			defer rec.close()
			s.AddRepo(owner, repo, 42, "main")
			s.AddToken(token, bot, true)
			s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "t", Author: "alice"})
			id := s.AddComment(owner, repo, 1, bot, "x")
			s.Fail(tt.rule)
			_, _, err := s.Client(token).Issues.EditComment(context.Background(), owner, repo, id, &github.IssueComment{Body: github.String("y")})
			if errStatus(err) != tt.rule.Status {
				t.Fatalf("err = %v, want status %d", err, tt.rule.Status)
			}
			if v := s.Violations(); len(v) != 0 {
				t.Errorf("violations %q, want none", v)
			}
		})
	}
}

func TestRequestLinesNameMethodPathAndQuery(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	if _, _, err := c.Issues.ListComments(ctx, owner, repo, 1, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: github.String("hi")}); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /repos/acme/widgets/issues/1/comments?per_page=100", "POST /repos/acme/widgets/issues/1/comments"}
	if diff := cmp.Diff(want, s.RequestLines()); diff != "" {
		t.Errorf("request lines (-want +got):\n%s", diff)
	}
}

func TestErrorResponseIsWhatGoGitHubReturns(t *testing.T) {
	t.Parallel()
	err := ghfake.ErrorResponse(http.StatusUnprocessableEntity, "POST", "/repos/o/r/labels", github.Error{Resource: "Label", Field: "name", Code: "already_exists"})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Fatalf("err = %#v, want a 422 *github.ErrorResponse with its error object", err)
	}
	if got, want := err.Error(), "POST https://api.github.com/repos/o/r/labels: 422 Unprocessable Entity [{Resource:Label Field:name Code:already_exists Message:}]"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestPingable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"no mention", false},
		{"@alice", true},
		{"@\u200balice", false},
		{"@\u200balice and @bob", true},
		{"@\u200balice and @\u200bbob", false},
		{"mail a@\u200bb.c", false},
		{"trailing @", true},
	}
	for _, tt := range tests {
		if got := ghfake.Pingable(tt.s); got != tt.want {
			t.Errorf("Pingable(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

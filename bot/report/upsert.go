package report

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// Upsert writes the report comment: it edits existing in place when it is
// set and its body differs, does nothing when the body is identical (an
// unchanged re-run makes no mutation), and creates a comment otherwise —
// also when the edit finds the comment deleted meanwhile (404). A body
// that does not fit a comment (CheckSize) is refused before anything is
// sent.
func Upsert(ctx context.Context, api commentsAPI, owner, repo string, pr int, existing *github.IssueComment, body string) (*github.IssueComment, error) {
	if err := CheckSize(body); err != nil {
		return nil, fmt.Errorf("report comment: %w; nothing was sent", err)
	}
	switch {
	case body == "":
		return nil, errors.New("report comment: empty body")
	case pr <= 0:
		return nil, fmt.Errorf("report comment: pull request number %d, want a positive number", pr)
	}
	if existing != nil && existing.GetID() != 0 {
		if existing.GetBody() == body {
			return existing, nil
		}
		c, _, err := api.EditComment(ctx, owner, repo, existing.GetID(), &github.IssueComment{Body: github.String(body)})
		if err == nil {
			return c, nil
		}
		if !notFound(err) {
			return nil, fmt.Errorf("report comment: edit comment %d on PR #%d: %w", existing.GetID(), pr, err)
		}
	}
	c, _, err := api.CreateComment(ctx, owner, repo, pr, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, fmt.Errorf("report comment: create on PR #%d: %w", pr, err)
	}
	return c, nil
}

// notFound reports whether err is GitHub's 404.
func notFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == 404
}

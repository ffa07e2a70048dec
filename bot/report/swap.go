package report

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// swapAPI is the part of go-github's IssuesService a compare-and-swap of
// the report comment needs.
type swapAPI interface {
	GetComment(ctx context.Context, owner, repo string, commentID int64) (*github.IssueComment, *github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
	EditComment(ctx context.Context, owner, repo string, commentID int64, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
}

// ErrConflict means the report comment changed on GitHub after it was
// read: a /gc command, another round, or a person deleting it (which
// starts the loop over) wrote it meanwhile. The writer must read it
// again and decide on what it holds now; Swap wrote nothing.
var ErrConflict = errors.New("the report comment changed since it was read")

// Swap writes the report comment with a compare-and-swap on what was read:
// existing is the comment as FindState returned it (nil: there was none).
//
//   - A body identical to existing's sends nothing (an unchanged re-run).
//   - Otherwise the comment is read again (GET …/issues/comments/{id}) and
//     edited only when its body is still existing's body — the body holds
//     the state, so an unchanged body is an unchanged state. A different
//     body, or a comment deleted meanwhile (404 on the read or the edit),
//     is ErrConflict.
//   - Without existing, the comment is created: there was no state, and a
//     loop without state has no command to lose.
//
// GitHub has no conditional edit of a comment, so the read and the edit
// are two requests: the window between them is one round trip, against a
// whole round's without the read. A body that does not fit a comment
// (CheckSize) is refused before anything is sent.
func Swap(ctx context.Context, api swapAPI, owner, repo string, pr int, existing *github.IssueComment, body string) (*github.IssueComment, error) {
	if err := CheckSize(body); err != nil {
		return nil, fmt.Errorf("report comment: %w; nothing was sent", err)
	}
	switch {
	case body == "":
		return nil, errors.New("report comment: empty body")
	case pr <= 0:
		return nil, fmt.Errorf("report comment: pull request number %d, want a positive number", pr)
	}
	if existing == nil || existing.GetID() == 0 {
		c, _, err := api.CreateComment(ctx, owner, repo, pr, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return nil, fmt.Errorf("report comment: create on PR #%d: %w", pr, err)
		}
		return c, nil
	}
	if existing.GetBody() == body {
		return existing, nil
	}
	id := existing.GetID()
	now, _, err := api.GetComment(ctx, owner, repo, id)
	switch {
	case notFound(err):
		return nil, fmt.Errorf("report comment %d on PR #%d: %w (deleted)", id, pr, ErrConflict)
	case err != nil:
		return nil, fmt.Errorf("report comment: read comment %d on PR #%d again: %w", id, pr, err)
	case now.GetBody() != existing.GetBody():
		return nil, fmt.Errorf("report comment %d on PR #%d: %w (edited at %s)", id, pr, ErrConflict, now.GetUpdatedAt().UTC().Format("2006-01-02T15:04:05Z"))
	}
	c, _, err := api.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: github.String(body)})
	switch {
	case notFound(err):
		return nil, fmt.Errorf("report comment %d on PR #%d: %w (deleted)", id, pr, ErrConflict)
	case err != nil:
		return nil, fmt.Errorf("report comment: edit comment %d on PR #%d: %w", id, pr, err)
	}
	return c, nil
}

// notFound reports whether err is GitHub's 404.
func notFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == 404
}

package command

import (
	"context"
	"fmt"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// reactionsAPI is the part of go-github's ReactionsService that React
// needs. A PR's conversation comments are issue comments, so this is
// CreateIssueCommentReaction (POST /repos/{o}/{r}/issues/comments/{id}/reactions);
// ReactionsService.CreateCommentReaction is for commit comments.
type reactionsAPI interface {
	CreateIssueCommentReaction(ctx context.Context, owner, repo string, id int64, content string) (*github.Reaction, *github.Response, error)
}

// The reactions of DESIGN §6.
const (
	Eyes     = "eyes"     // 👀 the command is being handled
	Rocket   = "rocket"   // 🚀 done
	Confused = "confused" // 😕 refused; a reply says why
)

// React puts one reaction (Eyes, Rocket or Confused) on a comment. GitHub
// answers 200 with the existing reaction when it is already there, so a
// repeated call is harmless.
func React(ctx context.Context, api reactionsAPI, owner, repo string, commentID int64, content string) error {
	switch content {
	case Eyes, Rocket, Confused:
	default:
		return fmt.Errorf("reaction %q: want %s, %s or %s", content, Eyes, Rocket, Confused)
	}
	if _, _, err := api.CreateIssueCommentReaction(ctx, owner, repo, commentID, content); err != nil {
		return fmt.Errorf("reacting %s to comment %d on %s/%s: %w", content, commentID, owner, repo, ghclient.Explained(err))
	}
	return nil
}

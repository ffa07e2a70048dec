package pushfix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// ErrProtectedBranch means the head branch is the repository's default
// branch or a protected branch: gcloop never pushes there (a same-
// repository pull request can be opened from the default branch itself).
var ErrProtectedBranch = errors.New("the branch is not pushed to")

// branchAPI is the part of go-github's RepositoriesService that tells
// whether a branch may take a fix commit.
type branchAPI interface {
	Get(ctx context.Context, owner, repo string) (*github.Repository, *github.Response, error)
	GetBranch(ctx context.Context, owner, repo, branch string, maxRedirects int) (*github.Branch, *github.Response, error)
}

var _ branchAPI = (*github.RepositoriesService)(nil)

// CheckBranch refuses a push to branch of owner/repo when it is the
// repository's default branch (GET /repos/{owner}/{repo}) or a protected
// one (GET /repos/{owner}/{repo}/branches/{branch}); the error then wraps
// ErrProtectedBranch and says which. The default branch costs one
// request, any other two. A branch that does not exist is an error too:
// there is nothing to push onto.
func CheckBranch(ctx context.Context, api branchAPI, owner, repo, branch string) error {
	branch = strings.TrimPrefix(branch, "refs/heads/")
	if branch == "" {
		return fmt.Errorf("check branch of %s/%s: no branch name", owner, repo)
	}
	r, _, err := api.Get(ctx, owner, repo)
	if err != nil {
		return fmt.Errorf("read repository %s/%s: %w", owner, repo, ghclient.Explained(err))
	}
	if def := r.GetDefaultBranch(); def == "" {
		return fmt.Errorf("read repository %s/%s: GitHub names no default branch", owner, repo)
	} else if def == branch {
		return fmt.Errorf("%w: %s is the default branch of %s/%s", ErrProtectedBranch, branch, owner, repo)
	}
	// GetBranch follows a renamed branch's redirect; maxRedirects 0 does
	// not, so a push never lands on a branch other than the one named.
	b, resp, err := api.GetBranch(ctx, owner, repo, branch, 0)
	switch {
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("read branch %s of %s/%s: it does not exist (deleted or renamed)", branch, owner, repo)
	case resp != nil && resp.StatusCode == http.StatusMovedPermanently:
		return fmt.Errorf("%w: branch %s of %s/%s was renamed; its pull request must be judged again", ErrHeadMoved, branch, owner, repo)
	case err != nil:
		return fmt.Errorf("read branch %s of %s/%s: %w", branch, owner, repo, ghclient.Explained(err))
	case b.GetProtected():
		return fmt.Errorf("%w: %s is a protected branch of %s/%s", ErrProtectedBranch, branch, owner, repo)
	}
	return nil
}

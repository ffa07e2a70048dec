package pushfix_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/pushfix"
)

func TestCheckBranchRefusesTheDefaultAndProtectedBranches(t *testing.T) {
	t.Parallel()
	const owner, repo, token = "octo", "shop", "ghs_branch"
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, "github-actions[bot]", true)
	base := gh.AddCommit(owner, repo, "main", map[string][]byte{"a.go": []byte("package a\n")})
	gh.AddCommit(owner, repo, "release", map[string][]byte{"a.go": []byte("package a\n")}, base)
	gh.AddCommit(owner, repo, "feature/x", map[string][]byte{"a.go": []byte("package a // x\n")}, base)
	gh.Protect(owner, repo, "release", true)
	c := gh.Client(token)
	tests := []struct {
		name, branch string
		protected    bool // the error wraps ErrProtectedBranch
		fails        bool
		requests     int
	}{
		{"a feature branch is pushed to", "feature/x", false, false, 2},
		{"a full ref name is the branch", "refs/heads/feature/x", false, false, 2},
		{"the default branch is refused without reading the branch", "main", true, true, 1},
		{"a protected branch is refused", "release", true, true, 2},
		{"a branch that is gone is an error, not a push", "gone", false, true, 2},
		{"no branch is an error before any request", "", false, true, 0},
	}
	for _, tt := range tests {
		from := len(gh.Requests())
		err := pushfix.CheckBranch(context.Background(), c.Repositories, owner, repo, tt.branch)
		if (err != nil) != tt.fails || errors.Is(err, pushfix.ErrProtectedBranch) != tt.protected {
			t.Errorf("%s: CheckBranch(%q) = %v; want failure %v, protected %v", tt.name, tt.branch, err, tt.fails, tt.protected)
		}
		if n := len(gh.Requests()) - from; n != tt.requests {
			t.Errorf("%s: %d requests, want %d", tt.name, n, tt.requests)
		}
	}
}

func TestCheckBranchFailsWithoutRefusingOnAFailingAPI(t *testing.T) {
	t.Parallel()
	const owner, repo, token = "octo", "shop", "ghs_branch"
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, "github-actions[bot]", true)
	gh.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}", Status: 500, RetryAfter: -1})
	err := pushfix.CheckBranch(context.Background(), gh.Client(token).Repositories, owner, repo, "feature/x")
	if err == nil || errors.Is(err, pushfix.ErrProtectedBranch) {
		t.Errorf("CheckBranch on a failing API = %v, want an error that is no refusal", err)
	}
}

package check

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// Service is the checks API of a go-github client as Publish uses it. It
// differs from c.Checks in one way: an update whose Actions is an empty,
// non-nil list sends `"actions": []`, which takes the buttons off the check
// run — go-github omits an empty list, and GitHub keeps the buttons of an
// update without one, so a loop approved after its escalation would still
// offer "Retry round" and "Approve".
type Service struct{ Client *github.Client }

// CreateCheckRun creates a check run.
func (s Service) CreateCheckRun(ctx context.Context, owner, repo string, opts github.CreateCheckRunOptions) (*github.CheckRun, *github.Response, error) {
	return s.Client.Checks.CreateCheckRun(ctx, owner, repo, opts)
}

// UpdateCheckRun updates a check run; see Service for its Actions.
func (s Service) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, opts github.UpdateCheckRunOptions) (*github.CheckRun, *github.Response, error) {
	if opts.Actions == nil || len(opts.Actions) > 0 {
		return s.Client.Checks.UpdateCheckRun(ctx, owner, repo, id, opts)
	}
	// The outer Actions hides the embedded one, which omits an empty list.
	body := struct {
		github.UpdateCheckRunOptions
		Actions []*github.CheckRunAction `json:"actions"`
	}{opts, []*github.CheckRunAction{}}
	req, err := s.Client.NewRequest("PATCH", fmt.Sprintf("repos/%v/%v/check-runs/%v", owner, repo, id), body)
	if err != nil {
		return nil, nil, err
	}
	run := new(github.CheckRun)
	resp, err := s.Client.Do(ctx, req, run)
	if err != nil {
		return nil, resp, err
	}
	return run, resp, nil
}

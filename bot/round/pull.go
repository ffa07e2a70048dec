package round

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
)

// ErrNoPull means the event names no pull request a round can act on.
var ErrNoPull = errors.New("no pull request")

// Pull finds the pull request the event is about. Offline (a dry run) a
// pull request the event does not carry is unknown: nil, nil.
func (e *Engine) Pull(ctx context.Context) (*Pull, error) {
	c := e.Event
	var (
		p   *Pull
		err error
	)
	switch {
	case c.Pull != nil:
		return c.Pull, nil
	case c.DispatchPR > 0:
		var pr *github.PullRequest
		if pr, err = e.GH.Pull(ctx, c.DispatchPR); err == nil {
			p = PullFrom(pr)
		}
	case c.Run != nil:
		p, err = e.pullOfRun(ctx, c.Run)
	default:
		return nil, fmt.Errorf("%w: the %s event names none (run on pull_request, workflow_run, workflow_dispatch with a pr input, or issue_comment)", ErrNoPull, or(c.Name, "(no)"))
	}
	if errors.Is(err, ErrOffline) {
		return nil, nil
	}
	return p, err
}

// pullOfRun finds the pull request of a workflow_run: one the run lists,
// else (fork runs list none) an open one that holds the run's head sha. A
// candidate is the run's only when its head matches the run's head sha,
// head repository and head branch — a PR of another repository or branch
// that happens to hold the same commit is not acted on.
func (e *Engine) pullOfRun(ctx context.Context, run *github.WorkflowRun) (*Pull, error) {
	var refused []string
	number := 0
	for _, p := range run.PullRequests {
		if why := headMismatch(run, p, true); why != "" {
			refused = append(refused, fmt.Sprintf("#%d %s", p.GetNumber(), why))
			continue
		}
		number = p.GetNumber()
		break
	}
	if number == 0 {
		prs, err := e.GH.PullsWithCommit(ctx, run.GetHeadSHA())
		if err != nil {
			return nil, err
		}
		for _, p := range prs {
			if p.GetState() != "open" {
				continue
			}
			if why := headMismatch(run, p, true); why != "" {
				refused = append(refused, fmt.Sprintf("#%d %s", p.GetNumber(), why))
				continue
			}
			number = p.GetNumber()
			break
		}
	}
	if number == 0 {
		msg := fmt.Sprintf("workflow run %d (head %s, repository %s, branch %q) belongs to no open pull request with that head",
			run.GetID(), run.GetHeadSHA(), runRepo(run), run.GetHeadBranch())
		if len(refused) > 0 {
			msg += "; not its pull request: " + strings.Join(refused, "; ")
		}
		return nil, fmt.Errorf("%w: %s", ErrNoPull, msg)
	}
	pr, err := e.GH.Pull(ctx, number)
	if err != nil {
		return nil, err
	}
	if why := headMismatch(run, pr, false); why != "" {
		return nil, fmt.Errorf("%w: pull request #%d is not workflow run %d's: %s", ErrNoPull, number, run.GetID(), why)
	}
	p := PullFrom(pr)
	if p.HeadSHA != run.GetHeadSHA() {
		// The PR moved on since the run: judge the run's commit.
		p.HeadSHA = run.GetHeadSHA()
	}
	return p, nil
}

// headMismatch says why a pull request's head is not a workflow run's head
// ("" when it is): the repository (by id, else by full name) and the
// branch must be the run's, and the sha too when withSHA (a PR fetched
// later may have moved on).
func headMismatch(run *github.WorkflowRun, pr *github.PullRequest, withSHA bool) string {
	head := pr.GetHead()
	prRepo, runRepo := head.GetRepo(), run.GetHeadRepository()
	switch {
	case withSHA && head.GetSHA() != run.GetHeadSHA():
		return fmt.Sprintf("has head %s, not the run's %s", head.GetSHA(), run.GetHeadSHA())
	case prRepo == nil || runRepo == nil:
		return "has no head repository to compare with the run's"
	case prRepo.GetID() != 0 && runRepo.GetID() != 0 && prRepo.GetID() != runRepo.GetID():
		return fmt.Sprintf("comes from repository id %d, not the run's %d", prRepo.GetID(), runRepo.GetID())
	case (prRepo.GetID() == 0 || runRepo.GetID() == 0) &&
		(prRepo.GetFullName() == "" || !strings.EqualFold(prRepo.GetFullName(), runRepo.GetFullName())):
		return fmt.Sprintf("comes from repository %q, not the run's %q", prRepo.GetFullName(), runRepo.GetFullName())
	case head.GetRef() == "" || head.GetRef() != run.GetHeadBranch():
		return fmt.Sprintf("has head branch %q, not the run's %q", head.GetRef(), run.GetHeadBranch())
	}
	return ""
}

// runRepo names a run's head repository for messages.
func runRepo(run *github.WorkflowRun) string {
	if n := run.GetHeadRepository().GetFullName(); n != "" {
		return n
	}
	return fmt.Sprintf("id %d", run.GetHeadRepository().GetID())
}

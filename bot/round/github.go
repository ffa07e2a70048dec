package round

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/identity"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/google/go-github/v62/github"
)

// GitHub is everything a round reads from and writes to one repository on
// GitHub. Live carries it out with a go-github client; a Recorder (the dry
// run) answers the reads it can without the API and records the writes.
type GitHub interface {
	// Pull gets pull request number.
	Pull(ctx context.Context, number int) (*github.PullRequest, error)
	// PullsWithCommit lists the pull requests that hold sha.
	PullsWithCommit(ctx context.Context, sha string) ([]*github.PullRequest, error)
	// Config reads the configuration file name at ref; nil when there is
	// none.
	Config(ctx context.Context, ref, name string) (*config.File, error)
	// FindReport finds the loop's report comment on pr and the state it
	// holds, trusting only gcloop's own comments.
	FindReport(ctx context.Context, pr int, loopID string) (report.Found, error)
	// Snapshot compares the workspace with commit sha.
	Snapshot(ctx context.Context, sha string, ws pushfix.Workspace) (*pushfix.Snapshot, error)
	// ApplyPatch applies the generator's patch to the tree of commit sha
	// in memory: the same change set as Snapshot's.
	ApplyPatch(ctx context.Context, sha string, p *pushfix.Patch) (*pushfix.Snapshot, error)
	// Permission is user's role on the repository ("none" … "admin")
	// and whether it reaches min.
	Permission(ctx context.Context, user, min string) (level string, ok bool, err error)

	// Push commits the accepted changes on the head branch; it refuses the
	// default branch and protected branches (pushfix.ErrProtectedBranch).
	Push(ctx context.Context, spec pushfix.PushSpec) (sha string, err error)
	// SyncIssues opens, updates and closes the fix issues.
	SyncIssues(ctx context.Context, spec publish.SyncSpec) (publish.SyncResult, error)
	// Dispatch starts workflow on ref for pr.
	Dispatch(ctx context.Context, workflow, ref string, pr int) error
	// Check writes a check run (or the commit status standing in for it).
	Check(ctx context.Context, spec check.Spec) (check.Result, error)
	// Comment reads comment id again; ErrGone when it was deleted.
	Comment(ctx context.Context, id int64) (*github.IssueComment, error)
	// UpsertReport creates the report comment on pr, or edits existing
	// with a compare-and-swap: only when it still is as it was read
	// (report.Swap), else report.ErrConflict and nothing is written.
	UpsertReport(ctx context.Context, pr int, existing *github.IssueComment, body string) (*github.IssueComment, error)
	// Reply posts a comment on issue or pull request number.
	Reply(ctx context.Context, number int, body string) error
	// Replied reports whether gcloop already answered comment commentID on
	// number: a comment of gcloop's identity, updated at or after since,
	// that carries the reply marker (command.Marked).
	Replied(ctx context.Context, number int, commentID int64, since time.Time) (bool, error)
	// React adds a reaction to a comment.
	React(ctx context.Context, commentID int64, content string) error
}

// Live is GitHub through a go-github client, for one repository.
type Live struct {
	Client      *github.Client
	Owner, Repo string
	// Token and BotLogin tell gcloop's identity (identity.Resolve): the
	// author whose report comments and fix issues are trusted.
	Token, BotLogin string
	// StateKey, when set, trusts only state sealed with it.
	StateKey []byte
	login    string
}

var _ GitHub = (*Live)(nil)

// Identity is gcloop's login, resolved once with at most one request.
func (l *Live) Identity(ctx context.Context) (string, error) {
	if l.login == "" {
		login, err := identity.Resolve(ctx, l.Client.Users, l.Token, l.BotLogin)
		if err != nil {
			return "", err
		}
		l.login = login
	}
	return l.login, nil
}

// Pull implements GitHub.
func (l *Live) Pull(ctx context.Context, number int) (*github.PullRequest, error) {
	pr, _, err := l.Client.PullRequests.Get(ctx, l.Owner, l.Repo, number)
	if err != nil {
		return nil, fmt.Errorf("get pull request #%d: %w", number, ghclient.Explained(err))
	}
	return pr, nil
}

// PullsWithCommit implements GitHub.
func (l *Live) PullsWithCommit(ctx context.Context, sha string) ([]*github.PullRequest, error) {
	prs, _, err := l.Client.PullRequests.ListPullRequestsWithCommit(ctx, l.Owner, l.Repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("find the pull request of commit %s: %w", sha, ghclient.Explained(err))
	}
	return prs, nil
}

// Config implements GitHub: the file is read from ref (the base branch,
// never the PR head); a missing file is nil.
// The file is revalidated with If-None-Match when the client keeps a
// ghclient.ContentCache: an unchanged file costs no quota and is not
// parsed again (the parsed file is shared; nothing changes it).
func (l *Live) Config(ctx context.Context, ref, name string) (*config.File, error) {
	rv := &ghclient.Revalidation{}
	fc, _, resp, err := l.Client.Repositories.GetContents(ghclient.Revalidate(ctx, rv), l.Owner, l.Repo, name, &github.RepositoryContentGetOptions{Ref: ref})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", name, ref, ghclient.Explained(err))
	}
	if fc == nil {
		return nil, fmt.Errorf("read %s from %s: a directory, not a file", name, ref)
	}
	if f, ok := rv.Kept().(*config.File); ok && f.Name == name {
		return f, nil
	}
	text, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", name, ref, err)
	}
	f, err := config.Parse(name, strings.NewReader(text))
	if err == nil {
		rv.Keep(f)
	}
	return f, err
}

// FindReport implements GitHub.
func (l *Live) FindReport(ctx context.Context, pr int, loopID string) (report.Found, error) {
	login, err := l.Identity(ctx)
	if err != nil {
		return report.Found{}, err
	}
	found, err := report.FindState(ctx, l.Client.Issues, l.Owner, l.Repo, pr, loopID, report.Trust{Login: login, Key: l.StateKey})
	if err != nil {
		return report.Found{}, ghclient.Explained(err)
	}
	return found, nil
}

// Snapshot implements GitHub.
func (l *Live) Snapshot(ctx context.Context, sha string, ws pushfix.Workspace) (*pushfix.Snapshot, error) {
	return pushfix.Scan(ctx, l.Client.Git, l.Client.Repositories, l.Owner, l.Repo, sha, ws)
}

// ApplyPatch implements GitHub.
func (l *Live) ApplyPatch(ctx context.Context, sha string, p *pushfix.Patch) (*pushfix.Snapshot, error) {
	return pushfix.ApplyPatch(ctx, l.Client.Git, l.Client.Repositories, l.Owner, l.Repo, sha, p)
}

// Permission implements GitHub.
func (l *Live) Permission(ctx context.Context, user, min string) (string, bool, error) {
	return command.Authorize(ctx, command.RoleClient{Client: l.Client}, l.Owner, l.Repo, user, min)
}

// Push implements GitHub: never to the repository's default branch or a
// protected branch (pushfix.CheckBranch, two reads paid only by a round
// that has a commit to push).
func (l *Live) Push(ctx context.Context, spec pushfix.PushSpec) (string, error) {
	if err := pushfix.CheckBranch(ctx, l.Client.Repositories, spec.Owner, spec.Repo, spec.Branch); err != nil {
		return "", err
	}
	return pushfix.Push(ctx, l.Client.Git, spec)
}

// SyncIssues implements GitHub; the issues gcloop trusts are its own.
func (l *Live) SyncIssues(ctx context.Context, spec publish.SyncSpec) (publish.SyncResult, error) {
	login, err := l.Identity(ctx)
	if err != nil {
		return publish.SyncResult{}, err
	}
	spec.BotLogin = login
	return publish.SyncIssues(ctx, l.Client.Issues, spec)
}

// Dispatch implements GitHub.
func (l *Live) Dispatch(ctx context.Context, workflow, ref string, pr int) error {
	_, err := l.Client.Actions.CreateWorkflowDispatchEventByFileName(ctx, l.Owner, l.Repo, workflow,
		github.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: map[string]any{"pr": fmt.Sprint(pr)}})
	if err != nil {
		return fmt.Errorf("dispatch %s on %s: %w", workflow, ref, ghclient.Explained(err))
	}
	return nil
}

// Check implements GitHub.
func (l *Live) Check(ctx context.Context, spec check.Spec) (check.Result, error) {
	return check.Publish(ctx, check.Service{Client: l.Client}, l.Client.Repositories, spec)
}

// Comment implements GitHub.
func (l *Live) Comment(ctx context.Context, id int64) (*github.IssueComment, error) {
	c, resp, err := l.Client.Issues.GetComment(ctx, l.Owner, l.Repo, id)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("comment %d: %w", id, ErrGone)
	}
	if err != nil {
		return nil, fmt.Errorf("read comment %d: %w", id, ghclient.Explained(err))
	}
	return c, nil
}

// UpsertReport implements GitHub.
func (l *Live) UpsertReport(ctx context.Context, pr int, existing *github.IssueComment, body string) (*github.IssueComment, error) {
	c, err := report.Swap(ctx, l.Client.Issues, l.Owner, l.Repo, pr, existing, body)
	if err != nil {
		return nil, ghclient.Explained(err)
	}
	return c, nil
}

// Reply implements GitHub.
func (l *Live) Reply(ctx context.Context, number int, body string) error {
	_, _, err := l.Client.Issues.CreateComment(ctx, l.Owner, l.Repo, number, &github.IssueComment{Body: &body})
	if err != nil {
		return fmt.Errorf("reply on #%d: %w", number, ghclient.Explained(err))
	}
	return nil
}

// maxReplyPages bounds the comment pages Replied reads: 1 000 comments
// after the command's own.
const maxReplyPages = 10

// Replied implements GitHub: the comments updated since the command's
// (GitHub's since filter), which are few, are read for gcloop's marked
// reply.
func (l *Live) Replied(ctx context.Context, number int, commentID int64, since time.Time) (bool, error) {
	login, err := l.Identity(ctx)
	if err != nil {
		return false, err
	}
	opts := &github.IssueListCommentsOptions{Since: &since, ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxReplyPages; page++ {
		cs, resp, err := l.Client.Issues.ListComments(ctx, l.Owner, l.Repo, number, opts)
		if err != nil {
			return false, fmt.Errorf("look for the reply to comment %d on #%d: %w", commentID, number, ghclient.Explained(err))
		}
		for _, c := range cs {
			if strings.EqualFold(c.GetUser().GetLogin(), login) && command.Answers(c.GetBody(), commentID) {
				return true, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
	return false, nil
}

// React implements GitHub.
func (l *Live) React(ctx context.Context, commentID int64, content string) error {
	return command.React(ctx, l.Client.Reactions, l.Owner, l.Repo, commentID, content)
}

// ErrGone is returned by Comment for a comment that was deleted.
var ErrGone = errors.New("the comment is gone")

// ErrOffline is returned by a Recorder for a read that needs the API.
var ErrOffline = errors.New("a dry run does not call the GitHub API")

package round

import (
	"fmt"

	"github.com/google/go-github/v62/github"
)

// Event is what started a round: the workflow run of the action, or the
// webhook delivery of the bot.
type Event struct {
	Name        string // pull_request, workflow_run, workflow_dispatch, issue_comment, ...
	Owner, Repo string
	SHA         string // the event's commit (GITHUB_SHA)
	RunID       int64
	RunAttempt  int
	Actor       string
	ServerURL   string // https://github.com

	// Pull is the pull request the event names, when it names one.
	Pull *Pull
	// Run is the workflow run of a workflow_run event.
	Run *github.WorkflowRun
	// Comment is the comment of an issue_comment event on a pull request.
	Comment *github.IssueCommentEvent
	// DispatchPR is the `pr` input of a workflow_dispatch event.
	DispatchPR int
	// MergeGroup is the group of a merge_group event (a merge queue's
	// checks_requested).
	MergeGroup *github.MergeGroup
}

// RunURL links the workflow run; "" when the event has none.
func (e *Event) RunURL() string {
	if e.Owner == "" || e.Repo == "" || e.RunID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", e.ServerURL, e.Owner, e.Repo, e.RunID)
}

// BlobURL is the link prefix of files at sha: <server>/<owner>/<repo>/blob/<sha>/.
func (e *Event) BlobURL(sha string) string {
	if e.Owner == "" || sha == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/blob/%s/", e.ServerURL, e.Owner, e.Repo, sha)
}

// Pull is what a round needs of a pull request.
type Pull struct {
	Number  int
	HeadSHA string
	HeadRef string
	// HeadRepoID is the head repository's id; 0 when GitHub sends none
	// (`head.repo: null`: the fork was deleted).
	HeadRepoID int64
	BaseRepoID int64
	BaseRef    string
	HTMLURL    string
}

// Fork reports whether the pull request comes from another repository. A
// missing head repository (a deleted fork) counts as a fork: nothing can
// be pushed to it or dispatched on it.
func (p *Pull) Fork() bool { return p.HeadRepoID == 0 || p.HeadRepoID != p.BaseRepoID }

// PullFrom converts go-github's pull request.
func PullFrom(pr *github.PullRequest) *Pull {
	return &Pull{
		Number:     pr.GetNumber(),
		HeadSHA:    pr.GetHead().GetSHA(),
		HeadRef:    pr.GetHead().GetRef(),
		HeadRepoID: pr.GetHead().GetRepo().GetID(),
		BaseRepoID: pr.GetBase().GetRepo().GetID(),
		BaseRef:    pr.GetBase().GetRef(),
		HTMLURL:    pr.GetHTMLURL(),
	}
}

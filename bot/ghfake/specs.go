package ghfake

// The world as a test describes it (the Add* methods' specs) and as it
// reads it back (the views the inspection methods return).

import "time"

// PullSpec describes a pull request for AddPull.
type PullSpec struct {
	Number int
	Title  string
	Body   string
	User   string // login of the author
	State  string // open (default) or closed
	Draft  bool
	Merged bool
	// HeadSHA and HeadRef are the PR head commit and branch name.
	HeadSHA string
	HeadRef string
	// HeadRepo is the head repository's full name and HeadRepoID its id;
	// they default to the base repository. A HeadRepoID different from the
	// base repository's id makes the PR a fork PR.
	HeadRepo   string
	HeadRepoID int64
	// BaseRef defaults to the repository's default branch.
	BaseRef string
	BaseSHA string
	Labels  []string
}

// RunSpec describes a workflow run for AddWorkflowRun.
type RunSpec struct {
	ID         int64
	Name       string // workflow name, default "CI"
	Path       string // workflow file, default ".github/workflows/ci.yml"
	HeadSHA    string
	HeadBranch string
	Event      string // default "pull_request"
	Status     string // default "completed"
	Conclusion string // default "success"
	// HeadRepoID is the head repository's id (default: the repository);
	// HeadRepo its full name.
	HeadRepoID int64
	HeadRepo   string
	// PullRequests lists the numbers of PRs (added with AddPull) the run
	// belongs to.
	PullRequests []int
}

// IssueSpec describes an issue for AddIssue.
type IssueSpec struct {
	Title  string
	Body   string
	Author string
	Labels []string
	State  string // open (default) or closed
}

// Comment is an issue or PR comment as the fake holds it.
type Comment struct {
	ID        int64
	Issue     int
	Author    string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issue is an issue (or, with IsPull, a PR's issue side) as the fake holds it.
type Issue struct {
	Number      int
	Title       string
	Body        string
	State       string
	StateReason string
	Author      string
	Labels      []string
	IsPull      bool
	Comments    int
}

// Label is a repository label.
type Label struct {
	ID          int64
	Name        string
	Color       string
	Description string
}

// Reaction is a reaction on an issue comment.
type Reaction struct {
	ID      int64
	User    string
	Content string
}

// CommitInfo describes a commit of the object store.
type CommitInfo struct {
	SHA     string
	Message string
	Tree    string
	Parents []string
	// Author and Committer are what the creating request sent; nil when
	// it sent none (GitHub then signs the commit: Verified).
	Author    *Signature
	Committer *Signature
	Verified  bool
}

// Dispatch is one accepted workflow_dispatch.
type Dispatch struct {
	Workflow string // workflow_id as sent: a file name or an id
	Ref      string
	Inputs   map[string]any
	By       string // login of the token's user
}

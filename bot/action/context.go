package action

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"
)

// maxEventBytes caps the event payload read from GITHUB_EVENT_PATH.
const maxEventBytes = 25 << 20

// Context is the workflow run the action runs in, from the GITHUB_*
// variables and the event payload.
type Context struct {
	EventName   string
	Owner, Repo string
	SHA         string
	RunID       int64
	RunAttempt  int
	Actor       string
	ServerURL   string // https://github.com
	APIURL      string // https://api.github.com
	Workspace   string
	OutputPath  string // GITHUB_OUTPUT; "" when unset
	SummaryPath string // GITHUB_STEP_SUMMARY; "" when unset

	// Pull is the pull request the event names, when it names one.
	Pull *Pull
	// Run is the workflow run of a workflow_run event.
	Run *github.WorkflowRun
	// Comment is the comment of an issue_comment event on a pull request.
	Comment *github.IssueCommentEvent
	// DispatchPR is the `pr` input of a workflow_dispatch event.
	DispatchPR int
}

// Pull is what the action needs of a pull request.
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

// pullFrom converts go-github's pull request.
func pullFrom(pr *github.PullRequest) *Pull {
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

// ReadContext reads the workflow context through getenv and the event
// payload file it names.
func ReadContext(getenv func(string) string) (*Context, error) {
	c := &Context{
		EventName:   getenv("GITHUB_EVENT_NAME"),
		SHA:         getenv("GITHUB_SHA"),
		Actor:       getenv("GITHUB_ACTOR"),
		ServerURL:   strings.TrimSuffix(or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
		APIURL:      or(getenv("GITHUB_API_URL"), "https://api.github.com"),
		Workspace:   getenv("GITHUB_WORKSPACE"),
		OutputPath:  getenv("GITHUB_OUTPUT"),
		SummaryPath: getenv("GITHUB_STEP_SUMMARY"),
	}
	if repo := getenv("GITHUB_REPOSITORY"); repo != "" {
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("GITHUB_REPOSITORY %q: want owner/name", repo)
		}
		c.Owner, c.Repo = owner, name
	}
	if s := getenv("GITHUB_RUN_ID"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("GITHUB_RUN_ID %q: want a number", s)
		}
		c.RunID = n
	}
	if s := getenv("GITHUB_RUN_ATTEMPT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("GITHUB_RUN_ATTEMPT %q: want a number", s)
		}
		c.RunAttempt = n
	}
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return c, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read event payload: %w", err)
	}
	defer f.Close()
	if err := c.readEvent(io.LimitReader(f, maxEventBytes)); err != nil {
		return nil, fmt.Errorf("read event payload %s: %w", path, err)
	}
	return c, nil
}

// readEvent decodes the payload of the events the action handles; others
// are read for nothing.
func (c *Context) readEvent(r io.Reader) error {
	dec := json.NewDecoder(r)
	switch c.EventName {
	case "pull_request", "pull_request_target":
		var ev github.PullRequestEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		if ev.PullRequest != nil {
			c.Pull = pullFrom(ev.PullRequest)
		}
	case "workflow_run":
		var ev github.WorkflowRunEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		c.Run = ev.WorkflowRun
	case "issue_comment":
		var ev github.IssueCommentEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		c.Comment = &ev
	case "workflow_dispatch":
		var ev struct {
			Inputs map[string]any `json:"inputs"`
		}
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		switch v := ev.Inputs["pr"].(type) {
		case string:
			if v != "" {
				n, err := strconv.Atoi(strings.TrimPrefix(v, "#"))
				if err != nil || n <= 0 || n > 1<<31 {
					return fmt.Errorf("workflow_dispatch input pr %q: want a pull request number", v)
				}
				c.DispatchPR = n
			}
		case float64:
			if v < 1 || v > 1<<31 || v != float64(int64(v)) {
				return fmt.Errorf("workflow_dispatch input pr %v: want a pull request number", v)
			}
			c.DispatchPR = int(v)
		}
	}
	return nil
}

// RunURL links the workflow run that runs gcloop, "" outside a run.
func (c *Context) RunURL() string {
	if c.Owner == "" || c.Repo == "" || c.RunID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", c.ServerURL, c.Owner, c.Repo, c.RunID)
}

// BlobURL is the link prefix of files at sha: <server>/<owner>/<repo>/blob/<sha>/.
func (c *Context) BlobURL(sha string) string {
	if c.Owner == "" || sha == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/blob/%s/", c.ServerURL, c.Owner, c.Repo, sha)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

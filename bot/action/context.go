package action

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/google/go-github/v62/github"
)

// maxEventBytes caps the event payload read from GITHUB_EVENT_PATH.
const maxEventBytes = 25 << 20

// Context is the workflow run the action runs in, from the GITHUB_*
// variables and the event payload: the round's event and where the
// action reads and writes.
type Context struct {
	round.Event
	APIURL      string // https://api.github.com
	Workspace   string
	OutputPath  string // GITHUB_OUTPUT; "" when unset
	SummaryPath string // GITHUB_STEP_SUMMARY; "" when unset
}

// Pull is what the action needs of a pull request.
type Pull = round.Pull

// ReadContext reads the workflow context through getenv and the event
// payload file it names.
func ReadContext(getenv func(string) string) (*Context, error) {
	c := &Context{
		Event: round.Event{
			Name:      getenv("GITHUB_EVENT_NAME"),
			SHA:       getenv("GITHUB_SHA"),
			Actor:     getenv("GITHUB_ACTOR"),
			ServerURL: strings.TrimSuffix(or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
		},
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
	switch c.Name {
	case "pull_request", "pull_request_target":
		var ev github.PullRequestEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		if ev.PullRequest != nil {
			c.Pull = round.PullFrom(ev.PullRequest)
		}
	case "workflow_run":
		var ev github.WorkflowRunEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		c.Run = ev.WorkflowRun
	case "merge_group":
		var ev github.MergeGroupEvent
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		if ev.GetAction() == "checks_requested" && ev.GetMergeGroup().GetHeadSHA() != "" {
			c.MergeGroup = ev.MergeGroup
		}
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

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

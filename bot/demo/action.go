package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ActionRun is what `gcloop run` (the action) needs to run one round on
// the pull request Try against the world's fake GitHub, as a workflow
// step would: a workspace holding the critic's evidence and the event
// payload, and the environment GitHub's runner sets.
type ActionRun struct {
	Dir string            // the workspace; Remove deletes it
	Env map[string]string // the variables to set
}

// PrepareAction writes the workspace of an action run on w.Try: the
// pull_request event and a review with findings.
func (w *World) PrepareAction() (*ActionRun, error) {
	dir, err := os.MkdirTemp("", "gcloop-demo-action-")
	if err != nil {
		return nil, fmt.Errorf("the action's workspace: %w", err)
	}
	p := w.Try
	repo := obj{"id": w.repoID(p.Repo), "name": p.Repo, "full_name": Org + "/" + p.Repo}
	event, err := json.Marshal(obj{"action": "opened", "number": p.Number, "pull_request": obj{
		"number": p.Number, "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", Org, p.Repo, p.Number),
		"head": obj{"sha": p.Head(), "ref": p.Branch, "repo": repo},
		"base": obj{"ref": "main", "repo": repo},
	}, "repository": repository(p.Repo, w.repoID(p.Repo))})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "event.json"), event, 0o600)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "review-results.json"), sample("review-findings.json"), 0o600)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the action's workspace: %w", err)
	}
	return &ActionRun{Dir: dir, Env: map[string]string{
		"GITHUB_API_URL":    strings.TrimSuffix(w.GH.URL(), "/"),
		"GITHUB_REPOSITORY": Org + "/" + p.Repo,
		"GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_EVENT_PATH": filepath.Join(dir, "event.json"),
		"GITHUB_WORKSPACE":  dir,
		"GITHUB_SHA":        p.Head(),
		"INPUT_TOKEN":       ActionToken,
		"INPUT_EVIDENCE":    "review-results.json",
	}}, nil
}

// Line is the run as one shell line: the variables, then `gcloop run`.
func (a *ActionRun) Line() string {
	var b strings.Builder
	for _, k := range []string{"GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH",
		"GITHUB_WORKSPACE", "GITHUB_SHA", "INPUT_TOKEN", "INPUT_EVIDENCE"} {
		fmt.Fprintf(&b, "%s=%s ", k, shellQuote(a.Env[k]))
	}
	b.WriteString("gcloop run")
	return b.String()
}

// Remove deletes the workspace.
func (a *ActionRun) Remove() error { return os.RemoveAll(a.Dir) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

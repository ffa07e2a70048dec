package round

import (
	"context"
	"fmt"
	"time"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/google/go-github/v62/github"
)

// Recorder is the dry run's GitHub: it reads nothing from the API — a read
// it cannot answer from what it was given fails with ErrOffline — and
// records every write instead of making it.
type Recorder struct {
	// ConfigFile answers Config: the driver reads the configuration from
	// the workspace.
	ConfigFile *config.File
	// Writes are the writes a live run would have made, in order.
	Writes []Write
}

// Write is one recorded write: what it is ("push", "issues", "dispatch",
// "check", "comment", "reply", "reaction") and its text.
type Write struct {
	Kind, Text string
}

var _ GitHub = (*Recorder)(nil)

func (r *Recorder) record(kind, format string, args ...any) {
	r.Writes = append(r.Writes, Write{Kind: kind, Text: fmt.Sprintf(format, args...)})
}

// Pull implements GitHub: it needs the API.
func (r *Recorder) Pull(context.Context, int) (*github.PullRequest, error) { return nil, ErrOffline }

// PullsWithCommit implements GitHub: it needs the API.
func (r *Recorder) PullsWithCommit(context.Context, string) ([]*github.PullRequest, error) {
	return nil, ErrOffline
}

// Config implements GitHub with the configuration the driver gave.
func (r *Recorder) Config(context.Context, string, string) (*config.File, error) {
	return r.ConfigFile, nil
}

// FindReport implements GitHub: a dry run starts from a fresh state.
func (r *Recorder) FindReport(context.Context, int, string) (report.Found, error) {
	return report.Found{}, nil
}

// Snapshot implements GitHub: comparing with a commit needs the API.
func (r *Recorder) Snapshot(context.Context, string, pushfix.Workspace) (*pushfix.Snapshot, error) {
	return nil, ErrOffline
}

// ApplyPatch implements GitHub: the old contents need the API.
func (r *Recorder) ApplyPatch(context.Context, string, *pushfix.Patch) (*pushfix.Snapshot, error) {
	return nil, ErrOffline
}

// Permission implements GitHub: it needs the API.
func (r *Recorder) Permission(context.Context, string, string) (string, bool, error) {
	return "", false, ErrOffline
}

// Push implements GitHub.
func (r *Recorder) Push(_ context.Context, spec pushfix.PushSpec) (string, error) {
	r.record("push", "%d file(s) on %s", len(spec.Changes), spec.Branch)
	return "", nil
}

// SyncIssues implements GitHub: the issues are planned, none is written.
func (r *Recorder) SyncIssues(ctx context.Context, spec publish.SyncSpec) (publish.SyncResult, error) {
	spec.DryRun = true
	out, err := publish.SyncIssues(ctx, nil, spec)
	r.record("issues", "%d planned", len(out.Planned))
	return out, err
}

// Dispatch implements GitHub.
func (r *Recorder) Dispatch(_ context.Context, workflow, ref string, pr int) error {
	r.record("dispatch", "%s on %s for #%d", workflow, ref, pr)
	return nil
}

// Check implements GitHub.
func (r *Recorder) Check(_ context.Context, spec check.Spec) (check.Result, error) {
	r.record("check", "%s on %s: %s", check.Name(spec.LoopID), spec.SHA, spec.Conclusion)
	return check.Result{Planned: true}, nil
}

// Comment implements GitHub: a dry run reads no comment.
func (r *Recorder) Comment(context.Context, int64) (*github.IssueComment, error) {
	return nil, ErrOffline
}

// UpsertReport implements GitHub.
func (r *Recorder) UpsertReport(_ context.Context, pr int, _ *github.IssueComment, body string) (*github.IssueComment, error) {
	r.record("comment", "report on #%d, %d bytes", pr, len(body))
	return &github.IssueComment{Body: &body}, nil
}

// Reply implements GitHub.
func (r *Recorder) Reply(_ context.Context, number int, body string) error {
	r.record("reply", "on #%d, %d bytes", number, len(body))
	return nil
}

// Replied implements GitHub: a dry run has posted no reply.
func (r *Recorder) Replied(context.Context, int, int64, time.Time) (bool, error) {
	return false, nil
}

// React implements GitHub.
func (r *Recorder) React(_ context.Context, id int64, content string) error {
	r.record("reaction", "%s on comment %d", content, id)
	return nil
}

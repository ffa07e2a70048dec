package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
	"io"
)

// reserve is kept from the timeout to write the outputs of a cut-short run.
const reserve = 5 * time.Second

// Runner runs the action once: it gathers the evidence of the workspace
// and the artifacts and hands the round to the round engine.
type Runner struct {
	Opts *Options
	Ctx  *Context
	// GH is the GitHub client; nil in a dry run, which runs the round on a
	// recording GitHub (round.Recorder).
	GH *github.Client
	// Plain fetches artifact blobs; it never carries the token.
	Plain *http.Client
	// Out receives, in a dry run, what would be done.
	Out io.Writer
	// Log receives the progress lines; nil logs nothing.
	Log *Log
	Now func() time.Time
	// BotLogin is gcloop's identity; "" resolves it from the token and
	// the bot-login input (identity.Resolve) on first use.
	BotLogin string
}

// Result is what a run did.
type Result = round.Result

// CommandResult is what a /gc command run did.
type CommandResult = round.CommandResult

// ErrNoPull means the event names no pull request the action can act on.
var ErrNoPull = round.ErrNoPull

// engine is the round engine of this run: on GitHub, or on a recorder in
// a dry run (which reads the configuration from the workspace).
func (r *Runner) engine() (*round.Engine, error) {
	e := &round.Engine{Event: &r.Ctx.Event, Log: r.Log, Now: r.Now, Opts: round.Options{
		Loop: r.Opts.Loop, ID: r.Opts.ID, Config: r.Opts.Config, Comment: r.Opts.Comment, Check: r.Opts.Check,
		StateKey: r.Opts.StateKey, Timeout: r.Opts.Timeout, Overrides: r.Opts.Overrides,
		// bot-login names an App installation token, whose pushes start
		// workflows (GITHUB_TOKEN's do not).
		PushStartsRuns: r.Opts.BotLogin != ""}}
	if r.Log == nil {
		e.Log = nil // no typed nil in the interface
	}
	if r.GH != nil {
		e.GH = &round.Live{Client: r.GH, Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, Token: r.Opts.Token,
			BotLogin: or(r.BotLogin, r.Opts.BotLogin), StateKey: []byte(r.Opts.StateKey)}
		return e, nil
	}
	file, err := readLocalConfig(r.Ctx.Workspace, r.Opts.Config)
	if err != nil {
		return nil, err
	}
	e.GH = &round.Recorder{ConfigFile: file}
	return e, nil
}

// Run runs the round (or the /gc command) of the event. A run cut short by
// the timeout returns the decision it has with status partial and no
// error.
func (r *Runner) Run(ctx context.Context) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, max(r.Opts.Timeout-reserve, r.Opts.Timeout/2))
	defer cancel()
	eng, err := r.engine()
	if err != nil {
		return nil, err
	}
	if r.Ctx.Comment != nil {
		return eng.Command(ctx)
	}
	res := &Result{}
	if r.Ctx.MergeGroup != nil {
		// A merge queue's group: the loops' conclusions from their
		// reports, no evidence read and no critic run.
		return res, eng.MergeGroup(ctx, res)
	}
	r.Log.Group("evidence")
	in := round.Input{Workspace: r.Ctx.Workspace}
	in.Pull, err = eng.Pull(ctx)
	switch {
	case err == nil:
	case errors.Is(err, ErrNoPull) && r.GH == nil:
		in.Pull = nil // a dry run decides without a pull request
	case errors.Is(err, ErrNoPull):
		return nil, err
	default:
		in.APIError = err
	}
	pieces, art, err := r.readEvidence(ctx, res)
	if err != nil {
		if !artifact.Refused(err) || in.Pull == nil || in.APIError != nil {
			return nil, err
		}
		// A bomb, an artifact over the budget, an unsafe or broken zip:
		// the same neutral round as the bot's.
		why := err.Error()
		if errors.Is(err, artifact.ErrTooLarge) {
			why += fmt.Sprintf(" (at most %s of artifacts are unpacked per round)", artifact.Size(artifact.DefaultBudget))
		}
		r.Log.Printf("artifacts refused: %s", why)
		if err := eng.Refuse(ctx, in.Pull, why, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	if in.Evidence, err = decide.Merge(pieces...); err != nil {
		return nil, err
	}
	in.Own = append(in.Own, res.EvidenceFiles...)
	if b := r.Opts.Baseline; b != "" {
		in.Own = append(in.Own, b)
	}
	in.Baseline, in.BaselineErr = r.readBaseline()
	r.handOver(&in, art)
	if err := eng.Run(ctx, in, res); err != nil {
		return nil, err
	}
	if r.GH == nil {
		r.Log.Printf("effects: none, a dry run writes nothing to GitHub")
	}
	return res, nil
}

// readEvidence reads the workspace evidence and the artifacts; the
// artifacts' read is returned too (nil without artifacts), for the patch
// and baseline they may hand over.
func (r *Runner) readEvidence(ctx context.Context, res *Result) ([]*decide.Evidence, *artifact.Read, error) {
	ws, err := evidence.OpenWorkspace(r.Ctx.Workspace)
	if err != nil {
		return nil, nil, err
	}
	defer ws.Close()
	if b := r.Opts.Baseline; b != "" {
		ws.Except(b) // the unchanged head's test results are the guard's, never evidence
	}
	files, err := ws.Files(r.Opts.Evidence)
	if err != nil {
		return nil, nil, err
	}
	res.EvidenceFiles = files
	pieces, err := ws.Read(files, r.Opts.Loop)
	if err != nil {
		return nil, nil, err
	}
	for i, e := range pieces {
		r.Log.logEvidence(files[i], e)
	}
	if len(r.Opts.Artifacts) == 0 {
		return pieces, nil, nil
	}
	if r.GH == nil {
		return nil, nil, errors.New("input artifacts: downloading artifacts needs the API; a dry run reads workspace evidence only")
	}
	runID := r.Opts.RunID
	if runID == 0 {
		runID = r.Ctx.RunID
		if r.Ctx.Run != nil {
			runID = r.Ctx.Run.GetID()
		}
	}
	read, err := artifact.Evidence(ctx, r.GH.Actions, r.Plain, r.Ctx.Owner, r.Ctx.Repo, runID, r.Opts.Artifacts, r.Opts.Loop, artifact.Limits{})
	if err != nil {
		return nil, nil, err
	}
	r.Log.Printf("artifacts of workflow run %d: %d found for %s", runID, read.Artifacts, strings.Join(r.Opts.Artifacts, ", "))
	for _, name := range read.Skipped {
		r.Log.Printf("artifact %s: not a format gcloop reads, passed over", name)
	}
	for _, p := range read.Pieces {
		r.Log.logEvidence("artifact "+p.Name, p.Evidence)
		pieces = append(pieces, p.Evidence)
	}
	return pieces, read, nil
}

// readBaseline reads the baseline input: test results of the unchanged
// head, opened inside the workspace only. nil when the input is empty.
func (r *Runner) readBaseline() (*decide.TestFacts, error) {
	name := r.Opts.Baseline
	if name == "" {
		return nil, nil
	}
	root, err := os.OpenRoot(r.Ctx.Workspace)
	if err != nil {
		return nil, fmt.Errorf("input baseline: open the workspace: %w", err)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(path.Clean(name)))
	if err != nil {
		return nil, fmt.Errorf("input baseline %s: %w", name, err)
	}
	defer f.Close()
	t, err := evidence.ReadTests(name, f)
	if err != nil {
		return nil, fmt.Errorf("input baseline: %w", err)
	}
	return t, nil
}

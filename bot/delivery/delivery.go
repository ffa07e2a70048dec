// Package delivery turns a webhook delivery of the GitHub App into the
// round engine's calls (bot/round): a command for an issue_comment, a
// server-side round for a completed workflow_run, the fix issues closed
// for a closed pull request. It adds no judgment of its own; what it did
// goes to the event log.
package delivery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// Clients hands out GitHub clients: one per App installation, or the
// single-repository token's (installation 0).
type Clients interface {
	Client(ctx context.Context, installation int64) (*github.Client, error)
}

// Log is where the events of the deliveries go.
type Log interface {
	Append(ctx context.Context, e event.Event) (event.Event, error)
}

// Handler handles deliveries.
type Handler struct {
	Clients Clients
	// Login is gcloop's identity on GitHub: the App's "<slug>[bot]", or the
	// token's user.
	Login string
	// Token is the single-repository token, for the identity of its
	// comments; "" with an App.
	Token string
	// Config is the configuration file's path ("" = .github/gcloop.yml).
	Config string
	// StateKey seals and checks the state, as the action's state-key.
	StateKey string
	// Plain downloads artifact blobs (never with the token).
	Plain *http.Client
	// Timeout bounds one delivery's work (default 5 minutes).
	Timeout time.Duration
	// ArtifactBudget is the bytes a round may unpack from its artifacts
	// (0 = artifact.DefaultBudget); a round over it is refused.
	ArtifactBudget int64
	Log            Log
	Now            func() time.Time
}

// ErrIgnored is a delivery the bot has nothing to do for.
var ErrIgnored = errors.New("nothing to do")

// Handle does the work of one delivery: name is the X-GitHub-Event
// header, payload the JSON body.
func (h *Handler) Handle(ctx context.Context, id, name string, payload []byte) error {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ev, err := github.ParseWebHook(name, payload)
	if err != nil {
		return fmt.Errorf("delivery %s: %s payload: %w", id, name, err)
	}
	switch ev := ev.(type) {
	case *github.IssueCommentEvent:
		if ev.GetAction() != "created" || ev.GetIssue() == nil || !ev.GetIssue().IsPullRequest() {
			return ErrIgnored
		}
		return h.command(ctx, ev)
	case *github.WorkflowRunEvent:
		if ev.GetAction() != "completed" {
			return ErrIgnored
		}
		return h.workflowRun(ctx, ev)
	case *github.PullRequestEvent:
		if ev.GetAction() != "closed" {
			return ErrIgnored
		}
		return h.closed(ctx, ev)
	case *github.MergeGroupEvent, *github.CheckRunEvent, *github.CheckSuiteEvent:
		return h.checks(ctx, ev)
	}
	return ErrIgnored
}

// engine is a round engine on repo for ev.
func (h *Handler) engine(ctx context.Context, installation int64, repo *github.Repository, ev *round.Event, o round.Options) (*round.Engine, error) {
	c, err := h.Clients.Client(ctx, installation)
	if err != nil {
		return nil, fmt.Errorf("client of installation %d: %w", installation, err)
	}
	ev.Owner, ev.Repo = repo.GetOwner().GetLogin(), repo.GetName()
	ev.ServerURL = serverURL(repo)
	if o.Config == "" {
		o.Config = or(h.Config, ".github/gcloop.yml")
	}
	o.StateKey = h.StateKey
	live := &round.Live{Client: c, Owner: ev.Owner, Repo: ev.Repo, Token: h.Token, BotLogin: h.Login, StateKey: []byte(h.StateKey)}
	return &round.Engine{GH: live, Event: ev, Opts: o, Now: h.now}, nil
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// command handles a /gc command; a command naming no loop goes to the only
// loop the repository configures, if it configures exactly one. A comment
// that runs no command — most comments: no /gc line, or written by a bot,
// gcloop's own reports included — is ignored before any request to GitHub.
func (h *Handler) command(ctx context.Context, ev *github.IssueCommentEvent) error {
	c := ev.GetComment()
	if _, _, ok := command.Filter(command.Event{Action: ev.GetAction(), IsPR: ev.GetIssue().IsPullRequest(),
		Body: c.GetBody(), Author: c.GetUser().GetLogin(), AuthorType: c.GetUser().GetType()}); !ok {
		return ErrIgnored
	}
	e, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), &round.Event{Name: "issue_comment", Comment: ev, Actor: ev.GetSender().GetLogin()}, round.Options{Check: true})
	if err != nil {
		return err
	}
	if file, err := e.GH.Config(ctx, "", e.Opts.Config); err == nil && file != nil && len(file.Sections()) == 1 {
		e.Opts.ID = file.Sections()[0].ID
	}
	// Every event names the loop the command resolved to (a /gc retry
	// without a loop id goes to the repository's only loop).
	res, err := e.Command(ctx)
	return h.commandDone(ctx, e, ev.GetIssue().GetNumber(), e.Opts.ID, res, err)
}

// commandDone logs what a command did — from a /gc comment or a check
// run's button — and says whether the delivery is done: a command whose
// effects failed for a while is tried again.
func (h *Handler) commandDone(ctx context.Context, e *round.Engine, pr int, loop string, res *round.Result, err error) error {
	if res != nil && res.Command != nil && res.Command.LoopID != "" {
		loop = res.Command.LoopID
	}
	if err != nil {
		h.emit(ctx, e, pr, loop, event.Error, map[string]any{"error": err.Error()})
		return Logged(err)
	}
	if c := res.Command; c != nil {
		data := map[string]any{"verb": c.Command.Verb, "by": c.Author, "refused": c.Refused, "dispatched": c.Dispatched}
		if c.Ignored != "" {
			data["ignored"] = c.Ignored
		}
		if c.Button != "" {
			// A button has no comment to answer on: the refusal's reason
			// is in the feed.
			data["button"] = c.Button
			if c.Refused {
				data["reason"] = c.Reply
			}
		}
		h.emit(ctx, e, pr, loop, event.Command, data)
	}
	if err := res.Incomplete; err != nil && ghclient.Transient(err) {
		// The command is in the state; what follows from it failed for a
		// while. Tried again, the same command finds itself applied and
		// carries out only those effects again.
		h.emit(ctx, e, pr, loop, event.Error, map[string]any{"error": err.Error(), "retry": true})
		return Logged(fmt.Errorf("/gc command on #%d incomplete: %w", pr, err))
	}
	return nil
}

// workflowRun runs a server-side round for every loop whose configuration
// names the artifacts to read (bot.artifacts), on the run's pull request.
func (h *Handler) workflowRun(ctx context.Context, ev *github.WorkflowRunEvent) error {
	run := ev.GetWorkflowRun()
	base := &round.Event{Name: "workflow_run", Run: run, RunID: run.GetID(), RunAttempt: run.GetRunAttempt(), Actor: ev.GetSender().GetLogin()}
	probe, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), base, round.Options{})
	if err != nil {
		return err
	}
	// The configuration of the default branch says which loops run here.
	file, err := probe.GH.Config(ctx, "", probe.Opts.Config)
	if err != nil {
		return err
	}
	var loops loopRounds
	for _, sec := range file.Sections() {
		set, err := config.Resolve(sec.Loop, sec.ID, file, config.Overrides{})
		if err != nil || len(set.BotArtifacts) == 0 {
			continue
		}
		loops.ran++
		if loops.ran == 1 {
			// Not beside other work on the run's pull request.
			if err := ownKey(ctx, probe, ev.GetRepo().GetFullName()); err != nil {
				return err
			}
		}
		loops.add(sec.ID, h.round(ctx, ev, sec.Loop, sec.ID, set.BotArtifacts))
	}
	return loops.err()
}

// round is one server-side round of loop id on the workflow run's pull
// request, from the run's artifacts names.
func (h *Handler) round(ctx context.Context, ev *github.WorkflowRunEvent, loop decide.Loop, id string, names []string) error {
	run := ev.GetWorkflowRun()
	rev := &round.Event{Name: "workflow_run", Run: run, RunID: run.GetID(), RunAttempt: run.GetRunAttempt(), Actor: ev.GetSender().GetLogin(), SHA: run.GetHeadSHA()}
	e, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), rev, round.Options{Loop: loop, ID: id, Comment: true, Check: true, Buttons: true, Timeout: h.Timeout,
		PushStartsRuns: true})
	if err != nil {
		return err
	}
	pull, err := e.Pull(ctx)
	if errors.Is(err, round.ErrNoPull) {
		return ErrIgnored
	}
	if err != nil {
		return err
	}
	h.emit(ctx, e, pull.Number, id, event.Round, map[string]any{"run": run.GetID(), "sha": run.GetHeadSHA()})
	c, err := h.Clients.Client(ctx, ev.GetInstallation().GetID())
	if err != nil {
		return err
	}
	lim := artifact.Limits{Budget: h.ArtifactBudget}
	read, err := artifact.Evidence(ctx, c.Actions, h.Plain, e.Event.Owner, e.Event.Repo, run.GetID(), names, loop, lim)
	res := &round.Result{}
	switch {
	case artifact.Refused(err):
		// A bomb, an artifact over the budget, an unsafe or broken zip: a
		// neutral round that says so, and the delivery is done — trying
		// again would refuse it again.
		why := err.Error()
		if errors.Is(err, artifact.ErrTooLarge) {
			budget := cmp.Or(max(lim.Budget, 0), artifact.DefaultBudget)
			why += fmt.Sprintf(" (the bot unpacks at most %s of artifacts per round: GCLOOP_ARTIFACT_BUDGET)", artifact.Size(budget))
		}
		h.emit(ctx, e, pull.Number, id, event.Error, map[string]any{"error": why, "refused": true})
		if err := e.Refuse(ctx, pull, why, res); err != nil {
			h.emit(ctx, e, pull.Number, id, event.Error, map[string]any{"error": err.Error()})
			return Logged(err)
		}
	case err != nil:
		h.emit(ctx, e, pull.Number, id, event.Error, map[string]any{"error": err.Error()})
		return Logged(err)
	default:
		pieces := make([]*decide.Evidence, 0, len(read.Pieces))
		for _, p := range read.Pieces {
			pieces = append(pieces, p.Evidence)
		}
		evidence, err := decide.Merge(pieces...)
		if err != nil {
			return err
		}
		// The generator's change, when its run handed one over as a patch,
		// with the test results of the unchanged head beside it.
		in := round.Input{Pull: pull, Evidence: evidence, Patch: read.Patch, PatchErr: read.PatchErr,
			Baseline: read.Baseline, BaselineErr: read.BaselineErr}
		if err := e.Run(ctx, in, res); errors.Is(err, round.ErrStaleRun) {
			// An older run than the loop's last judged one: recorded, ignored.
			h.emit(ctx, e, pull.Number, id, event.Round, map[string]any{"run": run.GetID(), "sha": run.GetHeadSHA(), "ignored": err.Error()})
			return fmt.Errorf("%w: %v", ErrIgnored, err)
		} else if err != nil {
			h.emit(ctx, e, pull.Number, id, event.Error, map[string]any{"error": err.Error()})
			return Logged(err)
		}
	}
	if err := res.Incomplete; err != nil && ghclient.Transient(err) {
		// An effect GitHub refused for a while (a 5xx, a rate limit): the
		// round is carried out again later, and rounds are idempotent —
		// the same round, issues found by their marker, the check run
		// updated — so nothing is done twice.
		h.emit(ctx, e, pull.Number, id, event.Error, map[string]any{"error": err.Error(), "retry": true})
		return Logged(fmt.Errorf("round of %s on #%d incomplete: %w", id, pull.Number, err))
	}
	d := res.Decision
	h.emit(ctx, e, pull.Number, id, event.Decision, decisionData(d))
	if res.CommentURL != "" {
		h.emit(ctx, e, pull.Number, id, event.Comment, map[string]any{"url": res.CommentURL})
	}
	if data := issueData(res); data != nil {
		h.emit(ctx, e, pull.Number, id, event.Issue, data)
	}
	if res.Commit != "" {
		h.emit(ctx, e, pull.Number, id, event.Commit, map[string]any{"sha": res.Commit})
	}
	if res.Check != nil {
		h.emit(ctx, e, pull.Number, id, event.Check, map[string]any{"conclusion": res.Check.Conclusion})
	}
	return nil
}

// closed closes the fix issues of every configured loop of a closed pull
// request.
func (h *Handler) closed(ctx context.Context, ev *github.PullRequestEvent) error {
	e, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), &round.Event{Name: "pull_request", Actor: ev.GetSender().GetLogin()}, round.Options{})
	if err != nil {
		return err
	}
	file, err := e.GH.Config(ctx, "", e.Opts.Config)
	if err != nil {
		return err
	}
	ids := []string{}
	for _, sec := range file.Sections() {
		ids = append(ids, sec.ID)
	}
	if len(ids) == 0 {
		for _, l := range decide.Loops {
			ids = append(ids, string(l))
		}
	}
	var errs []error
	for _, id := range ids {
		closed, err := e.Closed(ctx, ev.GetNumber(), id)
		if len(closed) > 0 {
			h.emit(ctx, e, ev.GetNumber(), id, event.Issue, map[string]any{"closed": closed})
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// emit appends an event; a log that fails loses the event, never the work.
func (h *Handler) emit(ctx context.Context, e *round.Engine, pr int, loop, typ string, data map[string]any) {
	if h.Log == nil {
		return
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return
	}
	_, _ = h.Log.Append(ctx, event.Event{Type: typ, Repo: e.Event.Owner + "/" + e.Event.Repo, PR: pr, Loop: loop, Data: raw})
}

// reportedError is an error whose event the handler logged itself, with
// the loop it was about.
type reportedError struct{ error }

func (r reportedError) Unwrap() error { return r.error }

// Logged marks err as one whose error event the handler logged itself.
func Logged(err error) error { return reportedError{err} }

// WasLogged reports whether the handler logged err's error event itself,
// so that the workers log none of their own for it.
func WasLogged(err error) bool {
	var r reportedError
	return errors.As(err, &r)
}

// serverURL is the web host of a repository: https://github.com, or a
// GitHub Enterprise server's.
func serverURL(repo *github.Repository) string {
	if u := repo.GetHTMLURL(); u != "" {
		if i := len(u) - len(repo.GetFullName()) - 1; i > 0 && u[i:] == "/"+repo.GetFullName() {
			return u[:i]
		}
	}
	return "https://github.com"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

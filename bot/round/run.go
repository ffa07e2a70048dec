package round

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// Options are a round's settings from the driver (the action's inputs,
// the CLI's flags, the bot's configuration).
type Options struct {
	Loop decide.Loop // "" = named by the configuration or the evidence
	ID   string      // loop id; "" = the loop name
	// Config is the configuration file's path in the repository.
	Config string
	// Comment writes the report comment; Check the check run.
	Comment, Check bool
	// Buttons puts the Retry round and Approve buttons on an escalated
	// loop's check run: only for a driver that receives their clicks (the
	// bot's App; GitHub sends a click to the App that wrote the check run,
	// which for GITHUB_TOKEN is GitHub Actions).
	Buttons bool
	// StateKey seals the state (and only sealed state is trusted); "" = unsigned.
	StateKey string
	// Timeout is the driver's time limit, named in the note of a cut-short round.
	Timeout time.Duration
	// Overrides layer over the configuration file.
	Overrides config.Overrides
	// PushStartsRuns says that the driver's token starts workflow runs
	// with its pushes (a GitHub App's installation token, unlike
	// GITHUB_TOKEN): a fix commit then starts the next round by itself,
	// and no dispatch follows it.
	PushStartsRuns bool
}

// Input is what the driver gathered for a round.
type Input struct {
	// Pull is the pull request of the round (Engine.Pull); nil in a dry
	// run that has none.
	Pull *Pull
	// Evidence is the merged evidence.
	Evidence *decide.Evidence
	// Workspace is the checkout the generator changed; "" = none (no
	// commit can be judged).
	Workspace string
	// Own are workspace paths the round itself put there (evidence read,
	// the baseline): they are never part of a fix commit.
	Own []string
	// Baseline is the test results of the unchanged head; BaselineErr why
	// they could not be read.
	Baseline    *decide.TestFacts
	BaselineErr error
	// Patch is the generator's change handed over as a patch in an
	// artifact (the fork-safe split: the generator had no write access);
	// when set, or PatchErr says why it could not be read, it is the
	// round's change set instead of the workspace's.
	Patch    *pushfix.Patch
	PatchErr error
	// APIError is a GitHub failure met before the round (finding the pull
	// request): the round is then decided on the evidence alone.
	APIError error
}

// Result is what a round did.
type Result struct {
	Decision   *decide.Decision
	Settings   config.Settings
	Report     string // the comment body (or the report in a dry run)
	CommentURL string
	Issues     []int
	// Closed and Reopened are the fix issues the round closed (fixed, or
	// the loop settled) and reopened (a fixed finding came back).
	Closed, Reopened []int
	Planned          []publish.PlannedIssue
	Commit           string
	Reverted         []string
	Pushfix          *pushfix.Result
	Dispatched       bool
	Notes            []string // what the run itself noticed (not the decision's)
	// Command is set when the run handled a /gc command; Decision is then
	// nil.
	Command *CommandResult
	// EvidenceFiles are the workspace files read as evidence.
	EvidenceFiles []string
	// Check is the check run the round wrote or would write; nil when
	// none.
	Check *check.Spec
	// APIError is the first GitHub failure that stopped the run's effects;
	// the decision is then partial.
	APIError error
	// Incomplete is the first effect that failed — fix issues, the check
	// run, the dispatch, the report comment — after the round was decided;
	// the decision's notes say so. Rounds are idempotent, so a driver may
	// carry the same round out again (the bot retries one that failed
	// transiently); nil when every effect was carried out.
	Incomplete error
	// checkPlanned: a dry run recorded the check run (Check) and wrote none.
	checkPlanned bool
	// Group is set when the run checked a merge queue's group
	// (Engine.MergeGroup); Decision is then nil.
	Group *GroupResult
}

// incomplete records the first effect of the round that failed.
func (res *Result) incomplete(err error) {
	if res.Incomplete == nil {
		res.Incomplete = err
	}
}

// apiDown records the first GitHub failure.
func (res *Result) apiDown(err error) {
	if res.APIError == nil {
		res.APIError = ghclient.Explained(err)
	}
}

// maxPlans bounds how often a round or a command is planned again when
// its report comment changed on GitHub since it was read.
const maxPlans = 3

// Engine runs rounds for one repository.
type Engine struct {
	GH    GitHub
	Event *Event
	Opts  Options
	Log   Log
	Now   func() time.Time

	// began is when Run began the round (the first plan), for the
	// round's start when no workflow run tells it.
	began time.Time
}

func (e *Engine) log() Log {
	if e.Log == nil {
		return quiet{}
	}
	return e.Log
}

// Run decides the round and carries out its effects. A round cut short by
// ctx returns the decision it has with status partial and no error.
//
// The report comment is written with a compare-and-swap on what the round
// read (report.Swap). When a /gc command or another run wrote it
// meanwhile, the round is decided again on the state as it is now and its
// effects are carried out again from that plan — each is idempotent, so
// they converge on the fresh plan: an abort stays aborted, a retry's
// granted round is kept. At most maxPlans plans; the commit, which cannot
// be taken back, is pushed only after the state was read again, and at
// most once.
func (e *Engine) Run(ctx context.Context, in Input, res *Result) error {
	if e.began.IsZero() {
		e.began = e.Now()
	}
	if in.APIError != nil {
		res.apiDown(in.APIError)
	}
	pull := in.Pull
	var file *config.File
	if res.APIError == nil {
		var err error
		file, err = e.config(ctx, pull)
		var pe *parse.Error
		if err != nil && errors.As(err, &pe) {
			return err
		} else if err != nil {
			res.apiDown(err)
		}
	}
	var (
		found report.Found
		id    = e.Opts.ID
	)
	if pull != nil && res.APIError == nil {
		var err error
		if id == "" {
			id, err = e.loopID(file, in.Evidence)
		}
		if err == nil {
			found, err = e.GH.FindReport(ctx, pull.Number, id)
			if err != nil {
				res.apiDown(fmt.Errorf("read the report comment: %w", err))
			}
		}
	}
	var kept carried
	for plan := 1; ; plan++ {
		again, err := e.plan(ctx, in, res, file, found, plan, &kept)
		if err != nil || !again {
			return err
		}
		e.log().Printf("report comment changed since it was read (a /gc command or another run): deciding the round again on it (plan %d of %d)", plan+1, maxPlans)
		if found, err = e.GH.FindReport(ctx, pull.Number, id); err != nil {
			res.apiDown(fmt.Errorf("read the report comment again: %w", err))
			res.Decision.Status = decide.StatusPartial
			res.Decision.Notes = append(res.Decision.Notes, "the report comment changed during the round and could not be read again ("+ghclient.Explain(err)+"): it was not written")
			return nil
		}
	}
}

// carried is what a round keeps from one plan to the next when its report
// comment changed meanwhile: what cannot or need not be done twice.
type carried struct {
	pushed     bool                // the fix commit (res.Commit) is on the branch
	issues     bool                // a plan touched fix issues: the next syncs them
	check      *decide.CheckRecord // the check run a plan wrote on the judged commit
	commitNote string              // the reason that names the pushed commit
}

// plan decides the round on found and carries out its effects; it
// reports true when the report comment changed since found was read and
// the round must be decided again (nothing of the comment was written).
func (e *Engine) plan(ctx context.Context, in Input, res *Result, file *config.File, found report.Found, n int, kept *carried) (bool, error) {
	lg := e.log()
	pull := in.Pull
	sha := e.Event.SHA
	if pull != nil {
		sha = pull.HeadSHA
	}
	p, err := Decide(DecideInput{Loop: e.Opts.Loop, ID: e.Opts.ID, Evidence: in.Evidence, File: file,
		Overrides: e.Opts.Overrides, State: found.State, SHA: sha, RunID: e.Event.RunID, RunAttempt: e.Event.RunAttempt,
		Now: e.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return false, err
	}
	d, st := p.Decision, p.State
	d.Notes = append(d.Notes, found.Notes...)
	if n > 1 {
		d.Notes = append(d.Notes, fmt.Sprintf("the report comment changed during the round (a /gc command or another run): the round was decided again on the loop's state as it is now (plan %d)", n))
	}
	res.Decision, res.Settings = d, p.Settings
	res.Issues, res.Planned, res.Check = nil, nil, nil
	if !kept.pushed {
		// What an earlier plan judged of the workspace and did not push
		// is judged again (or not at all, for a loop settled meanwhile).
		res.Pushfix, res.Reverted = nil, nil
	}
	lg.Group("decision")
	lg.Note("decision: " + CheckTitle(d))
	lg.Group("effects on GitHub")
	if res.APIError != nil {
		// Decided on the evidence alone: no history, no effect on GitHub.
		d.Status = decide.StatusPartial
		d.Notes = append(d.Notes, fmt.Sprintf("GitHub API unavailable (%v): decided on the evidence alone, without the loop's history; nothing was written to GitHub", ghclient.Explain(res.APIError)))
		lg.Printf("effects: none, GitHub API unavailable (%s)", ghclient.Explain(res.APIError))
		logOutcome(lg, d)
		return false, nil
	}

	// 1. The test-only fix commit: pushed once, and only on a state read
	// again just before (a push cannot be taken back).
	switch {
	case kept.pushed:
		d.Reasons = append(d.Reasons, kept.commitNote)
	case d.Loop == decide.Coverage && p.Settings.Commit && pull != nil && p.Final == "":
		current := func() bool { return e.unchanged(ctx, found) }
		if !e.judgeChanges(ctx, res, in, pull, p.History, current) && n < maxPlans {
			return true, nil
		}
		if res.Commit != "" {
			kept.pushed = true
			kept.commitNote = pushedReason(len(res.Pushfix.Accepted), res.Commit)
		}
	case in.Patch != nil || in.PatchErr != nil:
		d.Notes = append(d.Notes, "the run handed over a patch of the generator's change; it was not applied: only an open coverage loop with commit on pushes test-only changes")
	}
	// 2. The fix issues. Those of earlier rounds may still be open: also
	// those of the round this run replaces (a re-run after /gc approve),
	// and those an earlier plan of this run opened.
	recorded := openIssuesRecorded(st.Rounds) || kept.issues
	var stillOpen []int // issues this round was to close and may not have
	switch {
	case pull != nil && (p.Settings.Issues || recorded):
		if e.syncIssues(ctx, res, pull, recorded, p.Final) {
			stillOpen = openIssues(st.Rounds)
		}
		kept.issues = kept.issues || len(res.Issues) > 0
	case pull == nil && p.Settings.Issues:
		// Without a pull request (a dry run outside a pull request event)
		// the issues are still shown, planned for a stand-in.
		res.Notes = append(res.Notes, fmt.Sprintf("no pull request: issues planned for a stand-in #1 of %s/%s", or(e.Event.Owner, "OWNER"), or(e.Event.Repo, "REPO")))
		lg.Note(res.Notes[len(res.Notes)-1])
		e.syncIssues(ctx, res, &Pull{Number: 1}, false, p.Final)
	}
	prevCheck := priorCheck(st, d.Round, sha) // before the record replaces it
	if prevCheck == nil && kept.check != nil {
		prevCheck = kept.check // written by an earlier plan of this run
	}
	rec := d.Record()
	rec.RunID, rec.RunAttempt, rec.Actor = e.Event.RunID, e.Event.RunAttempt, e.Event.Actor
	rec.Started, rec.Ended = e.roundTimes()
	// A round that was to close issues and may not have keeps them in its
	// record: the round carried out again (the bot retries it) sees them
	// open and closes them; the record of one that closed them has none.
	rec.Issues = append(append([]int{}, res.Issues...), stillOpen...)
	rec.Commit = res.Commit
	if prev := recordedRound(st, d.Round, sha); prev != nil && sameJudgment(*prev, rec) {
		// A re-run that judged the same: the record (and so the report)
		// stays as it was, and the comment is not edited.
		rec.Time, rec.RunID, rec.RunAttempt, rec.Actor = prev.Time, prev.RunID, prev.RunAttempt, prev.Actor
		rec.Started, rec.Ended = prev.Started, prev.Ended
	}
	st.MaxRounds = p.Settings.Config.MaxRounds
	st.Record(rec)
	st.RecordFiles(rec.N, d.Files)
	if p.Final != "" {
		st.Status = p.Final // approved and aborted loops stay so
	}
	d.History = append(append([]decide.RoundRecord{}, p.History...), rec)

	// 3. The next round: once, and not for a loop a person settled.
	switch {
	case res.Commit == "" || p.Settings.Dispatch == "" || res.Dispatched || p.Final != "":
	case e.Opts.PushStartsRuns:
		// The commit's own push event starts the PR's workflows: a
		// dispatch would run the next round twice.
		d.Notes = append(d.Notes, fmt.Sprintf("the fix commit %s starts the pull request's workflows itself (pushed with a token other than GITHUB_TOKEN): %s was not dispatched", shortSHA(res.Commit), p.Settings.Dispatch))
	case d.Round >= d.MaxRounds:
		// Past the cap (grants included) no next round starts.
		d.Notes = append(d.Notes, fmt.Sprintf("round %d is at the cap of %d rounds: the next round was not dispatched (/gc retry grants one)", d.Round, d.MaxRounds))
	default:
		e.dispatch(ctx, res, pull)
	}
	// 4. The check run shows the round as recorded: it goes into the
	// round's record before the report renders the state.
	if e.Opts.Check && ctx.Err() == nil {
		last := &st.Rounds[len(st.Rounds)-1]
		e.publishCheck(ctx, res, sha, prevCheck, last)
		d.History[len(d.History)-1].Check = last.Check
		logCheck(lg, d.ID, last.Check, prevCheck, res)
		if last.Check != nil {
			kept.check = last.Check
		}
	}
	if ctx.Err() != nil {
		e.partial(d, ctx.Err())
	}
	// 5. The report comment, with the state: a compare-and-swap on the
	// comment as it was read.
	prNumber := 0
	if pull != nil {
		prNumber = pull.Number
	}
	body, err := report.Body(d, st, report.Options{BlobURL: e.Event.BlobURL(sha), RunURL: e.Event.RunURL(), Dispatched: res.Dispatched}, e.scope(prNumber), []byte(e.Opts.StateKey))
	if err != nil {
		return false, fmt.Errorf("render the report: %w", err)
	}
	res.Report = body
	if e.Opts.Comment && pull != nil && ctx.Err() == nil {
		c, err := e.GH.UpsertReport(ctx, pull.Number, found.Comment, body)
		switch {
		case err == nil:
			res.CommentURL = c.GetHTMLURL()
			lg.Printf("report comment %s: %s", commentChange(found.Comment, body), or(res.CommentURL, "(not written)"))
		case errors.Is(err, report.ErrConflict) && n < maxPlans:
			return true, nil
		case ctx.Err() != nil:
			e.partial(d, err)
		case errors.Is(err, report.ErrConflict):
			d.Status = decide.StatusPartial
			d.Notes = append(d.Notes, fmt.Sprintf("the report comment changed %d times during the round (commands or other runs): it was not written; the next run records the round", n))
		default:
			res.apiDown(fmt.Errorf("write the report comment: %w", err))
			res.incomplete(fmt.Errorf("report comment: %w", err))
			d.Status = decide.StatusPartial
			d.Notes = append(d.Notes, fmt.Sprintf("the report comment could not be written: %s", ghclient.Explain(err)))
		}
	}
	logOutcome(lg, d)
	return false, nil
}

// unchanged reports whether the report comment found is still as it was
// read (one request); a comment that cannot be read counts as unchanged,
// the compare-and-swap that writes it has the last word.
func (e *Engine) unchanged(ctx context.Context, found report.Found) bool {
	if found.Comment == nil || found.Comment.GetID() == 0 {
		return true // no state yet: no command can have changed it
	}
	c, err := e.GH.Comment(ctx, found.Comment.GetID())
	switch {
	case errors.Is(err, ErrGone):
		return false
	case err != nil:
		return true
	}
	return c.GetBody() == found.Comment.GetBody()
}

// config reads the configuration from the base branch of pull (never
// from its head); without a pull request, from the default branch.
func (e *Engine) config(ctx context.Context, pull *Pull) (*config.File, error) {
	ref := ""
	if pull != nil {
		ref = pull.BaseRef
	}
	return e.GH.Config(ctx, ref, e.Opts.Config)
}

// loopID is the loop id a round without an id option has: the loop the
// options, the configuration or the evidence name.
func (e *Engine) loopID(file *config.File, ev *decide.Evidence) (string, error) {
	loop, err := resolveLoop(e.Opts.Loop, "", file, ev)
	return string(loop), err
}

// scope is what the state of the PR is signed over.
func (e *Engine) scope(pr int) report.Scope {
	return report.Scope{Owner: e.Event.Owner, Repo: e.Event.Repo, PR: pr}
}

// partial marks a decision cut short by the timeout.
func (e *Engine) partial(d *decide.Decision, cause error) {
	if d.Status == decide.StatusPartial {
		return
	}
	d.Status = decide.StatusPartial
	d.Notes = append(d.Notes, fmt.Sprintf("cut short by the %s timeout (%v): the effects on GitHub may be incomplete", e.Opts.Timeout, ghclient.Explain(cause)))
}

// dispatch starts the next round: pushes made with GITHUB_TOKEN start no
// workflow, so gcloop sends workflow_dispatch on the head ref.
func (e *Engine) dispatch(ctx context.Context, res *Result, pull *Pull) {
	wf := res.Settings.Dispatch
	if err := e.GH.Dispatch(ctx, wf, pull.HeadRef, pull.Number); err != nil {
		res.Decision.Notes = append(res.Decision.Notes, fmt.Sprintf("the next round was not dispatched (%s on %s): %s", wf, pull.HeadRef, ghclient.Explain(err)))
		return
	}
	res.Dispatched = true
	e.log().Printf("dispatch: started %s on %s for the next round", wf, pull.HeadRef)
}

// recordedRound is the record of round n on sha that a re-run replaces,
// nil if there is none.
func recordedRound(st *decide.State, n int, sha string) *decide.RoundRecord {
	for i := range st.Rounds {
		if rr := &st.Rounds[i]; rr.N == n && rr.SHA == sha {
			return rr
		}
	}
	return nil
}

// sameJudgment reports whether two records of one round judged the same,
// whatever run, attempt, times or actor made them.
func sameJudgment(a, b decide.RoundRecord) bool {
	for _, r := range []*decide.RoundRecord{&a, &b} {
		r.Time, r.RunID, r.RunAttempt, r.Actor, r.Check = time.Time{}, 0, 0, "", nil
		r.Started, r.Ended = time.Time{}, time.Time{}
	}
	return reflect.DeepEqual(a, b)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

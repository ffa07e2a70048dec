package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/identity"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/config"
	"github.com/gcloop/gcloop/internal/load"
	"github.com/google/go-github/v62/github"
)

// reserve is kept from the timeout to write the outputs of a cut-short run.
const reserve = 5 * time.Second

// Runner runs the action once.
type Runner struct {
	Opts *Options
	Ctx  *Context
	// GH is the GitHub client; nil in a dry run.
	GH *github.Client
	// Plain fetches artifact blobs; it never carries the token.
	Plain *http.Client
	// Out receives, in a dry run, what would be done.
	Out io.Writer
	// Log receives the progress lines; nil logs nothing.
	Log *Log
	Now func() time.Time
	// BotLogin is gcloop's identity; "" resolves it from the token and
	// the bot-login input (identity.Resolve) on first use, never in a dry
	// run.
	BotLogin string
}

// trust returns whose report comments are gcloop's: the identity,
// resolved once with at most one request, and the state-key.
func (r *Runner) trust(ctx context.Context) (publish.Trust, error) {
	if r.BotLogin == "" {
		login, err := identity.Resolve(ctx, r.GH.Users, r.Opts.Token, r.Opts.BotLogin)
		if err != nil {
			return publish.Trust{}, err
		}
		r.BotLogin = login
	}
	return publish.Trust{Login: r.BotLogin, Key: []byte(r.Opts.StateKey)}, nil
}

// scope is what the state of the PR is signed over.
func (r *Runner) scope(pr int) publish.Scope {
	return publish.Scope{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, PR: pr}
}

// Result is what a run did.
type Result struct {
	Decision   *decide.Decision
	Settings   config.Settings
	Report     string // the comment body (or the report in a dry run)
	CommentURL string
	Issues     []int
	Planned    []publish.PlannedIssue
	Commit     string
	Reverted   []string
	Pushfix    *pushfix.Result
	Dispatched bool
	Notes      []string // what the run itself noticed (not the decision's)
	// Command is set when the run handled a /gc command; Decision is then
	// nil.
	Command *CommandResult
	// EvidenceFiles are the workspace files read as evidence.
	EvidenceFiles []string
	// Check is the check run a dry run would write; nil otherwise.
	Check *check.Spec
	// APIError is the first GitHub failure that stopped the run's effects;
	// the decision is then partial.
	APIError error
}

// apiDown records the first GitHub failure.
func (res *Result) apiDown(err error) {
	if res.APIError == nil {
		res.APIError = ghclient.Explained(err)
	}
}

// ErrNoPull means the event names no pull request the action can act on.
var ErrNoPull = errors.New("no pull request")

// Run decides the round and acts on it. A run cut short by the timeout
// returns the decision it has with status partial and no error.
func (r *Runner) Run(ctx context.Context) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, max(r.Opts.Timeout-reserve, r.Opts.Timeout/2))
	defer cancel()
	if r.Ctx.Comment != nil {
		return r.runCommand(ctx)
	}
	res := &Result{}

	r.Log.Group("evidence")
	pull, err := r.resolvePull(ctx)
	if err != nil {
		if errors.Is(err, ErrNoPull) {
			return nil, err
		}
		res.apiDown(err)
	}
	pieces, err := r.readEvidence(ctx, res)
	if err != nil {
		return nil, err
	}
	ev, err := decide.Merge(pieces...)
	if err != nil {
		return nil, err
	}
	file, err := r.loadConfig(ctx, pull)
	var pe *decide.ParseError
	if err != nil && (errors.As(err, &pe) || r.GH == nil) {
		return nil, err
	} else if err != nil {
		res.apiDown(err)
	}
	loop := r.Opts.Loop
	if sec := file.Section(r.Opts.ID); loop == "" && r.Opts.ID != "" && sec != nil {
		loop = sec.Loop // the configuration names the kind of the loop id
	}
	if loop == "" {
		if loop, err = sniff(ev); err != nil {
			return nil, err
		}
	}
	id := r.Opts.ID
	if id == "" {
		id = string(loop)
	}
	set, err := config.Resolve(loop, id, file, r.Opts.Overrides)
	if err != nil {
		return nil, err
	}
	res.Settings = set

	var found publish.Found
	if r.GH != nil && pull != nil && res.APIError == nil {
		trust, err := r.trust(ctx)
		if err == nil {
			found, err = publish.FindState(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, id, trust)
		}
		if err != nil {
			res.apiDown(fmt.Errorf("read the report comment: %w", err))
		}
	}
	st := found.State
	if st == nil {
		st = decide.NewState(loop, id, set.Config.MaxRounds)
	}
	if st.Loop != loop {
		return nil, fmt.Errorf("loop id %s holds a %s loop on this pull request, not %s: give another id", id, st.Loop, loop)
	}
	sha := r.Ctx.SHA
	if pull != nil {
		sha = pull.HeadSHA
	}
	round, history := st.Next(sha)
	if st.Superseded(r.Ctx.RunID, r.Ctx.RunAttempt) {
		// Re-running an old run would judge an old head, or undo a later
		// judgment of this one: no decision (exit 1), nothing written.
		last := st.Last()
		return nil, &decide.NoDecisionError{Msg: fmt.Sprintf("workflow run %d is a re-run of a run that run %d has superseded (round %d on %s): nothing decided or written; re-run the latest run, or push",
			r.Ctx.RunID, last.RunID, last.N, shortSHA(last.SHA))}
	}
	d, err := decide.Decide(decide.Input{Loop: loop, ID: id, Evidence: ev, Config: set.Config, Round: round,
		History: history, Grants: len(st.Grants), SHA: sha, Now: r.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return nil, err
	}
	d.Notes = append(d.Notes, found.Notes...)
	res.Decision = d
	r.Log.Group("decision")
	r.Log.Note("decision: " + checkTitle(d))
	r.Log.Group("effects on GitHub")
	final := st.Status
	if final != decide.StateApproved && final != decide.StateAborted {
		final = ""
	}
	if final != "" {
		settle(d, st)
	}
	if res.APIError != nil {
		// Decided on the evidence alone: no history, no effect on GitHub.
		d.Status = decide.StatusPartial
		d.Notes = append(d.Notes, fmt.Sprintf("GitHub API unavailable (%v): decided on the evidence alone, without the loop's history; nothing was written to GitHub", ghclient.Explain(res.APIError)))
		r.Log.Printf("effects: none, GitHub API unavailable (%s)", ghclient.Explain(res.APIError))
		r.Log.logOutcome(d)
		return res, nil
	}

	if loop == decide.Coverage && set.Commit && pull != nil && final == "" {
		r.judgeChanges(ctx, res, pull, history, ev.Tests)
	}
	// Whether fix issues of earlier rounds may still be open: also those
	// of the round this run replaces (a re-run after /gc approve).
	recorded := openIssuesRecorded(st.Rounds)
	if pull != nil && (set.Issues || recorded) {
		r.syncIssues(ctx, res, pull, recorded, final)
	} else if set.Issues && r.GH == nil {
		// A dry run outside a pull request event still shows the issues,
		// planned for a stand-in pull request.
		saved := *r.Ctx
		r.Ctx.Owner, r.Ctx.Repo = or(r.Ctx.Owner, "OWNER"), or(r.Ctx.Repo, "REPO")
		res.Notes = append(res.Notes, fmt.Sprintf("dry run without a pull request: issues planned for a stand-in #1 of %s/%s", r.Ctx.Owner, r.Ctx.Repo))
		r.Log.Note(res.Notes[len(res.Notes)-1])
		r.syncIssues(ctx, res, &Pull{Number: 1}, false, final)
		*r.Ctx = saved
	}
	prevCheck := priorCheck(st, round, sha) // before the record replaces it
	rec := d.Record()
	rec.RunID, rec.RunAttempt, rec.Actor = r.Ctx.RunID, r.Ctx.RunAttempt, r.Ctx.Actor
	rec.Issues = append([]int{}, res.Issues...)
	rec.Commit = res.Commit
	if prev := recordedRound(st, round, sha); prev != nil && sameJudgment(*prev, rec) {
		// A re-run that judged the same: the record (and so the report)
		// stays as it was, and the comment is not edited.
		rec.Time, rec.RunID, rec.RunAttempt, rec.Actor = prev.Time, prev.RunID, prev.RunAttempt, prev.Actor
	}
	st.MaxRounds = set.Config.MaxRounds
	st.Record(rec)
	if final != "" {
		st.Status = final // approved and aborted loops stay so
	}
	d.History = append(append([]decide.RoundRecord{}, history...), rec)

	switch {
	case res.Commit == "" || set.Dispatch == "":
	case d.Round >= d.MaxRounds:
		// Past the cap (grants included) no next round starts (DESIGN §2).
		d.Notes = append(d.Notes, fmt.Sprintf("round %d is at the cap of %d rounds: the next round was not dispatched (/gc retry grants one)", d.Round, d.MaxRounds))
	default:
		r.dispatch(ctx, res, pull)
	}
	if r.Opts.Check && r.GH == nil {
		res.Check = r.checkSpec(d, sha) // a dry run shows what it would write
	}
	if r.Opts.Check && pull != nil && r.GH != nil && ctx.Err() == nil {
		// The check run shows the round as recorded: it goes into the
		// round's record before the report renders the state.
		last := &st.Rounds[len(st.Rounds)-1]
		r.publishCheck(ctx, res, sha, prevCheck, last)
		d.History[len(d.History)-1].Check = last.Check
		r.Log.logCheck(d.ID, last.Check, prevCheck)
	}
	if ctx.Err() != nil {
		r.partial(d, ctx.Err())
	}
	prNumber := 0
	if pull != nil {
		prNumber = pull.Number
	}
	body, err := publish.Body(d, st, r.Ctx.BlobURL(sha), r.scope(prNumber), []byte(r.Opts.StateKey))
	if err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	res.Report = body
	if r.Opts.Comment && pull != nil && r.GH != nil && ctx.Err() == nil {
		c, err := publish.Upsert(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, found.Comment, body)
		switch {
		case err == nil:
			res.CommentURL = c.GetHTMLURL()
			r.Log.Printf("report comment %s: %s", commentChange(found.Comment, body), res.CommentURL)
		case ctx.Err() != nil:
			r.partial(d, err)
		default:
			res.apiDown(fmt.Errorf("write the report comment: %w", err))
			d.Status = decide.StatusPartial
			d.Notes = append(d.Notes, fmt.Sprintf("the report comment could not be written: %s", ghclient.Explain(err)))
		}
	}
	if r.GH == nil {
		r.Log.Printf("effects: none, a dry run writes nothing to GitHub")
	}
	r.Log.logOutcome(d)
	return res, nil
}

// partial marks a decision cut short by the timeout.
func (r *Runner) partial(d *decide.Decision, cause error) {
	if d.Status == decide.StatusPartial {
		return
	}
	d.Status = decide.StatusPartial
	d.Notes = append(d.Notes, fmt.Sprintf("cut short by the %s timeout (%v): the effects on GitHub may be incomplete", r.Opts.Timeout, ghclient.Explain(cause)))
}

// resolvePull finds the pull request the run is about.
func (r *Runner) resolvePull(ctx context.Context) (*Pull, error) {
	c := r.Ctx
	switch {
	case c.Pull != nil:
		return c.Pull, nil
	case r.GH == nil:
		return nil, nil // a dry run decides without a pull request
	case c.DispatchPR > 0:
		pr, _, err := r.GH.PullRequests.Get(ctx, c.Owner, c.Repo, c.DispatchPR)
		if err != nil {
			return nil, fmt.Errorf("get pull request #%d: %w", c.DispatchPR, err)
		}
		return pullFrom(pr), nil
	case c.Run != nil:
		return r.pullOfRun(ctx, c.Run)
	}
	return nil, fmt.Errorf("%w: the %s event names none (run on pull_request, workflow_run, workflow_dispatch with a pr input, or issue_comment)", ErrNoPull, c.EventName)
}

// pullOfRun finds the pull request of a workflow_run: one the run lists,
// else (fork runs list none) an open one that holds the run's head sha. A
// candidate is the run's only when its head matches the run's head sha,
// head repository and head branch — a PR of another repository or branch
// that happens to hold the same commit is not acted on.
func (r *Runner) pullOfRun(ctx context.Context, run *github.WorkflowRun) (*Pull, error) {
	var refused []string
	number := 0
	for _, p := range run.PullRequests {
		if why := headMismatch(run, p, true); why != "" {
			refused = append(refused, fmt.Sprintf("#%d %s", p.GetNumber(), why))
			continue
		}
		number = p.GetNumber()
		break
	}
	if number == 0 {
		prs, _, err := r.GH.PullRequests.ListPullRequestsWithCommit(ctx, r.Ctx.Owner, r.Ctx.Repo, run.GetHeadSHA(), &github.ListOptions{PerPage: 100})
		if err != nil {
			return nil, fmt.Errorf("find the pull request of commit %s: %w", run.GetHeadSHA(), err)
		}
		for _, p := range prs {
			if p.GetState() != "open" {
				continue
			}
			if why := headMismatch(run, p, true); why != "" {
				refused = append(refused, fmt.Sprintf("#%d %s", p.GetNumber(), why))
				continue
			}
			number = p.GetNumber()
			break
		}
	}
	if number == 0 {
		msg := fmt.Sprintf("workflow run %d (head %s, repository %s, branch %q) belongs to no open pull request with that head",
			run.GetID(), run.GetHeadSHA(), runRepo(run), run.GetHeadBranch())
		if len(refused) > 0 {
			msg += "; not its pull request: " + strings.Join(refused, "; ")
		}
		return nil, fmt.Errorf("%w: %s", ErrNoPull, msg)
	}
	pr, _, err := r.GH.PullRequests.Get(ctx, r.Ctx.Owner, r.Ctx.Repo, number)
	if err != nil {
		return nil, fmt.Errorf("get pull request #%d: %w", number, err)
	}
	if why := headMismatch(run, pr, false); why != "" {
		return nil, fmt.Errorf("%w: pull request #%d is not workflow run %d's: %s", ErrNoPull, number, run.GetID(), why)
	}
	p := pullFrom(pr)
	if p.HeadSHA != run.GetHeadSHA() {
		// The PR moved on since the run: judge the run's commit.
		p.HeadSHA = run.GetHeadSHA()
	}
	return p, nil
}

// headMismatch says why a pull request's head is not a workflow run's head
// ("" when it is): the repository (by id, else by full name) and the
// branch must be the run's, and the sha too when withSHA (a PR fetched
// later may have moved on).
func headMismatch(run *github.WorkflowRun, pr *github.PullRequest, withSHA bool) string {
	head := pr.GetHead()
	prRepo, runRepo := head.GetRepo(), run.GetHeadRepository()
	switch {
	case withSHA && head.GetSHA() != run.GetHeadSHA():
		return fmt.Sprintf("has head %s, not the run's %s", head.GetSHA(), run.GetHeadSHA())
	case prRepo == nil || runRepo == nil:
		return "has no head repository to compare with the run's"
	case prRepo.GetID() != 0 && runRepo.GetID() != 0 && prRepo.GetID() != runRepo.GetID():
		return fmt.Sprintf("comes from repository id %d, not the run's %d", prRepo.GetID(), runRepo.GetID())
	case (prRepo.GetID() == 0 || runRepo.GetID() == 0) &&
		(prRepo.GetFullName() == "" || !strings.EqualFold(prRepo.GetFullName(), runRepo.GetFullName())):
		return fmt.Sprintf("comes from repository %q, not the run's %q", prRepo.GetFullName(), runRepo.GetFullName())
	case head.GetRef() == "" || head.GetRef() != run.GetHeadBranch():
		return fmt.Sprintf("has head branch %q, not the run's %q", head.GetRef(), run.GetHeadBranch())
	}
	return ""
}

// runRepo names a run's head repository for messages.
func runRepo(run *github.WorkflowRun) string {
	if n := run.GetHeadRepository().GetFullName(); n != "" {
		return n
	}
	return fmt.Sprintf("id %d", run.GetHeadRepository().GetID())
}

// readEvidence reads the workspace evidence and the artifacts.
func (r *Runner) readEvidence(ctx context.Context, res *Result) ([]*decide.Evidence, error) {
	files, notes, err := workspaceFiles(r.Ctx.Workspace, r.Opts.Evidence)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, notes...)
	for _, n := range notes {
		r.Log.Note(n) // before any failure of the round
	}
	res.EvidenceFiles = files
	pieces, err := readWorkspaceEvidence(r.Ctx.Workspace, files, r.Opts.Loop)
	if err != nil {
		return nil, err
	}
	for i, e := range pieces {
		r.Log.logEvidence(files[i], e)
	}
	if len(r.Opts.Artifacts) == 0 {
		return pieces, nil
	}
	if r.GH == nil {
		return nil, errors.New("input artifacts: downloading artifacts needs the API; a dry run reads workspace evidence only")
	}
	runID := r.Opts.RunID
	if runID == 0 {
		runID = r.Ctx.RunID
		if r.Ctx.Run != nil {
			runID = r.Ctx.Run.GetID()
		}
	}
	arts, err := artifact.List(ctx, r.GH.Actions, r.Ctx.Owner, r.Ctx.Repo, runID, r.Opts.Artifacts)
	if err != nil {
		return nil, err
	}
	lim := artifact.Limits{}
	r.Log.Printf("artifacts of workflow run %d: %d found for %s", runID, len(arts), strings.Join(r.Opts.Artifacts, ", "))
	for _, a := range arts {
		data, err := artifact.Download(ctx, r.GH.Actions, r.Ctx.Owner, r.Ctx.Repo, a.GetID(), r.Plain, lim)
		if err != nil {
			return nil, err
		}
		files, err := artifact.Extract(a.GetName(), data, lim)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if !load.Known(f.Data[:min(len(f.Data), 8<<10)]) {
				r.Log.Printf("artifact %s/%s: not a format gcloop reads, passed over", a.GetName(), f.Name)
				continue
			}
			e, err := load.Read(a.GetName()+"/"+f.Name, bytes.NewReader(f.Data), r.Opts.Loop)
			if err != nil {
				return nil, err
			}
			r.Log.logEvidence("artifact "+a.GetName()+"/"+f.Name, e)
			pieces = append(pieces, e)
		}
	}
	return pieces, nil
}

// loadConfig reads the configuration file from the base branch (never
// from the PR head); a dry run reads it from the workspace. A missing file
// configures nothing.
func (r *Runner) loadConfig(ctx context.Context, pull *Pull) (*config.File, error) {
	name := r.Opts.Config
	if r.GH == nil || pull == nil {
		return readLocalConfig(r.Ctx.Workspace, name)
	}
	fc, _, resp, err := r.GH.Repositories.GetContents(ctx, r.Ctx.Owner, r.Ctx.Repo, name, &github.RepositoryContentGetOptions{Ref: pull.BaseRef})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", name, pull.BaseRef, err)
	}
	if fc == nil {
		return nil, fmt.Errorf("read %s from %s: a directory, not a file", name, pull.BaseRef)
	}
	text, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", name, pull.BaseRef, err)
	}
	return config.Parse(name, strings.NewReader(text))
}

// judgeChanges judges the generator's changes in the workspace against the
// commit that was checked out and judged, and pushes the accepted ones as
// one commit on it (DESIGN §5.3). after is the round's test results (its
// JUnit evidence); the baseline input gives the results before.
func (r *Runner) judgeChanges(ctx context.Context, res *Result, pull *Pull, history []decide.RoundRecord, after *decide.TestFacts) {
	d := res.Decision
	if r.GH == nil {
		d.Notes = append(d.Notes, "dry run: the workspace changes are judged against the PR head, which needs the API; no commit planned")
		return
	}
	if pull.Fork() {
		d.Notes = append(d.Notes, pushfix.ForkReason)
		escalate(d, "the PR comes from a fork: test-only fixes cannot be pushed to it")
		return
	}
	judged, how := r.judgedCommit(pull)
	if judged == "" {
		d.Notes = append(d.Notes, "the workspace changes were not judged: "+how)
		return
	}
	ws := pushfix.Workspace{Dir: r.Ctx.Workspace, Ignore: r.ownFiles(res)}
	snap, err := pushfix.Scan(ctx, r.GH.Git, r.GH.Repositories, r.Ctx.Owner, r.Ctx.Repo, judged, ws)
	if err != nil {
		d.Notes = append(d.Notes, "the workspace changes could not be judged: "+ghclient.Explain(err))
		return
	}
	d.Notes = append(d.Notes, snap.Notes...)
	changes := snap.Changes
	if len(changes) == 0 {
		return
	}
	var m guard.Metrics
	if prev := lastWith(history, func(x decide.RoundRecord) bool { return x.Coverage != nil || x.PassRate != nil }); prev != nil {
		m.CoverageBefore, m.PassRateBefore = prev.Coverage, prev.PassRate
	}
	m.CoverageAfter, m.PassRateAfter = d.Coverage, d.PassRate
	before, baseErr := r.readBaseline()
	opts := guard.Options{Patterns: res.Settings.TestPatterns, Markers: res.Settings.ForbiddenMarkers}
	plan := pushfix.Plan(changes, before, after, m, opts)
	res.Pushfix = &plan
	// Reasons beyond the guard's that the change set cannot be pushed; any
	// of them refuses it as a whole.
	var extra []guard.Violation
	for _, u := range snap.Unpushable {
		extra = append(extra, guard.Violation{Kind: "unpushable", File: u.Path, Detail: u.Reason})
	}
	switch {
	case baseErr != nil:
		extra = append(extra, guard.Violation{Kind: "baseline", Detail: baseErr.Error()})
	case before != nil && after == nil:
		extra = append(extra, guard.Violation{Kind: "baseline", Detail: "a baseline is given but the round has no test results: the baseline's tests cannot be shown to still pass"})
	}
	if d.Round > d.MaxRounds {
		extra = append(extra, guard.Violation{Kind: "round_cap", Detail: fmt.Sprintf("round %d is past the cap of %d rounds: no fix commit is pushed until /gc retry grants a round", d.Round, d.MaxRounds)})
	}
	if pull.HeadSHA != judged {
		extra = append(extra, guard.Violation{Kind: "conflict", Detail: fmt.Sprintf("the PR head moved to %s after %s was checked out and judged; a commit on the new head would revert it, a commit on %s would not be a fast forward", shortSHA(pull.HeadSHA), shortSHA(judged), shortSHA(judged))})
	}
	if len(extra) > 0 {
		plan.Accepted, plan.Reverted = nil, nil
		plan.Guard.Violations = append(plan.Guard.Violations, extra...)
		for _, c := range changes {
			plan.Reverted = append(plan.Reverted, c.Path)
		}
	}
	if len(plan.Accepted) == 0 {
		revertChanges(res, plan)
		r.Log.Printf("commit: none, the changes were refused: %s", violations(plan.Guard))
		return
	}
	sha, err := pushfix.Push(ctx, r.GH.Git, pushfix.PushSpec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, Branch: pull.HeadRef,
		HeadSHA: judged, BaseTree: snap.BaseTree, Changes: plan.Accepted, Modes: snap.Modes,
		Message: fmt.Sprintf("gcloop: test-only fixes of %s round %d\n\n%d file(s) judged test-only by gcloop.", d.ID, d.Round, len(plan.Accepted))})
	switch {
	case errors.Is(err, pushfix.ErrHeadMoved):
		plan.Guard.Violations = append(plan.Guard.Violations, guard.Violation{Kind: "conflict", Detail: "the PR head moved after " + shortSHA(judged) + " was checked out and judged (" + ghclient.Explain(err) + ")"})
		plan.Reverted = nil
		for _, c := range changes {
			plan.Reverted = append(plan.Reverted, c.Path)
		}
		plan.Accepted = nil
		revertChanges(res, plan)
		r.Log.Printf("commit: none, the changes were refused: %s", violations(plan.Guard))
	case err != nil:
		d.Notes = append(d.Notes, "the test-only fix could not be pushed: "+ghclient.Explain(err))
	default:
		res.Commit = sha
		d.Reasons = append(d.Reasons, fmt.Sprintf("pushed %d test-only file(s) as %s", len(plan.Accepted), shortSHA(sha)))
		r.Log.Printf("commit: pushed %d test-only file(s) as %s on %s", len(plan.Accepted), shortSHA(sha), pull.HeadRef)
	}
}

// revertChanges records a change set that was not pushed: the report says
// "reverted" and why, and the coverage measured with it does not count.
func revertChanges(res *Result, plan pushfix.Result) {
	d := res.Decision
	*res.Pushfix = plan
	res.Reverted = plan.Reverted
	d.Reasons = append(d.Reasons, fmt.Sprintf("the round's changes were refused and not pushed (reverted): %s", violations(plan.Guard)))
	switch {
	case d.Outcome != decide.Converge || d.Forced:
	case d.Round < d.MaxRounds:
		d.Outcome, d.Verdict, d.Advisory = decide.Fix, "FIX", false
		d.Notes = append(d.Notes, "the coverage measured with the refused changes does not count: another round")
		d.NextSteps = decide.NextSteps(d)
	default:
		escalate(d, "the last round's changes were refused: the coverage measured with them does not count")
	}
}

// judgedCommit returns the commit the workspace holds — the one the
// generator changed and the guard judges, and the only parent a pushed
// commit may have: the event's head sha for pull_request, GITHUB_SHA for
// workflow_dispatch (the dispatched ref's commit, which the checkout
// holds), the run's head sha for workflow_run. Otherwise the PR head. ""
// with the reason when it cannot be told.
func (r *Runner) judgedCommit(pull *Pull) (string, string) {
	c := r.Ctx
	var sha, src string
	switch {
	case c.EventName == "workflow_dispatch":
		sha, src = c.SHA, "GITHUB_SHA"
	case c.Run != nil:
		sha, src = c.Run.GetHeadSHA(), "the workflow run's head sha"
	case c.Pull != nil:
		sha, src = c.Pull.HeadSHA, "the event's pull request head sha"
	default:
		sha, src = pull.HeadSHA, "the pull request's head sha"
	}
	if sha == "" {
		return "", "the checked-out commit is unknown (" + src + " is empty)"
	}
	return sha, src
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
	t, err := coverage.ReadTests(name, f)
	if err != nil {
		return nil, fmt.Errorf("input baseline: %w", err)
	}
	return t, nil
}

// ownFiles hides from the change set what the round itself put in the
// workspace: the evidence files it read and gcloop's own outputs.
func (r *Runner) ownFiles(res *Result) func(string) bool {
	evidence := map[string]bool{}
	for _, f := range res.EvidenceFiles {
		evidence[f] = true
	}
	if b := r.Opts.Baseline; b != "" {
		evidence[path.Clean(filepath.ToSlash(b))] = true
	}
	return func(p string) bool {
		return evidence[p] || p == ".gcloop" || strings.HasPrefix(p, ".gcloop/")
	}
}

// settle overrides the decision of a loop a person already settled with
// /gc approve (converged, forced) or /gc abort (stopped): the evidence is
// still judged and shown, but no fix round starts.
func settle(d *decide.Decision, st *decide.State) {
	who := "a maintainer"
	for i := len(st.Actions) - 1; i >= 0; i-- {
		if a := st.Actions[i]; a.Command == "approve" || a.Command == "abort" {
			who = "@" + a.By + " at " + a.At.UTC().Format(time.RFC3339)
			break
		}
	}
	d.Tasks = []decide.Task{}
	d.Advisory, d.Stalled = false, false
	judged := fmt.Sprintf("%s (%s)", d.Verdict, d.Outcome)
	if st.Status == decide.StateApproved {
		d.Outcome, d.Verdict, d.Forced = decide.Converge, "CONVERGE (approved)", true
		d.Reasons = append(d.Reasons, fmt.Sprintf("the loop was force-approved by %s: it stays converged; the evidence alone says %s", who, judged))
		d.NextSteps = []string{"none: the loop was approved"}
		return
	}
	d.Outcome, d.Verdict, d.Forced = decide.Escalate, "ABORTED", false
	d.Reasons = append(d.Reasons, fmt.Sprintf("the loop was aborted by %s: no fix round starts; the evidence alone says %s", who, judged))
	d.NextSteps = []string{"none: the loop was aborted (delete the report comment to start it over)"}
}

// escalate turns a decision into an escalation a person must handle.
func escalate(d *decide.Decision, why string) {
	d.Outcome, d.Verdict = decide.Escalate, "ESCALATE"
	d.Forced, d.Advisory = false, false
	d.Tasks = []decide.Task{}
	d.Reasons = append(d.Reasons, why)
	d.NextSteps = decide.NextSteps(d)
}

// syncIssues opens, updates and closes the fix issues (DESIGN §5.2).
// recorded says whether earlier rounds recorded issues that may be open;
// final is the status of a settled loop (approved, aborted) or "".
// Converged and settled loops close every open fix issue; an escalation
// leaves them to the person who takes over.
func (r *Runner) syncIssues(ctx context.Context, res *Result, pull *Pull, recorded bool, final string) {
	d := res.Decision
	spec := publish.SyncSpec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, PR: pull.Number, PRURL: pull.HTMLURL,
		LoopID: d.ID, Loop: d.Loop, Round: d.Round, Tasks: d.Tasks,
		Converged: d.Outcome == decide.Converge || final == decide.StateAborted,
		Labels:    res.Settings.Labels, DryRun: r.GH == nil, BotLogin: r.BotLogin,
		MaxIssues: res.Settings.MaxIssues, Severity: taskSeverity(d)}
	if final != "" {
		spec.CloseNote = settledNote(d.Loop, d.ID, pull.Number, final)
	}
	if !spec.Converged && len(d.Tasks) == 0 {
		return // escalations keep the open issues as they are
	}
	if spec.Converged && !recorded {
		return // nothing to close: a converged round costs no issue request
	}
	if !spec.Converged && !res.Settings.Issues {
		return
	}
	var out publish.SyncResult
	var err error
	if r.GH != nil {
		out, err = publish.SyncIssues(ctx, r.GH.Issues, spec)
	} else {
		out, err = publish.SyncIssues(ctx, nil, spec)
	}
	res.Planned = out.Planned
	r.Log.logIssues(r.GH == nil, out.Created, out.Updated, out.Closed, len(out.Planned))
	if len(out.Skipped) > 0 {
		d.Notes = append(d.Notes, skippedNote(out.Skipped, spec.MaxIssues))
	}
	// The round's issues: those it created and the open ones its tasks
	// map to (a re-run creates none but keeps them).
	seen := map[int]bool{}
	for _, n := range out.Created {
		seen[n] = true
		res.Issues = append(res.Issues, n)
	}
	for _, p := range out.Planned {
		if p.Number > 0 && !seen[p.Number] {
			seen[p.Number] = true
			res.Issues = append(res.Issues, p.Number)
		}
	}
	if err == nil {
		return
	}
	if d.Loop == decide.Audit && d.Outcome == decide.Fix {
		escalate(d, "the revision tasks could not be created ("+ghclient.Explain(err)+"): escalated at once")
		return
	}
	d.Notes = append(d.Notes, "fix issues incomplete: "+ghclient.Explain(err))
}

// dispatch starts the next round: pushes made with GITHUB_TOKEN start no
// workflow, so gcloop sends workflow_dispatch on the head ref.
func (r *Runner) dispatch(ctx context.Context, res *Result, pull *Pull) {
	wf := res.Settings.Dispatch
	_, err := r.GH.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Ctx.Owner, r.Ctx.Repo, wf,
		github.CreateWorkflowDispatchEventRequest{Ref: pull.HeadRef, Inputs: map[string]any{"pr": fmt.Sprint(pull.Number)}})
	if err != nil {
		res.Decision.Notes = append(res.Decision.Notes, fmt.Sprintf("the next round was not dispatched (%s on %s): %s", wf, pull.HeadRef, ghclient.Explain(err)))
		return
	}
	res.Dispatched = true
	r.Log.Printf("dispatch: started %s on %s for the next round", wf, pull.HeadRef)
}

// settledNote is the comment that closes a fix issue of a loop settled
// with /gc approve or /gc abort.
func settledNote(loop decide.Loop, id string, pr int, status string) string {
	verb := map[string]string{decide.StateApproved: "approve", decide.StateAborted: "abort"}[status]
	return fmt.Sprintf("Closed: the %s loop `%s` on #%d was %s with `/gc %s`; it starts no further fix round.", loop, id, pr, status, verb)
}

// openIssuesRecorded reports whether recorded rounds opened fix issues
// that no later converged round closed.
func openIssuesRecorded(rs []decide.RoundRecord) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		if len(rs[i].Issues) > 0 {
			return true
		}
		if rs[i].Decision == decide.Converge {
			return false
		}
	}
	return false
}

// taskSeverity ranks the tasks of a decision by the most severe finding
// each one fixes: a finding of one of its files, or one it lists.
func taskSeverity(d *decide.Decision) map[string]decide.Severity {
	byFile := map[string]decide.Severity{}
	byText := map[string]decide.Severity{}
	worse := func(m map[string]decide.Severity, k string, s decide.Severity) {
		if old, ok := m[k]; !ok || s < old {
			m[k] = s
		}
	}
	for _, f := range d.Findings {
		if f.File != "" {
			worse(byFile, f.File, f.Severity)
		}
		worse(byText, f.String(), f.Severity)
	}
	out := map[string]decide.Severity{}
	for _, t := range d.Tasks {
		for _, f := range t.TargetFiles {
			if s, ok := byFile[f]; ok {
				worse(out, t.ID, s)
			}
		}
		for _, f := range t.Findings {
			if s, ok := byText[f]; ok {
				worse(out, t.ID, s)
			}
		}
	}
	return out
}

// maxSkippedListed bounds the tasks named in the note about tasks over
// max-issues; the rest are counted.
const maxSkippedListed = 100

// skippedNote lists the tasks that got no issue because of max-issues.
func skippedNote(skipped []publish.PlannedIssue, limit int) string {
	if limit <= 0 {
		limit = publish.DefaultMaxIssues
	}
	names := make([]string, 0, min(len(skipped), maxSkippedListed)+1)
	for _, p := range skipped[:min(len(skipped), maxSkippedListed)] {
		names = append(names, p.TaskID+" ("+strings.TrimPrefix(p.Title, "gcloop: ")+")")
	}
	if n := len(skipped) - maxSkippedListed; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	return fmt.Sprintf("max-issues %d: %d more task(s) got no fix issue this round (most severe first were opened): %s",
		limit, len(skipped), strings.Join(names, "; "))
}

func lastWith(rs []decide.RoundRecord, ok func(decide.RoundRecord) bool) *decide.RoundRecord {
	for i := len(rs) - 1; i >= 0; i-- {
		if ok(rs[i]) {
			return &rs[i]
		}
	}
	return nil
}

func violations(g guard.Result) string {
	var parts []string
	for i, v := range g.Violations {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(g.Violations)-5))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// sniff names the loop the evidence speaks for.
func sniff(ev *decide.Evidence) (decide.Loop, error) {
	kinds := ev.Kinds()
	switch len(kinds) {
	case 1:
		return kinds[0], nil
	case 0:
		return "", &decide.NoDecisionError{Msg: "no evidence of any loop found: check the evidence and artifacts inputs"}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("the evidence speaks for several loops (%s): set the loop input", strings.Join(names, ", "))
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
// whatever run, attempt, time or actor made them.
func sameJudgment(a, b decide.RoundRecord) bool {
	for _, r := range []*decide.RoundRecord{&a, &b} {
		r.Time, r.RunID, r.RunAttempt, r.Actor, r.Check = time.Time{}, 0, 0, "", nil
	}
	return reflect.DeepEqual(a, b)
}

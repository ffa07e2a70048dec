package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/config"
	"github.com/gcloop/gcloop/internal/load"
	"github.com/google/go-github/v62/github"
)

// DefaultBotLogin is the identity GITHUB_TOKEN writes as; a GitHub App
// writes as "<app-slug>[bot]" (set GCLOOP_BOT_LOGIN).
const DefaultBotLogin = "github-actions[bot]"

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
	// Out receives the log and, in a dry run, what would be done.
	Out      io.Writer
	Now      func() time.Time
	BotLogin string
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
	// APIError is the first GitHub failure that stopped the run's effects;
	// the decision is then partial.
	APIError error
}

// apiDown records the first GitHub failure.
func (res *Result) apiDown(err error) {
	if res.APIError == nil {
		res.APIError = err
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
		found, err = publish.FindState(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, id, r.BotLogin)
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
	d, err := decide.Decide(decide.Input{Loop: loop, ID: id, Evidence: ev, Config: set.Config, Round: round,
		History: history, Grants: len(st.Grants), SHA: sha, Now: r.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return nil, err
	}
	d.Notes = append(d.Notes, found.Notes...)
	res.Decision = d
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
		d.Notes = append(d.Notes, fmt.Sprintf("GitHub API unavailable (%v): decided on the evidence alone, without the loop's history; nothing was written to GitHub", res.APIError))
		return res, nil
	}

	if loop == decide.Coverage && set.Commit && pull != nil && final == "" {
		r.judgeChanges(ctx, res, pull, history)
	}
	if final == decide.StateAborted {
		// An aborted loop changes nothing on GitHub but its report.
	} else if set.Issues && pull != nil {
		r.syncIssues(ctx, res, pull)
	} else if set.Issues && r.GH == nil {
		// A dry run outside a pull request event still shows the issues,
		// planned for a stand-in pull request.
		saved := *r.Ctx
		r.Ctx.Owner, r.Ctx.Repo = or(r.Ctx.Owner, "OWNER"), or(r.Ctx.Repo, "REPO")
		res.Notes = append(res.Notes, fmt.Sprintf("dry run without a pull request: issues planned for a stand-in #1 of %s/%s", r.Ctx.Owner, r.Ctx.Repo))
		r.syncIssues(ctx, res, &Pull{Number: 1})
		*r.Ctx = saved
	}
	rec := d.Record()
	rec.RunID, rec.RunAttempt, rec.Actor = r.Ctx.RunID, r.Ctx.RunAttempt, r.Ctx.Actor
	rec.Issues = append([]int{}, res.Issues...)
	rec.Commit = res.Commit
	st.MaxRounds = set.Config.MaxRounds
	st.Record(rec)
	if final != "" {
		st.Status = final // approved and aborted loops stay so
	}
	d.History = append(append([]decide.RoundRecord{}, history...), rec)

	if res.Commit != "" && set.Dispatch != "" {
		r.dispatch(ctx, res, pull)
	}
	if ctx.Err() != nil {
		r.partial(d, ctx.Err())
	}
	body, err := publish.Body(d, st, r.Ctx.BlobURL(sha))
	if err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	res.Report = body
	if r.Opts.Comment && pull != nil && r.GH != nil && ctx.Err() == nil {
		c, err := publish.Upsert(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, found.Comment, body)
		switch {
		case err == nil:
			res.CommentURL = c.GetHTMLURL()
		case ctx.Err() != nil:
			r.partial(d, err)
		default:
			res.apiDown(fmt.Errorf("write the report comment: %w", err))
			d.Status = decide.StatusPartial
			d.Notes = append(d.Notes, fmt.Sprintf("the report comment could not be written: %v", err))
		}
	}
	return res, nil
}

// partial marks a decision cut short by the timeout.
func (r *Runner) partial(d *decide.Decision, cause error) {
	if d.Status == decide.StatusPartial {
		return
	}
	d.Status = decide.StatusPartial
	d.Notes = append(d.Notes, fmt.Sprintf("cut short by the %s timeout (%v): the effects on GitHub may be incomplete", r.Opts.Timeout, cause))
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
	res.EvidenceFiles = files
	pieces, err := readWorkspaceEvidence(r.Ctx.Workspace, files, r.Opts.Loop)
	if err != nil {
		return nil, err
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
				continue
			}
			e, err := load.Read(a.GetName()+"/"+f.Name, bytes.NewReader(f.Data), r.Opts.Loop)
			if err != nil {
				return nil, err
			}
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
// PR head and pushes the accepted ones as one commit (DESIGN §5.3).
func (r *Runner) judgeChanges(ctx context.Context, res *Result, pull *Pull, history []decide.RoundRecord) {
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
	ws := pushfix.Workspace{Dir: r.Ctx.Workspace, Ignore: r.ownFiles(res)}
	snap, err := pushfix.Scan(ctx, r.GH.Git, r.GH.Repositories, r.Ctx.Owner, r.Ctx.Repo, pull.HeadSHA, ws)
	if err != nil {
		d.Notes = append(d.Notes, "the workspace changes could not be judged: "+err.Error())
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
	opts := guard.Options{Patterns: res.Settings.TestPatterns, Markers: res.Settings.ForbiddenMarkers}
	plan := pushfix.Plan(changes, nil, nil, m, opts)
	res.Pushfix = &plan
	if len(snap.Unpushable) > 0 { // a change set with any of them cannot become a commit
		plan.Accepted, plan.Reverted = nil, nil
		for _, u := range snap.Unpushable {
			plan.Guard.Violations = append(plan.Guard.Violations, guard.Violation{Kind: "unpushable", File: u.Path, Detail: u.Reason})
		}
		for _, c := range changes {
			plan.Reverted = append(plan.Reverted, c.Path)
		}
	}
	if len(plan.Accepted) == 0 {
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
		return
	}
	sha, err := pushfix.Push(ctx, r.GH.Git, pushfix.PushSpec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, Branch: pull.HeadRef,
		HeadSHA: pull.HeadSHA, BaseTree: snap.BaseTree, Changes: plan.Accepted, Modes: snap.Modes,
		Message: fmt.Sprintf("gcloop: test-only fixes of %s round %d\n\n%d file(s) judged test-only by gcloop.", d.ID, d.Round, len(plan.Accepted))})
	switch {
	case errors.Is(err, pushfix.ErrHeadMoved):
		d.Notes = append(d.Notes, "not pushed: the PR head moved while the round ran ("+err.Error()+"); the next round judges the new head")
	case err != nil:
		d.Notes = append(d.Notes, "the test-only fix could not be pushed: "+err.Error())
	default:
		res.Commit = sha
		d.Reasons = append(d.Reasons, fmt.Sprintf("pushed %d test-only file(s) as %s", len(plan.Accepted), shortSHA(sha)))
	}
}

// ownFiles hides from the change set what the round itself put in the
// workspace: the evidence files it read and gcloop's own outputs.
func (r *Runner) ownFiles(res *Result) func(string) bool {
	evidence := map[string]bool{}
	for _, f := range res.EvidenceFiles {
		evidence[f] = true
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
func (r *Runner) syncIssues(ctx context.Context, res *Result, pull *Pull) {
	d := res.Decision
	spec := publish.SyncSpec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, PR: pull.Number, PRURL: pull.HTMLURL,
		LoopID: d.ID, Loop: d.Loop, Round: d.Round, Tasks: d.Tasks, Converged: d.Outcome == decide.Converge,
		Labels: res.Settings.Labels, DryRun: r.GH == nil, BotLogin: r.BotLogin}
	if d.Outcome == decide.Escalate && len(d.Tasks) == 0 {
		return // escalations keep the open issues as they are
	}
	if d.Outcome == decide.Converge && !anyIssues(d.History) {
		return // nothing to close: a converged round costs no issue request
	}
	var out publish.SyncResult
	var err error
	if r.GH != nil {
		out, err = publish.SyncIssues(ctx, r.GH.Issues, spec)
	} else {
		out, err = publish.SyncIssues(ctx, nil, spec)
	}
	res.Planned = out.Planned
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
		escalate(d, "the revision tasks could not be created ("+err.Error()+"): escalated at once")
		return
	}
	d.Notes = append(d.Notes, "fix issues incomplete: "+err.Error())
}

// dispatch starts the next round: pushes made with GITHUB_TOKEN start no
// workflow, so gcloop sends workflow_dispatch on the head ref.
func (r *Runner) dispatch(ctx context.Context, res *Result, pull *Pull) {
	wf := res.Settings.Dispatch
	_, err := r.GH.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Ctx.Owner, r.Ctx.Repo, wf,
		github.CreateWorkflowDispatchEventRequest{Ref: pull.HeadRef, Inputs: map[string]any{"pr": fmt.Sprint(pull.Number)}})
	if err != nil {
		res.Decision.Notes = append(res.Decision.Notes, fmt.Sprintf("the next round was not dispatched (%s on %s): %v", wf, pull.HeadRef, err))
		return
	}
	res.Dispatched = true
}

// anyIssues reports whether an earlier round opened fix issues.
func anyIssues(rs []decide.RoundRecord) bool {
	for _, r := range rs {
		if len(r.Issues) > 0 {
			return true
		}
	}
	return false
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

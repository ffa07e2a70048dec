package round

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/gcloop/gcloop/bot/evidence"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
)

// judgeChanges judges the generator's changes in the workspace against the
// commit that was checked out and judged, and pushes the accepted ones as
// one commit on it. The round's test results (its JUnit evidence) are the
// tests after; the baseline gives those before. Just before the push,
// current says whether the loop's state is still the one the round was
// decided on; when it is not, nothing is pushed and judgeChanges returns
// false (the round is decided again), else true.
func (e *Engine) judgeChanges(ctx context.Context, res *Result, in Input, pull *Pull, history []decide.RoundRecord, current func() bool) bool {
	d := res.Decision
	lg := e.log()
	if pull.Fork() {
		d.Notes = append(d.Notes, pushfix.ForkReason)
		escalate(d, "the PR comes from a fork: test-only fixes cannot be pushed to it")
		return true
	}
	judged, how := e.judgedCommit(pull)
	if judged == "" {
		what := "the workspace changes were"
		if in.Patch != nil || in.PatchErr != nil {
			what = "the generator's patch was"
		}
		d.Notes = append(d.Notes, what+" not judged: "+how)
		return true
	}
	snap, refused, ok := e.changeSet(ctx, d, in, judged)
	if !ok {
		return true
	}
	d.Notes = append(d.Notes, snap.Notes...)
	changes := snap.Changes
	if len(changes) == 0 && refused == nil {
		return true
	}
	var m guard.Metrics
	if prev := lastWith(history, func(x decide.RoundRecord) bool { return x.Coverage != nil || x.PassRate != nil }); prev != nil {
		m.CoverageBefore, m.PassRateBefore = prev.Coverage, prev.PassRate
	}
	m.CoverageAfter, m.PassRateAfter = d.Coverage, d.PassRate
	before, after := in.Baseline, in.Evidence.Tests
	opts := guard.Options{Patterns: res.Settings.TestPatterns, Markers: res.Settings.ForbiddenMarkers}
	plan := pushfix.Plan(changes, before, after, m, opts)
	res.Pushfix = &plan
	// Reasons beyond the guard's that the change set cannot be pushed; any
	// of them refuses it as a whole.
	var extra []guard.Violation
	if refused != nil {
		extra = append(extra, *refused)
	}
	for _, u := range snap.Unpushable {
		extra = append(extra, guard.Violation{Kind: "unpushable", File: u.Path, Detail: u.Reason})
	}
	switch {
	case in.BaselineErr != nil:
		extra = append(extra, guard.Violation{Kind: "baseline", Detail: in.BaselineErr.Error()})
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
		plan.RefuseAll(changes, extra...)
	}
	if len(plan.Accepted) == 0 {
		revertChanges(res, plan)
		lg.Printf("commit: none, the changes were refused: %s", violations(plan.Guard))
		return true
	}
	if !current() {
		return false
	}
	sha, err := e.GH.Push(ctx, pushfix.PushSpec{Owner: e.Event.Owner, Repo: e.Event.Repo, Branch: pull.HeadRef,
		HeadSHA: judged, BaseTree: snap.BaseTree, Changes: plan.Accepted, Modes: snap.Modes,
		Message: fmt.Sprintf("gcloop: test-only fixes of %s round %d\n\n%d file(s) judged test-only by gcloop.", d.ID, d.Round, len(plan.Accepted))})
	switch {
	case errors.Is(err, pushfix.ErrProtectedBranch):
		plan.RefuseAll(changes, guard.Violation{Kind: "protected_branch", Detail: ghclient.Explain(err) + ": gcloop pushes no fix commit there"})
		revertChanges(res, plan)
		lg.Printf("commit: none, the changes were refused: %s", violations(plan.Guard))
	case errors.Is(err, pushfix.ErrHeadMoved):
		plan.RefuseAll(changes, guard.Violation{Kind: "conflict", Detail: "the PR head moved after " + shortSHA(judged) + " was checked out and judged (" + ghclient.Explain(err) + ")"})
		revertChanges(res, plan)
		lg.Printf("commit: none, the changes were refused: %s", violations(plan.Guard))
	case err != nil:
		d.Notes = append(d.Notes, "the test-only fix could not be pushed: "+ghclient.Explain(err))
	default:
		res.Commit = sha
		d.Reasons = append(d.Reasons, pushedReason(len(plan.Accepted), sha))
		lg.Printf("commit: pushed %d test-only file(s) as %s on %s", len(plan.Accepted), shortSHA(sha), pull.HeadRef)
	}
	return true
}

// pushedReason is the reason that names the fix commit a round pushed.
func pushedReason(files int, sha string) string {
	return fmt.Sprintf("pushed %d test-only file(s) as %s", files, shortSHA(sha))
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
func (e *Engine) judgedCommit(pull *Pull) (string, string) {
	c := e.Event
	var sha, src string
	switch {
	case c.Name == "workflow_dispatch":
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

// ownFiles hides from the change set what the round itself put in the
// workspace: the files given (evidence read, the baseline) and gcloop's
// own outputs.
func ownFiles(own []string) func(string) bool {
	set := map[string]bool{}
	for _, f := range own {
		set[path.Clean(filepath.ToSlash(f))] = true
	}
	return func(p string) bool {
		return set[p] || p == evidence.OutputDir || strings.HasPrefix(p, evidence.OutputDir+"/")
	}
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

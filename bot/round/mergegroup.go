package round

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/google/go-github/v62/github"
)

// GroupResult is what checking a merge queue's group did.
type GroupResult struct {
	// HeadSHA is the group's commit, where the checks were written.
	HeadSHA string
	// PRs are the group's pull requests, in number order.
	PRs []int
	// Checks are the conclusions, one per loop id.
	Checks []GroupCheck
}

// GroupCheck is the conclusion of one loop on a merge group.
type GroupCheck struct {
	LoopID     string
	Conclusion string // check.Success or check.Failure
	Title      string
	// Failing say, one line per pull request, why it may not merge.
	Failing []string
	// Written is false when the check was not written (a dry run, the
	// check input off, or GitHub refused it: Note says why).
	Written bool
	// Status is set when a commit status stood in for the check run.
	Status bool
	Note   string
}

// ErrNoLoop means there is no loop to check a merge group for: the
// driver names none and the base branch's configuration has none.
var ErrNoLoop = errors.New("no loop to check")

// MergeGroup writes the check `gcloop / <id>` of each loop on a merge
// queue's group commit (a merge_group checks_requested event): success
// when every pull request of the group has the loop converged or approved
// at its current head — as gcloop's own report comment records it — else
// failure naming each pull request that may not merge and why. No critic
// runs: it costs a few reads (the group's pull requests, one report
// comment listing per pull request and loop) and one write per loop.
//
// The loops are the one the driver names (Options.ID or Loop), else every
// loop the base branch's configuration has. A loop with no state on a pull
// request of the group fails it: a required check never waits, and an
// unjudged pull request does not slip through the queue.
//
// The group's pull requests are the one its queue branch names
// (gh-readonly-queue/<base>/pr-<n>-<sha>) and the open ones GitHub
// associates with its head commit that target the same base.
func (e *Engine) MergeGroup(ctx context.Context, res *Result) error {
	mg := e.Event.MergeGroup
	if mg == nil || mg.GetHeadSHA() == "" {
		return fmt.Errorf("%w: the %s event carries no merge group", ErrNoPull, or(e.Event.Name, "(no)"))
	}
	g := &GroupResult{HeadSHA: mg.GetHeadSHA()}
	res.Group = g
	base := strings.TrimPrefix(mg.GetBaseRef(), "refs/heads/")
	if qb, _, ok := QueueRef(mg.GetHeadRef()); ok && base == "" {
		base = qb
	}
	ids, err := e.groupLoops(ctx, base)
	if err != nil {
		return err
	}
	pulls, err := e.groupPulls(ctx, mg, base)
	if errors.Is(err, ErrOffline) {
		res.Notes = append(res.Notes, fmt.Sprintf("dry run: would check loops %s on the pull requests of merge group %s", strings.Join(ids, ", "), shortSHA(g.HeadSHA)))
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range pulls {
		g.PRs = append(g.PRs, p.Number)
	}
	for _, id := range ids {
		gc := GroupCheck{LoopID: id, Conclusion: check.Success}
		var notes []string
		whyNot := map[int]string{}
		for _, p := range pulls {
			found, err := e.GH.FindReport(ctx, p.Number, id)
			if err != nil {
				return fmt.Errorf("read the report comment of loop %s on #%d: %w", id, p.Number, err)
			}
			for _, n := range found.Notes {
				notes = append(notes, fmt.Sprintf("PR #%d: %s", p.Number, n))
			}
			if why := pullVerdict(p, id, found.State); why != "" {
				gc.Failing = append(gc.Failing, why)
				whyNot[p.Number] = why
			}
		}
		if len(pulls) == 0 {
			gc.Failing = append(gc.Failing, "the merge group names no open pull request gcloop could find")
		}
		if len(gc.Failing) > 0 {
			gc.Conclusion = check.Failure
		}
		gc.Title = groupTitle(gc, len(pulls))
		e.writeGroupCheck(ctx, res, &gc, groupSummary(gc, pulls, whyNot, notes))
		g.Checks = append(g.Checks, gc)
		e.log().Printf("merge group %s: %s %s — %s", shortSHA(g.HeadSHA), check.Name(id), gc.Conclusion, gc.Title)
	}
	return nil
}

// groupLoops are the loop ids to check on a merge group into base.
func (e *Engine) groupLoops(ctx context.Context, base string) ([]string, error) {
	if id := or(e.Opts.ID, string(e.Opts.Loop)); id != "" {
		return []string{id}, nil
	}
	file, err := e.GH.Config(ctx, base, e.Opts.Config)
	if err != nil && !errors.Is(err, ErrOffline) {
		return nil, fmt.Errorf("read the configuration of %s: %w", or(base, "the default branch"), err)
	}
	var ids []string
	for _, s := range file.Sections() {
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: name the loop (input loop or id), or configure one in %s on %s", ErrNoLoop, e.Opts.Config, or(base, "the default branch"))
	}
	return ids, nil
}

// groupPulls finds the open pull requests of a merge group into base.
func (e *Engine) groupPulls(ctx context.Context, mg *github.MergeGroup, base string) ([]*Pull, error) {
	byNumber := map[int]*Pull{}
	prs, err := e.GH.PullsWithCommit(ctx, mg.GetHeadSHA())
	if err != nil {
		return nil, err
	}
	for _, pr := range prs {
		if pr.GetState() == "open" && (base == "" || pr.GetBase().GetRef() == base) {
			byNumber[pr.GetNumber()] = PullFrom(pr)
		}
	}
	if _, n, ok := QueueRef(mg.GetHeadRef()); ok && byNumber[n] == nil {
		pr, err := e.GH.Pull(ctx, n)
		if err != nil {
			return nil, err
		}
		if pr.GetState() == "open" {
			byNumber[n] = PullFrom(pr)
		}
	}
	out := make([]*Pull, 0, len(byNumber))
	for _, p := range byNumber {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Pull) int { return a.Number - b.Number })
	return out, nil
}

// writeGroupCheck writes a loop's check on the group's commit (a commit
// status where check runs are refused, as check.Publish does).
func (e *Engine) writeGroupCheck(ctx context.Context, res *Result, gc *GroupCheck, summary string) {
	if !e.Opts.Check {
		gc.Note = "the check input is off: the conclusion was not written"
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s", check.Name(gc.LoopID), gc.Note))
		return
	}
	out, err := e.GH.Check(ctx, check.Spec{Owner: e.Event.Owner, Repo: e.Event.Repo, SHA: res.Group.HeadSHA, LoopID: gc.LoopID,
		Conclusion: gc.Conclusion, Title: gc.Title, Summary: summary, DetailsURL: e.Event.RunURL(), Now: e.Now()})
	switch {
	case err != nil:
		gc.Note = "the check was not written: " + ghclient.Explain(err)
		res.incomplete(fmt.Errorf("merge group check %s: %w", check.Name(gc.LoopID), err))
	case out.Planned:
		gc.Note = "dry run: the check was not written"
	default:
		gc.Written, gc.Status, gc.Note = true, out.Status, out.Note
	}
	if gc.Note != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s", check.Name(gc.LoopID), gc.Note))
	}
}

// groupTitle is the one line of a loop's conclusion on a merge group.
func groupTitle(gc GroupCheck, pulls int) string {
	switch {
	case len(gc.Failing) == 1:
		return gc.Failing[0]
	case len(gc.Failing) > 1:
		return fmt.Sprintf("%d of %d pull requests may not merge: %s; …", len(gc.Failing), pulls, gc.Failing[0])
	case pulls == 1:
		return fmt.Sprintf("loop %s converged on the pull request of the group", gc.LoopID)
	}
	return fmt.Sprintf("loop %s converged on all %d pull requests of the group", gc.LoopID, pulls)
}

// groupSummary is the check's summary: the pull requests and why those
// that may not merge may not.
func groupSummary(gc GroupCheck, pulls []*Pull, whyNot map[int]string, notes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s on the merge group\n\n", check.Name(gc.LoopID))
	b.WriteString("A merge group may merge when every pull request in it has the loop converged or approved at its current head, as gcloop's report comment on it records. No critic was run for the group.\n\n")
	for _, p := range pulls {
		if why, ok := whyNot[p.Number]; ok {
			fmt.Fprintf(&b, "- ❌ %s\n", why) // pullVerdict escapes what it quotes of the state
		} else {
			fmt.Fprintf(&b, "- ✅ PR #%d: loop %s converged at its head %s\n", p.Number, gc.LoopID, shortSHA(p.HeadSHA))
		}
	}
	if len(pulls) == 0 && len(gc.Failing) > 0 {
		fmt.Fprintf(&b, "- ❌ %s\n", gc.Failing[0])
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", report.EscapeInline(n))
		}
	}
	return b.String()
}

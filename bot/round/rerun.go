package round

import (
	"context"
	"fmt"
)

// PullOfCommit is the pull request a check run or check suite on commit
// sha is about: number when the event names one, else (a fork's head,
// which check events name no pull request for) the open pull request
// whose head is sha. ErrNoPull when there is none.
func (e *Engine) PullOfCommit(ctx context.Context, sha string, number int) (*Pull, error) {
	if number > 0 {
		pr, err := e.GH.Pull(ctx, number)
		if err != nil {
			return nil, err
		}
		return PullFrom(pr), nil
	}
	prs, err := e.GH.PullsWithCommit(ctx, sha)
	if err != nil {
		return nil, err
	}
	for _, pr := range prs {
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
			return PullFrom(pr), nil
		}
	}
	return nil, fmt.Errorf("%w: no open pull request has the head %s", ErrNoPull, shortSHA(sha))
}

// JudgedRun is the workflow run whose artifacts the last round of loop id
// on pull judged, for a re-run of gcloop's check on commit sha: the same
// round judged again from the same run (its latest attempt), which the
// engine's same-round rule records in place of the last entry. why says
// why there is nothing to re-judge ("" when runID is set): no state, no
// round on sha, a later round on another commit, or no run recorded.
func (e *Engine) JudgedRun(ctx context.Context, pull *Pull, id, sha string) (runID int64, why string, err error) {
	found, err := e.GH.FindReport(ctx, pull.Number, id)
	if err != nil {
		return 0, "", fmt.Errorf("read the report comment: %w", err)
	}
	st := found.State
	if st == nil || st.Last() == nil {
		return 0, fmt.Sprintf("loop %s has no judged round on #%d", id, pull.Number), nil
	}
	last := st.Last()
	switch {
	case last.SHA != sha:
		return 0, fmt.Sprintf("loop %s judged %s in its last round %d, not %s: only the last round is judged again", id, shortSHA(last.SHA), last.N, shortSHA(sha)), nil
	case last.RunID == 0:
		return 0, fmt.Sprintf("round %d of loop %s records no workflow run to read the artifacts of", last.N, id), nil
	}
	return last.RunID, "", nil
}

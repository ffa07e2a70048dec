package round

import (
	"context"
	"fmt"

	"github.com/gcloop/gcloop/bot/publish"
)

// Closed closes the open fix issues of loop id on pull request pr, which
// was closed or merged: no round will fix them. It reports the issues
// closed; a loop without a report or without open issues costs one
// request.
func (e *Engine) Closed(ctx context.Context, pr int, id string) ([]int, error) {
	found, err := e.GH.FindReport(ctx, pr, id)
	if err != nil {
		return nil, fmt.Errorf("read the report comment: %w", err)
	}
	st := found.State
	if st == nil || !openIssuesRecorded(st.Rounds) {
		return nil, nil
	}
	last := st.Last()
	out, err := e.GH.SyncIssues(ctx, publish.SyncSpec{Owner: e.Event.Owner, Repo: e.Event.Repo, PR: pr, LoopID: st.ID, Loop: st.Loop,
		Round: last.N, Converged: true,
		CloseNote: fmt.Sprintf("Closed: pull request #%d was closed; the %s loop `%s` starts no further fix round.", pr, st.Loop, st.ID)})
	if err != nil {
		return out.Closed, fmt.Errorf("close the fix issues of %s: %w", st.ID, err)
	}
	return out.Closed, nil
}

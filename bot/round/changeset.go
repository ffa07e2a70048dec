package round

import (
	"context"
	"errors"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
)

// changeSet is the round's change set against the judged commit, in one
// of two shapes that give the same value to one guard and one pusher:
// the generator's patch handed over in an artifact (Input.Patch, the
// fork-safe split where the generator had no write access), applied in
// memory to the judged commit's tree, or else the workspace the generator
// changed, compared with that tree. A patch that cannot be read or does
// not apply exactly is refused as a whole: refused says why (kind
// "patch" or "conflict"), with an empty snapshot. ok is false when there
// is nothing to judge; d's notes then say why.
func (e *Engine) changeSet(ctx context.Context, d *decide.Decision, in Input, judged string) (snap *pushfix.Snapshot, refused *guard.Violation, ok bool) {
	if in.Patch == nil && in.PatchErr == nil {
		return e.workspaceChanges(ctx, d, in, judged)
	}
	empty := &pushfix.Snapshot{HeadSHA: judged}
	if in.PatchErr != nil {
		return empty, &guard.Violation{Kind: "patch", Detail: in.PatchErr.Error()}, true
	}
	snap, err := e.GH.ApplyPatch(ctx, judged, in.Patch)
	switch {
	case errors.Is(err, ErrOffline):
		d.Notes = append(d.Notes, "dry run: the generator's patch is applied to the PR head's tree, which needs the API; no commit planned")
		return nil, nil, false
	case errors.Is(err, pushfix.ErrConflict):
		return empty, &guard.Violation{Kind: "conflict", Detail: err.Error() + " (made against " + shortSHA(judged) + ")"}, true
	case errors.Is(err, pushfix.ErrPatch):
		return empty, &guard.Violation{Kind: "patch", Detail: err.Error()}, true
	case err != nil:
		d.Notes = append(d.Notes, "the generator's patch could not be applied: "+ghclient.Explain(err))
		return nil, nil, false
	}
	if len(snap.Changes) == 0 {
		d.Notes = append(d.Notes, "the generator's patch ("+in.Patch.Name+") changes nothing")
	}
	return snap, nil, true
}

// workspaceChanges compares the workspace with the judged commit.
func (e *Engine) workspaceChanges(ctx context.Context, d *decide.Decision, in Input, judged string) (*pushfix.Snapshot, *guard.Violation, bool) {
	if in.Workspace == "" {
		d.Notes = append(d.Notes, "the workspace changes were not judged: no workspace")
		return nil, nil, false
	}
	ws := pushfix.Workspace{Dir: in.Workspace, Ignore: ownFiles(in.Own)}
	snap, err := e.GH.Snapshot(ctx, judged, ws)
	switch {
	case errors.Is(err, ErrOffline):
		d.Notes = append(d.Notes, "dry run: the workspace changes are judged against the PR head, which needs the API; no commit planned")
		return nil, nil, false
	case err != nil:
		d.Notes = append(d.Notes, "the workspace changes could not be judged: "+ghclient.Explain(err))
		return nil, nil, false
	}
	return snap, nil, true
}

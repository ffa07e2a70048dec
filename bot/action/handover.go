package action

import (
	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/round"
)

// handOver puts into the round what the artifacts handed over of the
// generator's change: on workflow_run — the privileged half of the
// fork-safe split, whose workspace is not the pull request's checkout —
// its patch (evidence.PatchName), which then is the round's change set,
// and the baseline beside it unless the baseline input names one. On any
// other event the workspace is the generator's checkout and the patch is
// passed over (said in the log).
func (r *Runner) handOver(in *round.Input, art *artifact.Read) {
	if art == nil || art.Patch == nil && art.PatchErr == nil && art.Baseline == nil && art.BaselineErr == nil {
		return
	}
	if r.Ctx.Name != "workflow_run" {
		if art.Patch != nil || art.PatchErr != nil {
			r.Log.Printf("artifacts: %s passed over: a patch is applied on workflow_run only; on %s the workspace holds the change", evidence.PatchName, r.Ctx.Name)
		}
		return
	}
	in.Patch, in.PatchErr = art.Patch, art.PatchErr
	if art.Patch != nil {
		r.Log.Printf("artifacts: the generator's change is %s (%d file(s)), applied to the head in memory", art.Patch.Name, len(art.Patch.Files))
	}
	if r.Opts.Baseline == "" {
		in.Baseline, in.BaselineErr = art.Baseline, art.BaselineErr
	}
}

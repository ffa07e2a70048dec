package delivery

import (
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

// decisionData is the data of a decision event: the decision, and the
// round as the loop's state records it — sha, run, counts, movement,
// actor, start and end — so that GET /api/loops/{owner}/{repo}/{pr} can show a loop's
// rounds from the event log alone.
func decisionData(d *decide.Decision) map[string]any {
	data := map[string]any{"round": d.Round, "max_rounds": d.MaxRounds,
		"decision": d.Outcome, "verdict": d.Verdict, "status": d.Status, "title": round.CheckTitle(d),
		"sha": d.SHA, "counts": d.Counts}
	if len(d.History) == 0 {
		return data
	}
	rec := d.History[len(d.History)-1]
	if rec.N != d.Round {
		return data
	}
	if rec.SHA != "" {
		data["sha"] = rec.SHA
	}
	data["counts"] = rec.Counts
	if rec.RunID != 0 {
		data["run"], data["run_attempt"] = rec.RunID, rec.RunAttempt
	}
	if rec.Actor != "" {
		data["actor"] = rec.Actor
	}
	if rec.Movement != nil {
		data["movement"] = rec.Movement
	}
	if !rec.Started.IsZero() && !rec.Ended.IsZero() {
		data["started"], data["ended"] = rec.Started, rec.Ended
	}
	return data
}

// issueData is the data of a round's issue event: the round's open fix
// issues, and those it closed and reopened, each key only when it names
// one; nil when the round touched none.
func issueData(res *round.Result) map[string]any {
	data := map[string]any{}
	for key, ns := range map[string][]int{"issues": res.Issues, "closed": res.Closed, "reopened": res.Reopened} {
		if len(ns) > 0 {
			data[key] = ns
		}
	}
	if len(data) == 0 {
		return nil
	}
	return data
}

package decide

import (
	"fmt"
	"strings"
)

// stallScore is the figure a round's progress is measured by (DESIGN §2.6):
// the review or audit score and the coverage (higher is better), the
// regression count of validation and the blocking count of critique (lower
// is better).
func stallScore(l Loop, r RoundRecord) (v float64, higherBetter, known bool) {
	switch l {
	case Review, Audit:
		if r.Score != nil {
			return *r.Score, true, true
		}
	case Coverage:
		if r.Coverage != nil {
			return *r.Coverage, true, true
		}
	case Validation:
		if r.Regressions != nil {
			return float64(*r.Regressions), false, true
		}
	case Critique:
		return float64(r.Counts.Blocking()), false, true
	}
	return 0, false, false
}

// stuck reports whether round cur, following prev, made no progress: prev
// was a fix round, cur carries a blocking fingerprint prev carried (a
// persisting finding, as the movement counts it), and its score is no better (an unknown score counts as no better).
func stuck(l Loop, prev, cur RoundRecord) (shared int, ok bool) {
	if prev.Decision != Fix {
		return 0, false
	}
	shared = len(compare(prev.Fingerprints, cur.Fingerprints).kept)
	if shared == 0 {
		return 0, false
	}
	pv, higher, pk := stallScore(l, prev)
	cv, _, ck := stallScore(l, cur)
	better := pk && ck && ((higher && cv > pv) || (!higher && cv < pv))
	return shared, !better
}

// checkStall turns a fix round into the loop's stop when the last
// Config.Stall rounds, this one included, are all stuck.
func checkStall(in Input, d *Decision) {
	k := in.Config.Stall
	if d.Outcome != Fix || k == 0 {
		return
	}
	rounds := append(append([]RoundRecord{}, in.History...), d.Record())
	if len(rounds) < k+1 {
		return
	}
	var lines []string
	for i := len(rounds) - k; i < len(rounds); i++ {
		shared, ok := stuck(in.Loop, rounds[i-1], rounds[i])
		if !ok {
			return
		}
		lines = append(lines, fmt.Sprintf("round %d repeats %d blocking finding(s) of round %d with %s", rounds[i].N, shared, rounds[i-1].N, scoreChange(in.Loop, rounds[i-1], rounds[i])))
	}
	d.Stalled = true
	d.Reasons = append(d.Reasons, fmt.Sprintf("stalled: the last %d round(s) made no progress (%s)", k, strings.Join(lines, "; ")))
	switch in.Loop {
	case Review, Audit:
		d.Outcome, d.Verdict = Escalate, "ESCALATE (stalled)"
	case Critique:
		d.Outcome, d.Verdict, d.Forced = Converge, "CONVERGE", true
	case Validation:
		d.Outcome, d.Verdict, d.Forced = Converge, "accept", true
	case Coverage:
		d.Outcome, d.Verdict, d.Forced = Converge, "ACCEPT", true
	}
	if d.Outcome == Converge {
		d.Notes = append(d.Notes, "warning: stopped early because rounds stopped making progress")
	}
}

func scoreChange(l Loop, prev, cur RoundRecord) string {
	pv, _, pk := stallScore(l, prev)
	cv, _, ck := stallScore(l, cur)
	if !pk || !ck {
		return "no known improvement"
	}
	return fmt.Sprintf("no improvement (%s → %s)", fmtNum(pv), fmtNum(cv))
}

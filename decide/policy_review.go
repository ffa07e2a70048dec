package decide

import (
	"fmt"
	"math"
	"strings"
)

// Review signals.
const (
	SignalConverged      = "CONVERGED"
	SignalRevisionNeeded = "REVISION_NEEDED"
)

// InferReviewScore is the score a review without one gets from its
// findings: clamp(10 − 3·critical − 1.5·high − 0.5·medium − 0.1·low, 1, 10).
func InferReviewScore(c Counts) float64 {
	s := 10 - 3*float64(c.Critical) - 1.5*float64(c.High) - 0.5*float64(c.Medium) - 0.1*float64(c.Low)
	return round2(math.Max(1, math.Min(10, s)))
}

// decideReview applies DESIGN §2.1.
func decideReview(in Input, d *Decision) error {
	e := in.Evidence
	rf := e.Review
	if rf == nil && !e.Analysis && len(d.Findings) == 0 {
		return noDecision("no review evidence in %s: want review-results.json, a review markdown, a tasks.csv review row, review_finding discoveries or SARIF", sourcesOf(e))
	}
	if rf == nil {
		rf = &ReviewFacts{}
	}
	d.Prose = rf.Summary
	thr := in.Config.Threshold
	d.Threshold = ptr(thr)
	c := d.Counts

	var score float64
	scoreFrom := rf.ScoreFrom
	if rf.Score != nil {
		score = *rf.Score
	} else {
		score = InferReviewScore(c)
		scoreFrom = "inferred from findings"
		d.Notes = append(d.Notes, fmt.Sprintf("review score missing: inferred %s from %d critical, %d high, %d medium, %d low findings (10 − 3·critical − 1.5·high − 0.5·medium − 0.1·low, clamped to 1–10)",
			fmtNum(score), c.Critical, c.High, c.Medium, c.Low))
	}
	signal := rf.Signal
	signalFrom := rf.SignalFrom
	if signal == "" {
		signalFrom = "inferred"
		if score >= thr && c.Critical == 0 {
			signal = SignalConverged
		} else {
			signal = SignalRevisionNeeded
		}
		d.Notes = append(d.Notes, fmt.Sprintf("review signal missing: inferred %s from score %s and %d critical findings", signal, fmtNum(score), c.Critical))
	}
	crit := bySeverity(d.Findings, Critical)
	if c.Critical > 0 && signal == SignalConverged {
		d.Notes = append(d.Notes, fmt.Sprintf("review said CONVERGED%s but has %d critical finding(s): counted as REVISION_NEEDED", cite(signalFrom), c.Critical))
		signal = SignalRevisionNeeded
		signalFrom = "critical findings"
	}
	d.Score = ptr(score)
	d.Signal = signal

	scoreLine := fmt.Sprintf("score %s %s threshold %s%s", fmtNum(score), cmpWord(score >= thr), fmtNum(thr), cite(scoreFrom))
	signalLine := fmt.Sprintf("signal %s%s", signal, cite(signalFrom))
	switch {
	case signal == SignalConverged && score >= thr:
		d.Outcome, d.Verdict = Converge, "CONVERGE"
		d.Reasons = append(d.Reasons, signalLine+" and "+scoreLine)
	case signal == SignalConverged:
		d.Outcome, d.Verdict = Converge, "CONVERGE (score noted)"
		d.Reasons = append(d.Reasons, signalLine+"; "+scoreLine+": converged, score noted")
	case c.Critical == 0 && score >= thr:
		d.Outcome, d.Verdict, d.Advisory = Converge, "CONVERGE (minor issues)", true
		d.Reasons = append(d.Reasons, signalLine+" but "+scoreLine+" and no critical finding: converged with the findings noted")
		addOpenFindings(d)
	default:
		d.Reasons = append(d.Reasons, signalLine+"; "+scoreLine)
		if c.Critical > 0 {
			d.Reasons = append(d.Reasons, fmt.Sprintf("%d critical finding(s): %s", c.Critical, citeFindings(crit)))
		}
		if high := bySeverity(d.Findings, High); len(high) > 0 {
			d.Reasons = append(d.Reasons, fmt.Sprintf("%d high finding(s): %s", c.High, citeFindings(high)))
		}
		fixOrEscalate(d, "FIX", "ESCALATE")
	}
	return nil
}

// fixOrEscalate sets a fix round while rounds remain, else an escalation.
func fixOrEscalate(d *Decision, fix, escalate string) {
	if d.Round < d.MaxRounds {
		d.Outcome, d.Verdict = Fix, fix
		d.Reasons = append(d.Reasons, fmt.Sprintf("round %d < max_rounds %d: a fix round may start", d.Round, d.MaxRounds))
		return
	}
	d.Outcome, d.Verdict = Escalate, escalate
	d.Reasons = append(d.Reasons, fmt.Sprintf("round %d ≥ max_rounds %d: no fix round may start; a person must decide", d.Round, d.MaxRounds))
}

// addOpenFindings notes the findings an advisory convergence leaves open.
func addOpenFindings(d *Decision) {
	if n := d.Counts.Total(); n > 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("open findings (%d): %s", n, citeFindings(d.Findings)))
	}
}

func cmpWord(ge bool) string {
	if ge {
		return "≥"
	}
	return "<"
}

func sourcesOf(e *Evidence) string {
	if len(e.Sources) == 0 {
		return "the evidence given"
	}
	return strings.Join(e.Sources, ", ")
}

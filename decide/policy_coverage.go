package decide

import (
	"fmt"
	"math"
)

// decideCoverage applies DESIGN §2.5.
func decideCoverage(in Input, d *Decision) error {
	e := in.Evidence
	if e.Coverage == nil && e.Tests == nil {
		return noDecision("no coverage or test report in %s: want an LCOV, Cobertura, JaCoCo, Clover or Go cover profile, JUnit XML or results/run-<layer>.json", sourcesOf(e))
	}
	layer := d.Layer
	if layer == "" && e.Coverage != nil {
		layer = e.Coverage.Layer
		d.Layer = layer
	}
	target := in.Config.Target
	if target == nil {
		t, err := LayerTarget(layer)
		if err != nil {
			return noDecision("coverage report: %v", err)
		}
		target = ptr(t)
	}
	d.Target = target

	cov := coveragePercent(e.Coverage)
	d.Coverage = cov
	if e.Coverage != nil {
		d.Files = e.Coverage.Files
	}
	t := e.Tests
	d.PassRate = t.Rate()
	if d.PassRate != nil {
		d.PassRate = ptr(math.Round(*d.PassRate*1e4) / 1e4)
	}
	if cov == nil && d.PassRate == nil {
		// A loop never converges on nothing measured (DESIGN §3).
		return noDecision("nothing measured in %s: no covered line and no test that ran; re-run the tests with coverage", sourcesOf(e))
	}
	if e.Coverage != nil && cov == nil {
		d.Notes = append(d.Notes, fmt.Sprintf("coverage report%s measured no line (0 of 0): counted as unavailable", cite(e.Sources...)))
	}
	d.Failures = t.Failures()
	allPass, rateMet := true, true
	if t == nil {
		d.Notes = append(d.Notes, "no test report: the pass-rate conditions count as met")
	} else {
		allPass = t.Failed == 0
		if d.PassRate == nil {
			d.Notes = append(d.Notes, "the test report ran no test: the pass-rate conditions count as met")
		} else {
			rateMet = *d.PassRate >= 0.95
		}
		d.Reasons = append(d.Reasons, fmt.Sprintf("tests: %d passed, %d failed, %d skipped%s%s", t.Passed, t.Failed, t.Skipped, rateText(d.PassRate), cite(e.Sources...)))
	}
	covMet := true
	if cov == nil {
		d.Notes = append(d.Notes, "coverage unavailable: the pass rate is the proxy and the coverage conditions are dropped")
	} else {
		covMet = *cov >= *target
		d.Reasons = append(d.Reasons, fmt.Sprintf("coverage %s%% %s target %s%%%s", fmtNum(*cov), cmpWord(covMet), fmtNum(*target), cite(e.Sources...)))
	}
	d.Summary = coverageSummary(d, in.History)

	switch {
	case allPass && covMet:
		d.Outcome, d.Verdict = Converge, "CONVERGE"
	case rateMet && d.Round >= 2:
		d.Outcome, d.Verdict, d.Advisory = Converge, "CONVERGE (good enough)", true
		d.Reasons = append(d.Reasons, fmt.Sprintf("pass rate ≥ 0.95 at round %d ≥ 2: good enough", d.Round))
	case d.Round < d.MaxRounds:
		d.Outcome, d.Verdict = Fix, "FIX"
		d.Reasons = append(d.Reasons, fmt.Sprintf("round %d < max_rounds %d: a fix round may start (%s)", d.Round, d.MaxRounds, shortfall(allPass, covMet)))
	default:
		d.Outcome, d.Verdict, d.Forced = Converge, "ACCEPT", true
		d.Reasons = append(d.Reasons, fmt.Sprintf("round %d ≥ max_rounds %d: current coverage accepted", d.Round, d.MaxRounds))
		d.Notes = append(d.Notes, "warning: accepted below the goal ("+shortfall(allPass, covMet)+"): rounds ran out")
	}
	return nil
}

// coveragePercent is the line coverage in percent, or nil when unknown.
func coveragePercent(c *CoverageFacts) *float64 {
	switch {
	case c == nil:
		return nil
	case c.Total > 0:
		return ptr(round2(100 * float64(c.Covered) / float64(c.Total)))
	case c.Percent != nil:
		return ptr(round2(*c.Percent))
	}
	return nil
}

func shortfall(allPass, covMet bool) string {
	switch {
	case !allPass && !covMet:
		return "tests failing and coverage below target"
	case !allPass:
		return "tests still failing"
	}
	return "coverage below target"
}

func rateText(r *float64) string {
	if r == nil {
		return ""
	}
	return ", pass rate " + fmtNum(*r)
}

// coverageSummary renders "Round <n> for <layer>: coverage <before>% ->
// <after>% (delta: +<d>%)"; before is the last earlier round's coverage.
func coverageSummary(d *Decision, history []RoundRecord) string {
	layer := d.Layer
	if layer == "" {
		layer = "all layers"
	}
	var before *float64
	for i := len(history) - 1; i >= 0 && before == nil; i-- {
		before = history[i].Coverage
	}
	switch {
	case d.Coverage == nil:
		return fmt.Sprintf("Round %d for %s: coverage unavailable", d.Round, layer)
	case before == nil:
		return fmt.Sprintf("Round %d for %s: coverage n/a -> %s%% (first measured round)", d.Round, layer, fmt.Sprintf("%.1f", *d.Coverage))
	}
	return fmt.Sprintf("Round %d for %s: coverage %.1f%% -> %.1f%% (delta: %+.1f%%)", d.Round, layer, *before, *d.Coverage, *d.Coverage-*before)
}

package decide

import (
	"fmt"
	"strings"
)

// decideCritique applies DESIGN §2.2. It always decides: missing or
// unreadable critique data converges with a note.
func decideCritique(in Input, d *Decision) {
	cf := in.Evidence.Critique
	switch {
	case cf != nil && cf.Unreadable != "":
		d.Outcome, d.Verdict = Converge, "CONVERGE"
		d.WithoutData = cf.Unreadable
		if src := sourcesOf(in.Evidence); !strings.HasPrefix(cf.Unreadable, src) {
			d.WithoutData = src + ": " + cf.Unreadable // name the file
		}
		d.Notes = append(d.Notes, "warning: critique data could not be read: converged without it")
		d.Reasons = append(d.Reasons, "critique data unreadable: no evidence for revision")
		return
	case cf == nil && len(d.Findings) == 0:
		d.Outcome, d.Verdict = Converge, "CONVERGE"
		d.Notes = append(d.Notes, "no evidence for revision")
		d.Reasons = append(d.Reasons, "no critique data in "+sourcesOf(in.Evidence)+": no evidence for revision")
		d.WithoutData = "no critique data in " + sourcesOf(in.Evidence)
		return
	}
	from := "critique entries"
	if cf != nil && cf.Summary != nil {
		counted := d.Counts
		d.Counts = *cf.Summary
		from = "severity_summary"
		if counted.Total() > 0 && counted != d.Counts {
			d.Notes = append(d.Notes, fmt.Sprintf("severity_summary %s differs from the %d critique entries counted (%s): the summary counts",
				summaryString(d.Counts), counted.Total(), summaryString(counted)))
		}
	}
	d.Reasons = append(d.Reasons, fmt.Sprintf("severity counts %s (%s in %s)", summaryString(d.Counts), from, sourcesOf(in.Evidence)))
	switch {
	case d.Round >= d.MaxRounds:
		d.Outcome, d.Verdict, d.Forced = Converge, "CONVERGE", true
		d.Reasons = append(d.Reasons, fmt.Sprintf("round %d ≥ max_rounds %d: converged by the round cap", d.Round, d.MaxRounds))
		if d.Counts.Blocking() > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("warning: forced convergence leaves %d critical and %d high critique point(s) open", d.Counts.Critical, d.Counts.High))
		}
	case d.Counts.Blocking() > 0:
		d.Outcome, d.Verdict = Fix, "REVISION"
		if blocking := bySeverity(d.Findings, Critical, High); len(blocking) > 0 {
			d.Reasons = append(d.Reasons, "critical/high critique: "+citeFindings(blocking))
		} else {
			d.Reasons = append(d.Reasons, fmt.Sprintf("%d critical and %d high critique point(s)", d.Counts.Critical, d.Counts.High))
		}
	default:
		d.Outcome, d.Verdict = Converge, "CONVERGE"
		d.Reasons = append(d.Reasons, "no critical or high critique point")
	}
}

// summaryString renders counts as a severity_summary.
func summaryString(c Counts) string {
	return fmt.Sprintf("CRITICAL:%d HIGH:%d MEDIUM:%d LOW:%d", c.Critical, c.High, c.Medium, c.Low)
}

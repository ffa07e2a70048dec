package decide

import "fmt"

// decideValidation applies DESIGN §2.4.
func decideValidation(in Input, d *Decision) error {
	e := in.Evidence
	vf := e.Validation
	if vf == nil && e.Tests == nil && !e.Analysis {
		return noDecision("no validation report in %s: want validation-report.json, or JUnit and SARIF/checkstyle reports", sourcesOf(e))
	}
	if vf == nil {
		vf = &ValidationFacts{}
		d.Notes = append(d.Notes, "no validation-report.json: regressions assembled from the test and analysis reports")
	}
	if vf.DebtBefore != nil || vf.DebtAfter != nil {
		d.Metrics = append(d.Metrics, Metric{Name: "debt score", Before: vf.DebtBefore, After: vf.DebtAfter})
	}
	if vf.Improvement != nil {
		d.Metrics = append(d.Metrics, Metric{Name: "improvement", After: vf.Improvement, Unit: "%"})
	}

	if vf.Unreadable != "" {
		d.Notes = append(d.Notes, "warning: the validation report could not be read: treated as a failed validation")
		d.Reasons = append(d.Reasons, "validation report unreadable: treated as failed")
		d.Checks = nil
		retryOrAccept(d)
		return nil
	}

	tests := checkCount("tests", vf.Tests, e.Tests != nil, testFailures(e), "test report")
	types := checkCount("types", vf.Types, e.Analysis, e.TypeErrors, "analysis report")
	lint := checkCount("lint", vf.Lint, e.Analysis, e.LintErrors, "analysis report")
	for _, c := range []*Check{tests, types, lint, vf.Quality} {
		if c != nil {
			d.Checks = append(d.Checks, *c)
		}
	}
	var n int
	switch {
	case tests != nil || types != nil || lint != nil:
		for _, c := range []*Check{tests, types, lint} {
			if c != nil {
				n += c.Failed
			}
		}
		if vf.Regressions != nil && *vf.Regressions != n {
			d.Notes = append(d.Notes, fmt.Sprintf("the report's total regressions %d differs from the checks' failures %d: the checks count", *vf.Regressions, n))
		}
	case vf.Regressions != nil:
		n = *vf.Regressions
	default:
		d.Notes = append(d.Notes, "the validation report holds no regression count or checks: treated as a failed validation")
		d.Reasons = append(d.Reasons, "no regression count: treated as failed")
		retryOrAccept(d)
		return nil
	}
	d.Regressions = ptr(n)
	if vf.Passed != nil && *vf.Passed != (n == 0) {
		d.Notes = append(d.Notes, fmt.Sprintf("the report says passed=%t but counts %d regression(s): the count wins", *vf.Passed, n))
	}
	d.Reasons = append(d.Reasons, fmt.Sprintf("%d regression(s): %s%s", n, checkLine(tests, types, lint), cite(e.Sources...)))
	if vf.Quality != nil {
		d.Reasons = append(d.Reasons, fmt.Sprintf("quality check %s (%d issue(s), reported, not counted)", vf.Quality.Status, vf.Quality.Failed))
	}
	if n == 0 {
		d.Outcome, d.Verdict = Converge, "pipeline_complete"
		return nil
	}
	if f := testFailureList(e); len(f) > 0 {
		d.Failures = f
	}
	retryOrAccept(d)
	return nil
}

// retryOrAccept sets a retry round while rounds remain, else a forced accept.
func retryOrAccept(d *Decision) {
	if d.Round < d.MaxRounds {
		d.Outcome, d.Verdict = Fix, "retry"
		d.Reasons = append(d.Reasons, fmt.Sprintf("round %d < max_rounds %d: another fix round", d.Round, d.MaxRounds))
		return
	}
	d.Outcome, d.Verdict, d.Forced = Converge, "accept", true
	d.Reasons = append(d.Reasons, fmt.Sprintf("round %d ≥ max_rounds %d: accepted as is", d.Round, d.MaxRounds))
	d.Notes = append(d.Notes, "warning: accepted with regressions left: rounds ran out")
}

// checkCount returns the report's own check, or one assembled from a
// standard report when the validation report lacks it.
func checkCount(name string, own *Check, have bool, failed int, what string) *Check {
	if own != nil {
		return own
	}
	if !have {
		return nil
	}
	status := "passed"
	if failed > 0 {
		status = "failed"
	}
	return &Check{Name: name, Status: status + " (from " + what + ")", Failed: failed}
}

func testFailures(e *Evidence) int {
	if e.Tests == nil {
		return 0
	}
	return e.Tests.Failed
}

func testFailureList(e *Evidence) []TestCase { return e.Tests.Failures() }

func checkLine(cs ...*Check) string {
	s := ""
	for _, c := range cs {
		if c == nil {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", c.Name, c.Failed)
	}
	if s == "" {
		return "from the report's total"
	}
	return s
}

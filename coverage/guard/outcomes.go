package guard

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// outcomes aggregates the status of each test name in one report.
func outcomes(t *decide.TestFacts) map[string]decide.TestStatus {
	out := map[string]decide.TestStatus{}
	for _, c := range t.Cases {
		switch prev := out[c.Name]; {
		case prev == decide.Failed:
		case c.Status == decide.Failed:
			out[c.Name] = decide.Failed
		case prev == decide.Passed:
		default:
			out[c.Name] = c.Status
		}
	}
	return out
}

// testViolations compares the test cases of two reports.
func testViolations(before, after *decide.TestFacts, notes *[]string) []Violation {
	switch {
	case before == nil && after == nil:
		*notes = append(*notes, "no test report before or after: lost and broken tests not checked")
		return nil
	case before == nil:
		*notes = append(*notes, "no test report before the change: lost and broken tests not checked")
		return nil
	case after == nil:
		*notes = append(*notes, "no test report after the change: lost and broken tests not checked")
		return nil
	}
	files := map[string]string{}
	for _, c := range before.Cases {
		if c.File != "" && files[c.Name] == "" {
			files[c.Name] = c.File
		}
	}
	for _, c := range after.Cases {
		if c.File != "" {
			files[c.Name] = c.File
		}
	}
	was, is := outcomes(before), outcomes(after)
	names := make([]string, 0, len(was))
	for n, s := range was {
		if s == decide.Passed {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []Violation
	for _, n := range names {
		switch is[n] {
		case "":
			out = append(out, Violation{Kind: TestLost, File: files[n], Detail: fmt.Sprintf("%s passed before and is missing after", n)})
		case decide.Skipped:
			out = append(out, Violation{Kind: TestLost, File: files[n], Detail: fmt.Sprintf("%s passed before and is skipped after", n)})
		case decide.Failed:
			out = append(out, Violation{Kind: TestBroken, File: files[n], Detail: fmt.Sprintf("%s passed before and fails after", n)})
		}
	}
	return out
}

// improvement applies the no_improvement rule; ok reports a violation.
func improvement(m Metrics, notes *[]string) (Violation, bool) {
	comparable := 0
	var parts []string
	if known(m.CoverageBefore) && known(m.CoverageAfter) {
		comparable++
		if *m.CoverageAfter > *m.CoverageBefore+1e-9 {
			return Violation{}, false
		}
		parts = append(parts, fmt.Sprintf("coverage %.1f%% -> %.1f%%", *m.CoverageBefore, *m.CoverageAfter))
	}
	if known(m.PassRateBefore) && known(m.PassRateAfter) {
		comparable++
		if *m.PassRateAfter > *m.PassRateBefore+1e-9 {
			return Violation{}, false
		}
		parts = append(parts, fmt.Sprintf("pass rate %.2f -> %.2f", *m.PassRateBefore, *m.PassRateAfter))
	}
	if comparable == 0 {
		*notes = append(*notes, "neither coverage nor pass rate known before and after: improvement not checked")
		return Violation{}, false
	}
	return Violation{Kind: NoImprovement, Detail: strings.Join(parts, ", ") + ": not improved"}, true
}

// known reports whether p holds a finite number.
func known(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) }

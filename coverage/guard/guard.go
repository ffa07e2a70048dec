// Package guard judges whether a change is test-only (DESIGN §5.3): the
// change a test generator made in a coverage round may touch test files
// only, may not add skip or silencing markers, may not lose or break a test
// that passed, and must improve coverage or the pass rate.
//
// Check is pure — no git, no files — so the GitHub Action can feed it a
// change set computed through the Git Data API; FromGit and FromTrees build
// one from a local Git repository for the CLI.
package guard

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// Change is one changed file. A file added has !OldExists, a file deleted
// has !NewExists; a rename is a delete plus an add. Path is slash-separated
// and relative to the repository root.
type Change struct {
	Path                 string
	Old, New             []byte
	OldExists, NewExists bool
}

// Binary reports whether either side of the change looks binary (a NUL byte
// in its first 8000 bytes). Binary files are not scanned for markers.
func (c Change) Binary() bool { return isBinary(c.Old) || isBinary(c.New) }

// Metrics are coverage (percent) and pass rate (0–1) before and after the
// change; nil when unknown.
type Metrics struct {
	CoverageBefore, CoverageAfter *float64
	PassRateBefore, PassRateAfter *float64
}

// Options configure the guard. A nil Patterns or Markers means the defaults
// (DefaultPatterns, DefaultMarkers); a non-nil empty Markers disables the
// marker check, a non-nil empty Patterns allows no file at all.
type Options struct {
	Patterns []string
	Markers  []string
}

// Violation kinds.
const (
	NonTestFile     = "non_test_file"    // a changed file outside the test patterns
	WorkflowFile    = "workflow_file"    // a changed file under .github/
	ForbiddenMarker = "forbidden_marker" // an added skip or silencing marker
	TestLost        = "test_lost"        // passed before, missing (or skipped) after
	TestBroken      = "test_broken"      // passed before, failing after
	NoImprovement   = "no_improvement"   // neither coverage nor pass rate improved
)

// Violation is one reason to refuse a change. File and Line are empty and
// zero when the reason concerns no file or no line.
type Violation struct {
	Kind   string `json:"kind"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Detail string `json:"detail"`
}

// String renders one line: "file:line: kind: detail", without the parts
// that are unknown.
func (v Violation) String() string {
	var b strings.Builder
	if v.File != "" {
		b.WriteString(v.File)
		if v.Line > 0 {
			fmt.Fprintf(&b, ":%d", v.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(v.Kind)
	if v.Detail != "" {
		b.WriteString(": ")
		b.WriteString(v.Detail)
	}
	return b.String()
}

// Result is the guard's judgment.
type Result struct {
	// Violations are every reason to refuse, ordered by file, line and
	// kind, with the change-wide ones (no file) last.
	Violations []Violation `json:"violations"`
	// Accepted lists the changed paths that passed every per-file rule, in
	// path order. The change as a whole is acceptable only when OK.
	Accepted []string `json:"accepted"`
	// Notes say what could not be judged (no test report, no metrics).
	Notes []string `json:"notes,omitempty"`
}

// OK reports whether the change is acceptable: no violation.
func (r Result) OK() bool { return len(r.Violations) == 0 }

// Check judges a change set.
//
// Rules, each a Violation kind:
//   - workflow_file: any changed path under .github/ (the action's token
//     could never push it), compared case-insensitively and after
//     cleaning ("a/../.github/x" is under .github/); such a file is not
//     also reported as non_test_file.
//   - non_test_file: a changed path (added, modified or deleted) that no
//     pattern matches; Line is the first changed line of the new content.
//   - forbidden_marker: a marker in an added line (see MarkerHit). A line
//     is blamed only when (1) the line diff of its file says it is added,
//     (2) its trimmed text is not a line removed anywhere in the change set
//     (a moved line, also across a rename), and (3) the file holds more
//     lines with that marker than before, so editing a line that already
//     carried the marker is not the change's fault. Binary files are not
//     scanned. Line is the line number in the new content.
//   - test_lost / test_broken: tests are compared by TestCase.Name; a name
//     reported several times counts as failed if any instance failed, else
//     passed if any passed. A test that passed before and is missing — or
//     only skipped — after is lost; one that fails after is broken. Needs
//     both reports; without them the rule is skipped and noted.
//   - no_improvement: a metric is comparable when it is known both before
//     and after; it improved when after exceeds before by more than 1e-9.
//     The change is refused when at least one metric is comparable and
//     none improved. When none is comparable the rule is skipped and noted.
func Check(changes []Change, before, after *decide.TestFacts, m Metrics, opts Options) Result {
	var res Result
	pats := compilePatterns(opts.Patterns)
	markerNames := opts.Markers
	if markerNames == nil {
		markerNames = DefaultMarkers
	}
	markers := compileMarkers(markerNames)

	cs := make([]Change, 0, len(changes))
	for _, c := range changes {
		if !c.OldExists && !c.NewExists {
			continue
		}
		if c.OldExists && c.NewExists && bytes.Equal(c.Old, c.New) {
			continue
		}
		cs = append(cs, c)
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })

	type fileDiff struct {
		path          string
		newLines      []string
		added         []bool
		oldHits       map[string]int
		newHits       map[string]int
		firstAddedRow int
	}
	removed := map[string]int{} // trimmed text of every removed line
	var diffs []fileDiff
	for _, c := range cs {
		names := splitPath(c.Path)
		p := strings.Join(names, "/")
		if p == "" {
			p = c.Path
		}
		var fd fileDiff
		fd.path = p
		if !c.Binary() {
			var oldLines []string
			if c.OldExists {
				oldLines = splitLines(c.Old)
			}
			if c.NewExists {
				fd.newLines = splitLines(c.New)
			}
			var deleted []bool
			fd.added, deleted = lineDiff(oldLines, fd.newLines)
			for i, d := range deleted {
				if d {
					removed[strings.TrimSpace(oldLines[i])]++
				}
			}
			fd.oldHits = countHits(markers, p, oldLines)
			fd.newHits = countHits(markers, p, fd.newLines)
			for i, a := range fd.added {
				if a {
					fd.firstAddedRow = i + 1
					break
				}
			}
			diffs = append(diffs, fd)
		}

		verb := "modified"
		switch {
		case !c.OldExists:
			verb = "added"
		case !c.NewExists:
			verb = "deleted"
		}
		switch {
		case len(names) > 0 && strings.EqualFold(names[0], ".github"):
			res.Violations = append(res.Violations, Violation{Kind: WorkflowFile, File: p, Line: fd.firstAddedRow,
				Detail: verb + " under .github/; a coverage round may not touch workflows or repository settings"})
		case !matchAny(pats, names):
			res.Violations = append(res.Violations, Violation{Kind: NonTestFile, File: p, Line: fd.firstAddedRow,
				Detail: verb + "; not a test file (no test pattern matches)"})
		default:
			res.Accepted = append(res.Accepted, p)
		}
	}

	// Markers, judged once every removed line is known.
	for _, fd := range diffs {
		for i, a := range fd.added {
			if !a {
				continue
			}
			line := fd.newLines[i]
			var hits []string
			for _, mk := range markers {
				if fd.newHits[mk.name] > fd.oldHits[mk.name] && mk.applies(fd.path) && mk.hit(line) {
					hits = append(hits, mk.name)
				}
			}
			if len(hits) == 0 {
				continue
			}
			if t := strings.TrimSpace(line); removed[t] > 0 {
				removed[t]-- // moved, not added
				continue
			}
			for _, h := range hits {
				res.Violations = append(res.Violations, Violation{Kind: ForbiddenMarker, File: fd.path, Line: i + 1,
					Detail: fmt.Sprintf("added %q: %s", h, clip(strings.TrimSpace(line), 120))})
			}
		}
	}
	res.Accepted = withoutViolated(res.Accepted, res.Violations)

	res.Violations = append(res.Violations, testViolations(before, after, &res.Notes)...)
	sortViolations(res.Violations)
	if v, ok := improvement(m, &res.Notes); ok {
		res.Violations = append(res.Violations, v)
	}
	return res
}

// compilePatterns compiles the test patterns, dropping malformed ones.
func compilePatterns(ps []string) []pattern {
	if ps == nil {
		ps = DefaultPatterns
	}
	var out []pattern
	for _, p := range ps {
		if c, ok := compilePattern(p); ok {
			out = append(out, c)
		}
	}
	return out
}

// countHits counts, per marker, the lines of a file that carry it.
func countHits(markers []matcher, name string, lines []string) map[string]int {
	hits := map[string]int{}
	for _, mk := range markers {
		if !mk.applies(name) {
			continue
		}
		for _, l := range lines {
			if mk.hit(l) {
				hits[mk.name]++
			}
		}
	}
	return hits
}

// withoutViolated drops the accepted paths that carry a violation.
func withoutViolated(paths []string, vs []Violation) []string {
	bad := map[string]bool{}
	for _, v := range vs {
		bad[v.File] = true
	}
	var out []string
	for _, p := range paths {
		if !bad[p] {
			out = append(out, p)
		}
	}
	return out
}

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

// sortViolations orders violations by file, line and kind, those without a
// file last.
func sortViolations(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if (a.File == "") != (b.File == "") {
			return b.File == ""
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Kind < b.Kind
	})
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

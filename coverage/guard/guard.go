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
	"sort"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// Change is one changed file. A file added has !OldExists, a file deleted
// has !NewExists; a rename is a delete plus an add. Path is slash-separated
// and relative to the repository root. OldMode and NewMode are the Git
// modes of the two sides ("100644", "100755", "120000" for a symbolic link,
// "160000" for a submodule); "" means unknown, taken as a regular file.
type Change struct {
	Path                 string
	Old, New             []byte
	OldExists, NewExists bool
	OldMode, NewMode     string
}

// Binary reports whether either side of the change holds a NUL byte
// anywhere. The guard refuses such a file: its lines cannot be judged.
func (c Change) Binary() bool { return isBinary(c.Old) || isBinary(c.New) }

// Same reports whether the change changes nothing: neither side exists,
// or both hold the same content with the same mode.
func (c Change) Same() bool {
	if !c.OldExists && !c.NewExists {
		return true
	}
	return c.OldExists && c.NewExists && bytes.Equal(c.Old, c.New) && modeOrFile(c.OldMode) == modeOrFile(c.NewMode)
}

// Git modes the guard judges.
const (
	modeFile      = "100644"
	modeExec      = "100755"
	modeSymlink   = "120000"
	modeSubmodule = "160000"
)

// modeOrFile is m, or a regular file's mode when m is unknown.
func modeOrFile(m string) string {
	if m == "" {
		return modeFile
	}
	return m
}

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
	NonTestFile     = "non_test_file"      // a changed file outside the test patterns
	WorkflowFile    = "workflow_file"      // a changed file under .github/
	ForbiddenMarker = "forbidden_marker"   // an added skip or silencing marker
	TestLost        = "test_lost"          // passed before, missing (or skipped) after
	TestBroken      = "test_broken"        // passed before, failing after
	NoImprovement   = "no_improvement"     // neither coverage nor pass rate improved
	BinaryFile      = "binary_file"        // a side holds a NUL byte: not judged, refused
	FileMode        = "file_mode"          // a symbolic link, submodule or mode change
	TestRemoved     = "test_removed"       // a test declaration is gone from the change set
	AssertionsGone  = "assertions_removed" // a test whose assertions were all removed
	EarlyReturn     = "early_return"       // a test that now returns before its first assertion
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
//     pattern matches (see Match: patterns match files, never a directory
//     on the way); Line is the first changed line of the new content.
//   - binary_file: a side of the change holds a NUL byte anywhere; its
//     lines cannot be judged, so it is refused.
//   - file_mode: a symbolic link or submodule on either side, or a mode
//     change (100644 to 100755 or back).
//   - forbidden_marker: every line the line diff of its file calls added
//     is scanned for the markers (see knownMarkers), however many the file
//     held before: one violation per line, naming every marker it holds.
//   - test_removed: a test declaration (see declsOf) present before and
//     missing after, counted by language and name over the whole change
//     set, so a test moved to another changed file is not lost.
//   - assertions_removed: a test that had recognized assertions before
//     and has none after (benchmarks and examples excepted).
//   - early_return: a test with more return statements before its first
//     assertion than before the change.
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
		if !c.Same() {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })

	var oldDecls, newDecls []fileDecl
	for _, c := range cs {
		names := splitPath(c.Path)
		p := strings.Join(names, "/")
		if p == "" {
			p = c.Path
		}
		verb := "modified"
		switch {
		case !c.OldExists:
			verb = "added"
		case !c.NewExists:
			verb = "deleted"
		}
		n := len(res.Violations)
		firstAdded := 0
		if v, ok := modeViolation(p, c); ok {
			res.Violations = append(res.Violations, v)
		}
		if c.Binary() {
			res.Violations = append(res.Violations, Violation{Kind: BinaryFile, File: p,
				Detail: verb + "; holds a NUL byte, so its lines cannot be judged"})
		} else {
			var oldLines, newLines []string
			if c.OldExists {
				oldLines = splitLines(c.Old)
			}
			if c.NewExists {
				newLines = splitLines(c.New)
			}
			added, _ := lineDiff(oldLines, newLines)
			for i, a := range added {
				if !a {
					continue
				}
				if firstAdded == 0 {
					firstAdded = i + 1
				}
				if v, ok := markerViolation(markers, p, i+1, newLines[i]); ok {
					res.Violations = append(res.Violations, v)
				}
			}
			lang := langOf(p)
			for _, d := range declsOf(lang, oldLines) {
				oldDecls = append(oldDecls, fileDecl{path: p, decl: d})
			}
			for _, d := range declsOf(lang, newLines) {
				newDecls = append(newDecls, fileDecl{path: p, decl: d})
			}
		}
		switch {
		case len(names) > 0 && strings.EqualFold(names[0], ".github"):
			res.Violations = append(res.Violations, Violation{Kind: WorkflowFile, File: p, Line: firstAdded,
				Detail: verb + " under .github/; a coverage round may not touch workflows or repository settings"})
		case !matchAny(pats, names):
			res.Violations = append(res.Violations, Violation{Kind: NonTestFile, File: p, Line: firstAdded,
				Detail: verb + "; not a test file (no test pattern matches)"})
		case len(res.Violations) == n:
			res.Accepted = append(res.Accepted, p)
		}
	}
	res.Violations = append(res.Violations, declViolations(oldDecls, newDecls)...)
	res.Accepted = withoutViolated(res.Accepted, res.Violations)

	res.Violations = append(res.Violations, testViolations(before, after, &res.Notes)...)
	sortViolations(res.Violations)
	if v, ok := improvement(m, &res.Notes); ok {
		res.Violations = append(res.Violations, v)
	}
	return res
}

// modeViolation refuses symbolic links, submodules and mode changes.
func modeViolation(p string, c Change) (Violation, bool) {
	kind := func(m string) string {
		switch m {
		case modeSymlink:
			return "a symbolic link"
		case modeSubmodule:
			return "a submodule"
		}
		return ""
	}
	for _, side := range []struct {
		exists bool
		mode   string
		when   string
	}{{c.NewExists, c.NewMode, "after"}, {c.OldExists, c.OldMode, "before"}} {
		if k := kind(side.mode); side.exists && k != "" {
			return Violation{Kind: FileMode, File: p, Detail: k + " " + side.when + " the change; links and submodules are never test-only"}, true
		}
	}
	if c.OldExists && c.NewExists && modeOrFile(c.OldMode) != modeOrFile(c.NewMode) {
		return Violation{Kind: FileMode, File: p, Detail: fmt.Sprintf("mode changed from %s to %s", modeOrFile(c.OldMode), modeOrFile(c.NewMode))}, true
	}
	return Violation{}, false
}

// markerViolation reports the markers an added line holds.
func markerViolation(markers []matcher, p string, line int, text string) (Violation, bool) {
	var hits []string
	for _, mk := range markers {
		if mk.applies(p) && mk.hit(text) {
			hits = append(hits, fmt.Sprintf("%q", mk.name))
		}
	}
	if len(hits) == 0 {
		return Violation{}, false
	}
	return Violation{Kind: ForbiddenMarker, File: p, Line: line,
		Detail: fmt.Sprintf("added %s: %s", strings.Join(hits, ", "), clip(strings.TrimSpace(text), 120))}, true
}

// fileDecl is a test declaration and the file that holds it.
type fileDecl struct {
	path string
	decl
}

// declViolations compares the test declarations before and after the
// change set: removed tests, tests stripped of their assertions and tests
// that return early.
func declViolations(olds, news []fileDecl) []Violation {
	var out []Violation
	// Removed: by key over the change set, blamed on the files that lost
	// declarations, in path and line order.
	oldN, newN := map[string]int{}, map[string]int{}
	perFile := map[[2]string]int{} // old minus new count per (key, path)
	for _, d := range olds {
		oldN[d.key]++
		perFile[[2]string{d.key, d.path}]++
	}
	for _, d := range news {
		newN[d.key]++
		perFile[[2]string{d.key, d.path}]--
	}
	for _, d := range olds {
		k := [2]string{d.key, d.path}
		if oldN[d.key] <= newN[d.key] || perFile[k] <= 0 {
			continue
		}
		oldN[d.key]--
		perFile[k]--
		out = append(out, Violation{Kind: TestRemoved, File: d.path,
			Detail: fmt.Sprintf("test %s (declared at line %d before the change) is gone", clip(d.name, 80), d.line)})
	}
	// Pair each new declaration with an old one of the same key, in the
	// same file first.
	used := make([]bool, len(olds))
	byKey := map[string][]int{}
	for i, d := range olds {
		byKey[d.key] = append(byKey[d.key], i)
	}
	for _, n := range news {
		o := -1
		for _, i := range byKey[n.key] {
			if !used[i] && (o < 0 || olds[i].path == n.path && olds[o].path != n.path) {
				o = i
			}
		}
		if o < 0 {
			continue
		}
		used[o] = true
		od := olds[o]
		if !od.noAsserts && od.asserts > 0 && n.asserts == 0 {
			out = append(out, Violation{Kind: AssertionsGone, File: n.path, Line: n.line,
				Detail: fmt.Sprintf("test %s had %d assertion line(s) and has none now", clip(n.name, 80), od.asserts)})
		}
		if n.earlyReturns > od.earlyReturns {
			out = append(out, Violation{Kind: EarlyReturn, File: n.path, Line: n.line,
				Detail: fmt.Sprintf("test %s now returns before its first assertion", clip(n.name, 80))})
		}
	}
	return out
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

// Package decide holds the critic's judgment: the evidence model of the five
// generator–critic loops, their decision rules and the round state. How a
// decision looks on GitHub (the report, its Markdown and the comment that
// carries the state) belongs to bot/report. It is pure: it imports only the standard library, opens no files,
// reads no environment and no clock.
package decide

import (
	"fmt"
	"strconv"
	"strings"
)

// Loop names one of the five loop kinds.
type Loop string

// The five loop kinds of DESIGN §2.
const (
	Review     Loop = "review"
	Critique   Loop = "critique"
	Audit      Loop = "audit"
	Validation Loop = "validation"
	Coverage   Loop = "coverage"
)

// Loops lists every loop kind in a stable order.
var Loops = []Loop{Review, Critique, Audit, Validation, Coverage}

// ParseLoop reads a loop name, case-insensitively.
func ParseLoop(s string) (Loop, error) {
	l := Loop(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Loops {
		if l == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown loop %q (want review, critique, audit, validation or coverage)", s)
}

// Severity ranks a finding. The zero value is invalid; Critical is the most
// severe.
type Severity int

// Severities, most severe first.
const (
	Critical Severity = iota + 1
	High
	Medium
	Low
)

var severityNames = [...]string{Critical: "critical", High: "high", Medium: "medium", Low: "low"}

// String returns the lower-case name of s.
func (s Severity) String() string {
	if s < Critical || s > Low {
		return "unknown"
	}
	return severityNames[s]
}

// ParseSeverity reads a severity word case-insensitively. Besides the four
// names it accepts the SARIF levels: error → high, warning → medium,
// note/none → low (DESIGN §3.6). Surrounding brackets and spaces are ignored.
func ParseSeverity(s string) (Severity, error) {
	w := strings.ToLower(strings.Trim(strings.TrimSpace(s), "[]"))
	switch w {
	case "critical":
		return Critical, nil
	case "high":
		return High, nil
	case "medium":
		return Medium, nil
	case "low":
		return Low, nil
	case "error":
		return High, nil
	case "warning":
		return Medium, nil
	case "note", "none":
		return Low, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want critical, high, medium, low, error, warning or note)", s)
}

// SeverityFromScore maps a SARIF security-severity score: ≥ 9 critical,
// ≥ 7 high, ≥ 4 medium, else low.
func SeverityFromScore(v float64) Severity {
	switch {
	case v >= 9:
		return Critical
	case v >= 7:
		return High
	case v >= 4:
		return Medium
	}
	return Low
}

// Counts holds the number of findings per severity.
type Counts struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
}

// Add counts one finding of severity s.
func (c *Counts) Add(s Severity) {
	switch s {
	case Critical:
		c.Critical++
	case High:
		c.High++
	case Medium:
		c.Medium++
	case Low:
		c.Low++
	}
}

// Blocking is the number of critical and high findings.
func (c Counts) Blocking() int { return c.Critical + c.High }

// Total is the number of findings of any severity.
func (c Counts) Total() int { return c.Critical + c.High + c.Medium + c.Low }

// Finding is one thing a critic reported.
type Finding struct {
	Severity   Severity `json:"severity"`
	File       string   `json:"file,omitempty"`
	Line       int      `json:"line,omitempty"`
	Rule       string   `json:"rule,omitempty"` // rule id, dimension or category
	Message    string   `json:"message"`
	Suggestion string   `json:"suggestion,omitempty"`
	Source     string   `json:"source,omitempty"` // the evidence file it was read from, with line when known
	// Loop is the loop the finding speaks for when its file mixes loops
	// (discoveries.ndjson); empty means any loop.
	Loop Loop `json:"-"`
	// RuleIsID says Rule is a tool's rule id (SARIF's ruleId, Checkstyle's
	// source), which tells two findings at one place apart (DedupeKey); a
	// dimension or category does not.
	RuleIsID bool `json:"-"`
}

// Location renders "file:line", "file" or "" for a finding.
func (f Finding) Location() string {
	switch {
	case f.File == "":
		return ""
	case f.Line > 0:
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// String renders "file:line [severity] message" as tasks list findings.
func (f Finding) String() string {
	loc := f.Location()
	if loc == "" {
		loc = "(no file)"
	}
	return loc + " [" + f.Severity.String() + "] " + f.Message
}

// Counts tallies findings by severity.
func CountFindings(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		c.Add(f.Severity)
	}
	return c
}

// ReviewFacts is what review evidence says besides its findings.
type ReviewFacts struct {
	Score  *float64 // review_score, 1–10; nil when absent
	Signal string   // "CONVERGED" or "REVISION_NEEDED"; "" when absent
	// ScoreFrom and SignalFrom name the files that gave Score and Signal
	// (set when evidence is merged).
	ScoreFrom, SignalFrom string
	// Summary is the prose findings summary of a tasks.csv row.
	Summary string
}

// CritiqueFacts is what critique evidence says.
type CritiqueFacts struct {
	// Summary holds counts parsed from a severity_summary string; nil when
	// the evidence had none.
	Summary *Counts
	// Entries is the number of critique entries read (their findings are in
	// Evidence.Findings).
	Entries int
	// Unreadable is set when critique data was present but could not be
	// read; DESIGN §2.2 then converges with a warning.
	Unreadable string
}

// Dimension is one per-dimension audit score.
type Dimension struct {
	Name  string   `json:"name"`
	Score float64  `json:"score"`
	Max   *float64 `json:"max,omitempty"`
}

// AuditFacts is what audit evidence says besides its findings.
type AuditFacts struct {
	Score  *float64 // audit_score, 0–10
	Signal string   // audit_passed | audit_result | fix_required; "" when absent
	// ScoreFrom and SignalFrom name the files that gave Score and Signal
	// (set when evidence is merged).
	ScoreFrom, SignalFrom string
	Dimensions            []Dimension
	Summary               string   // prose findings summary of a tasks.csv row
	Artifacts             []string // artifacts_produced
}

// Check is one check of a validation report.
type Check struct {
	Name   string `json:"name"` // tests, types, lint or quality
	Status string `json:"status"`
	Failed int    `json:"failed"` // failures, errors or issues the check counted
	Total  *int   `json:"total,omitempty"`
}

// ValidationFacts is what a validation report says.
type ValidationFacts struct {
	// Regressions is the report's own total (total_regressions or
	// regressions); nil when absent.
	Regressions *int
	// Passed is the report's own verdict; nil when absent.
	Passed *bool
	// Tests, Types, Lint and Quality are the four checks; nil when absent.
	Tests, Types, Lint, Quality *Check
	DebtBefore, DebtAfter       *float64
	Improvement                 *float64 // percent
	// Unreadable is set when the report could not be read; DESIGN §2.4 then
	// counts the validation as failed.
	Unreadable string
}

// FileCoverage is the line coverage of one file.
type FileCoverage struct {
	Path    string `json:"path"`
	Covered int64  `json:"covered"`
	Total   int64  `json:"total"`
}

// Percent is Covered/Total in percent; 0 for an empty file.
func (f FileCoverage) Percent() float64 {
	if f.Total == 0 {
		return 0
	}
	return 100 * float64(f.Covered) / float64(f.Total)
}

// CoverageFacts is what coverage reports say.
type CoverageFacts struct {
	Format string // goprofile, lcov, cobertura, jacoco, clover, run-json
	// Covered and Total are line (Go: statement) totals; both zero with
	// Percent set when only a percentage is known (run-<layer>.json).
	Covered, Total int64
	Percent        *float64
	Files          []FileCoverage
	Layer          string // L1, L2, L3 or ""
	Framework      string
}

// TestStatus is the outcome of one test case.
type TestStatus string

// Test outcomes.
const (
	Passed  TestStatus = "passed"
	Failed  TestStatus = "failed"
	Skipped TestStatus = "skipped"
)

// TestCase is one test of a test report.
type TestCase struct {
	Name     string     `json:"name"` // suite/class qualified name, stable across runs
	File     string     `json:"file"` // source file when the report gives one
	Status   TestStatus `json:"status"`
	Message  string     `json:"message,omitempty"`
	Category string     `json:"category,omitempty"` // failure category (DESIGN §2.5)
}

// TestFacts is what test reports say.
type TestFacts struct {
	Passed, Failed, Skipped int
	// PassRate is set when the report states one (run-<layer>.json);
	// otherwise it is computed as passed/(passed+failed).
	PassRate *float64
	// Cases are every test case read; failures carry message and category.
	Cases []TestCase
}

// Rate returns the pass rate: the stated one, else passed/(passed+failed),
// else nil when no test ran.
func (t *TestFacts) Rate() *float64 {
	if t == nil {
		return nil
	}
	if t.PassRate != nil {
		return t.PassRate
	}
	if t.Passed+t.Failed == 0 {
		return nil
	}
	r := float64(t.Passed) / float64(t.Passed+t.Failed)
	return &r
}

// Failures returns the failing test cases.
func (t *TestFacts) Failures() []TestCase {
	if t == nil {
		return nil
	}
	var out []TestCase
	for _, c := range t.Cases {
		if c.Status == Failed {
			out = append(out, c)
		}
	}
	return out
}

// Evidence is what one evidence file says, or several merged. Readers fill
// the parts they know; a nil part means that kind of evidence was absent.
type Evidence struct {
	// Sources names the files read, in order.
	Sources  []string
	Findings []Finding

	Review     *ReviewFacts
	Critique   *CritiqueFacts
	Audit      *AuditFacts
	Validation *ValidationFacts
	Coverage   *CoverageFacts
	Tests      *TestFacts
	// Analysis is set when findings came from a static-analysis log (SARIF,
	// checkstyle); such a log alone sniffs as review evidence.
	Analysis bool
	// LintErrors and TypeErrors count error-level results of SARIF or
	// checkstyle reports, for the validation loop.
	LintErrors, TypeErrors int

	// Omitted counts findings that were read but not kept: readers of huge
	// logs keep at most a bounded number of findings (the most severe) so
	// that memory does not grow with the input.
	Omitted Counts

	// Notes are anomalies met while reading (skipped lines, fallbacks).
	Notes []string
}

// Kinds lists the loops this evidence speaks for, in the order of Loops.
// Static-analysis logs and test reports join whatever loop the other
// evidence names; alone, a static-analysis log speaks for review and a test
// report for coverage (DESIGN §8, sniffing).
func (e *Evidence) Kinds() []Loop {
	var out []Loop
	add := func(ok bool, l Loop) {
		if ok {
			out = append(out, l)
		}
	}
	add(e.Review != nil, Review)
	add(e.Critique != nil, Critique)
	add(e.Audit != nil, Audit)
	add(e.Validation != nil, Validation)
	add(e.Coverage != nil, Coverage)
	if len(out) > 0 {
		return out
	}
	add(e.Analysis, Review)
	add(e.Tests != nil, Coverage)
	return out
}

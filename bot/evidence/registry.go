package evidence

import (
	"io"
	"strings"

	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/decide"
	critic "github.com/gcloop/gcloop/decide/evidence"
)

// Family is what a format holds. Families combine into sets.
type Family uint8

// The families.
const (
	// Findings are a critic's judgment: reviews, critiques, audits,
	// linters and scanners, validation reports.
	Findings Family = 1 << iota
	// Tests are test results.
	Tests
	// Coverage is coverage reports.
	Coverage

	// Reports are the families `gcloop coverage` reads.
	Reports = Tests | Coverage
	// Any is every family.
	Any = Findings | Tests | Coverage
)

// String names the families of f, joined with "+".
func (f Family) String() string {
	var names []string
	for _, n := range []struct {
		f    Family
		name string
	}{{Findings, "findings"}, {Tests, "tests"}, {Coverage, "coverage"}} {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, "+")
}

// A Format is one kind of evidence file gcloop reads.
type Format struct {
	// Name names the format in reports ("lcov").
	Name string
	// Family is what the format holds.
	Family Family
	// What the format is and how its rule Sniffs it, for the README.
	What, Sniffs string
	// Sniff reports whether the first bytes of a file (at most SniffLen)
	// are in this format. It looks at content, never at a name.
	Sniff func(head []byte) bool
	// Read reads a file of this format named name from r.
	Read func(name string, r io.Reader) (*decide.Evidence, error)
	// NamePrefix, when set, makes a file that no rule recognises but
	// whose base name starts with it be read as this format: a broken
	// validation-report.json then counts as a failed validation.
	NamePrefix string
}

// SniffLen is how many first bytes of a file the rules look at.
const SniffLen = 8 << 10

// registry lists the formats in the order their rules are tried, which is
// the order Sniff keeps: the coverage and test reports first (their rules
// need an XML root, a first line or a JSON key of their own), then the
// critic's formats, the most specific shapes first. Fields: name, family,
// what, sniffs, rule, reader, name prefix.
var registry = []Format{
	{"goprofile", Coverage, "Go cover profile (`go test -coverprofile`)", "first line `mode: set`, `count` or `atomic`", isGoProfile, coverageOf(coverage.ReadGoProfile), ""},
	{"lcov", Coverage, "LCOV tracefile", "first line `TN:` or `SF:`", isLCOV, coverageOf(coverage.ReadLCOV), ""},
	{"cobertura", Coverage, "Cobertura XML (coverage.py, gcovr)", "root `<coverage>` without Clover's marks", isCobertura, coverageOf(coverage.ReadCobertura), ""},
	{"clover", Coverage, "Clover XML (Istanbul/Jest, PHPUnit, gcovr)", "root `<coverage>` with a `clover` attribute or a first child `<project>`", isClover, coverageOf(coverage.ReadClover), ""},
	{"jacoco", Coverage, "JaCoCo XML", "root `<report>`", isJaCoCo, coverageOf(coverage.ReadJaCoCo), ""},
	{"junit", Tests, "JUnit XML (gotestsum, go-junit-report, Jest, Vitest, pytest, Maven Surefire)", "root `<testsuites>` or `<testsuite>`", isJUnit, testsOf(coverage.ReadJUnit), ""},
	{"run-json", Coverage, "`results/run-<layer>.json` (coverage a percentage, `pass_rate` a fraction 0–1, test counts)", "a JSON object with `pass_rate`, `tests_passed`, `tests_failed` or `all_passed`", isRunJSON, coverage.ReadRunJSON, ""},
	{"sarif", Findings, "SARIF 2.1.0, from any linter or scanner", "a JSON object whose `$schema` names SARIF, or with `version` 2.1.0 and `runs`, or that opens with `runs`", critic.IsSARIF, critic.ReadSARIF, ""},
	{"validation-report", Findings, "`validation-report.json`", "a JSON object with `total_regressions`, a debt score, `type_check` and `lint_check`, or `regressions` beside `checks` or `passed`; else a name `validation-report*`", critic.IsValidationReport, critic.ReadValidationReport, "validation-report"},
	{"review-json", Findings, "`review-results.json`", "a JSON object with `review_score` or `gc_signal`", critic.IsReviewJSON, critic.ReadReviewJSON, ""},
	{"discoveries", Findings, "`discoveries.ndjson`", "first line a JSON object with a `type`", critic.IsDiscoveries, critic.ReadDiscoveries, ""},
	{"checkstyle", Findings, "checkstyle XML", "root `<checkstyle>`", critic.IsCheckstyle, critic.ReadCheckstyle, ""},
	{"tasks-csv", Findings, "`tasks.csv`", "a header row with a review, critique or audit column", critic.IsTasksCSV, critic.ReadTasksCSV, ""},
	{"audit-markdown", Findings, "audit report (markdown)", "an `Overall Score` heading, an audit verdict, or an audit heading with counted severity sections", critic.IsAuditMarkdown, critic.ReadAuditMarkdown, ""},
	{"review-markdown", Findings, "reviewer's report `review-NNN.md`", "a code-review heading, a review or quality score, a signal or a `[SEVERITY]` finding", critic.IsReviewMarkdown, critic.ReadReviewMarkdown, ""},
}

// Formats returns the registry, in the order its rules are tried.
func Formats() []Format {
	return append([]Format(nil), registry...)
}

// Sniff tells the format of a file from its first bytes (only SniffLen of
// them are looked at): the first format of the registry, among the
// families in, whose rule recognises them. ok is false when none does.
func Sniff(head []byte, in Family) (f Format, ok bool) {
	head = head[:min(len(head), SniffLen)]
	for _, f := range registry {
		if f.Family&in != 0 && f.Sniff(head) {
			return f, true
		}
	}
	return Format{}, false
}

// Known reports whether the first bytes of a file (at most SniffLen) are
// evidence of any format gcloop reads.
func Known(head []byte) bool {
	_, ok := Sniff(head, Any)
	return ok
}

// coverageOf turns a reader of coverage facts into a registry reader.
func coverageOf(read func(string, io.Reader) (*decide.CoverageFacts, error)) func(string, io.Reader) (*decide.Evidence, error) {
	return func(name string, r io.Reader) (*decide.Evidence, error) {
		c, err := read(name, r)
		if err != nil {
			return nil, err
		}
		return &decide.Evidence{Sources: []string{name}, Coverage: c}, nil
	}
}

// testsOf turns a reader of test results into a registry reader.
func testsOf(read func(string, io.Reader) (*decide.TestFacts, error)) func(string, io.Reader) (*decide.Evidence, error) {
	return func(name string, r io.Reader) (*decide.Evidence, error) {
		t, err := read(name, r)
		if err != nil {
			return nil, err
		}
		return &decide.Evidence{Sources: []string{name}, Tests: t}, nil
	}
}

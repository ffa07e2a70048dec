package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

// sarifDoc wraps runs into a SARIF 2.1.0 log.
func sarifDoc(runs ...string) string {
	return `{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[` + strings.Join(runs, ",") + `]}`
}

// sarifRunJSON builds a run from a tool and results.
func sarifRunJSON(tool, results string) string {
	return `{"tool":` + tool + `,"results":[` + results + `]}`
}

// sarifTool builds a tool with a driver name and rules.
func sarifTool(name string, rules ...string) string {
	return `{"driver":{"name":"` + name + `","rules":[` + strings.Join(rules, ",") + `]}}`
}

// sarifRes builds a result at a.go line 1 with extra members.
func sarifRes(extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}]` + extra + `}`
}

func sarifFinding(sev decide.Severity, rule string) decide.Finding {
	return decide.Finding{Severity: sev, File: "a.go", Line: 1, Rule: rule, RuleIsID: rule != "", Message: "m", Source: "t.sarif"}
}

type sarifWant struct {
	Findings               []decide.Finding
	TypeErrors, LintErrors int
	Omitted                decide.Counts
}

func TestReadSARIFSeverityAndSuppression(t *testing.T) {
	t.Parallel()
	ruleWarn := `{"id":"R1","shortDescription":{"text":"Rule one"},"defaultConfiguration":{"level":"warning"}}`
	ruleErr := `{"id":"R2","defaultConfiguration":{"level":"error"}}`
	ruleNone := `{"id":"R3"}`
	ruleSec := `{"id":"SEC","defaultConfiguration":{"level":"note"},"properties":{"security-severity":"8.8"}}`
	tool := sarifTool("demo", ruleWarn, ruleErr, ruleNone, ruleSec)
	tests := []struct {
		name    string
		results string
		want    []decide.Finding
		lint    int
	}{
		{"Level error maps to high.", sarifRes(`"ruleId":"R1","level":"error"`), []decide.Finding{sarifFinding(decide.High, "R1")}, 1},
		{"Level warning maps to medium.", sarifRes(`"ruleId":"R2","level":"warning"`), []decide.Finding{sarifFinding(decide.Medium, "R2")}, 0},
		{"Level note maps to low.", sarifRes(`"ruleId":"R1","level":"note"`), []decide.Finding{sarifFinding(decide.Low, "R1")}, 0},
		{"Level none maps to low.", sarifRes(`"ruleId":"R1","level":"none"`), []decide.Finding{sarifFinding(decide.Low, "R1")}, 0},
		{"Levels are read case-insensitively.", sarifRes(`"ruleId":"R1","level":"Error"`), []decide.Finding{sarifFinding(decide.High, "R1")}, 1},
		{"A missing level comes from the rule's default configuration.", sarifRes(`"ruleId":"R2"`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"A missing level without a rule default is warning.", sarifRes(`"ruleId":"R3"`), []decide.Finding{sarifFinding(decide.Medium, "R3")}, 0},
		{"A missing level without any rule is warning.", sarifRes(``), []decide.Finding{sarifFinding(decide.Medium, "")}, 0},
		{"The rule is found by ruleIndex.", sarifRes(`"ruleIndex":1`), []decide.Finding{sarifFinding(decide.High, "")}, 1},
		{"The rule is found by rule.id.", sarifRes(`"rule":{"id":"R2"}`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"A hierarchical rule id falls back to its parent rule.", sarifRes(`"ruleId":"R2/sub"`), []decide.Finding{sarifFinding(decide.High, "R2/sub")}, 1},
		{"A security-severity of 9 or more is critical.", sarifRes(`"ruleId":"R1","properties":{"security-severity":"9.0"}`), []decide.Finding{sarifFinding(decide.Critical, "R1")}, 0},
		{"A security-severity of 7 or more is high.", sarifRes(`"ruleId":"R1","properties":{"security-severity":7}`), []decide.Finding{sarifFinding(decide.High, "R1")}, 0},
		{"A security-severity of 4 or more is medium.", sarifRes(`"ruleId":"R1","level":"error","properties":{"security-severity":"4.0"}`), []decide.Finding{sarifFinding(decide.Medium, "R1")}, 1},
		{"A security-severity below 4 is low.", sarifRes(`"ruleId":"R1","properties":{"security-severity":"3.9"}`), []decide.Finding{sarifFinding(decide.Low, "R1")}, 0},
		{"The rule's security-severity wins over the level.", sarifRes(`"ruleId":"SEC","level":"note"`), []decide.Finding{sarifFinding(decide.High, "SEC")}, 0},
		{"The result's own security-severity wins over its rule's.", sarifRes(`"ruleId":"SEC","properties":{"security-severity":"2.0"}`), []decide.Finding{sarifFinding(decide.Low, "SEC")}, 0},
		{"A severity word in security-severity is read as a severity.", sarifRes(`"ruleId":"R1","properties":{"security-severity":"Critical"}`), []decide.Finding{sarifFinding(decide.Critical, "R1")}, 0},
		{"A suppression without status ignores the result.", sarifRes(`"ruleId":"R2","suppressions":[{"kind":"inSource"}]`), nil, 0},
		{"An accepted suppression ignores the result.", sarifRes(`"ruleId":"R2","suppressions":[{"kind":"external","status":"accepted"}]`), nil, 0},
		{"A suppression under review does not ignore the result.", sarifRes(`"ruleId":"R2","suppressions":[{"kind":"external","status":"underReview"}]`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"A rejected suppression does not ignore the result.", sarifRes(`"ruleId":"R2","suppressions":[{"kind":"inSource","status":"rejected"}]`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"An empty suppressions array does not ignore the result.", sarifRes(`"ruleId":"R2","suppressions":[]`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"One accepted suppression among rejected ones ignores the result.", sarifRes(`"ruleId":"R2","suppressions":[{"status":"rejected"},{"status":"accepted"}]`), nil, 0},
		{"A result of kind pass is ignored.", sarifRes(`"ruleId":"R2","kind":"pass"`), nil, 0},
		{"A result of kind notApplicable is ignored.", sarifRes(`"ruleId":"R2","kind":"notApplicable"`), nil, 0},
		{"A result of kind review is no failure and is ignored.", sarifRes(`"ruleId":"R2","kind":"review"`), nil, 0},
		{"A result of kind informational is ignored.", sarifRes(`"ruleId":"R2","kind":"informational","level":"error"`), nil, 0},
		{"A result of kind open is ignored.", sarifRes(`"ruleId":"R2","kind":"open"`), nil, 0},
		{"A result of kind fail is kept.", sarifRes(`"ruleId":"R2","kind":"fail"`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
		{"A result absent since the baseline is ignored.", sarifRes(`"ruleId":"R2","baselineState":"absent"`), nil, 0},
		{"A new result since the baseline is kept.", sarifRes(`"ruleId":"R2","baselineState":"new"`), []decide.Finding{sarifFinding(decide.High, "R2")}, 1},
	}
	for _, tc := range tests {
		for _, order := range []string{"tool first", "results first"} {
			t.Run(tc.name+" ("+order+")", func(t *testing.T) {
				t.Parallel()
				run := sarifRunJSON(tool, tc.results)
				if order == "results first" {
					run = `{"results":[` + tc.results + `],"tool":` + tool + `}`
				}
				ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(run)))
				if err != nil {
					t.Fatal(err)
				}
				got := sarifWant{Findings: ev.Findings, TypeErrors: ev.TypeErrors, LintErrors: ev.LintErrors, Omitted: ev.Omitted}
				want := sarifWant{Findings: tc.want, LintErrors: tc.lint}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ReadSARIF mismatch (-want +got):\n%s", diff)
				}
				if !ev.Analysis || !cmp.Equal(ev.Sources, []string{"t.sarif"}) {
					t.Errorf("Analysis = %v, Sources = %q; want true, [t.sarif]", ev.Analysis, ev.Sources)
				}
			})
		}
	}
}

func TestReadSARIFLocationsAndMessages(t *testing.T) {
	t.Parallel()
	loc := func(art string) string {
		return `"locations":[{"physicalLocation":{"artifactLocation":` + art + `,"region":{"startLine":7,"startColumn":2}}}]`
	}
	tests := []struct {
		name   string
		run    string
		file   string
		line   int
		msg    string
		wantOK bool
	}{
		{"A relative uri with a base id is the file.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},`+loc(`{"uri":"src/a.go","uriBaseId":"%SRCROOT%"}`)+`}`), "src/a.go", 7, "x", true},
		{"A file URI loses its scheme.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},`+loc(`{"uri":"file:///home/u/src/a.go"}`)+`}`), "/home/u/src/a.go", 7, "x", true},
		{"Percent escapes are decoded.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},`+loc(`{"uri":"src/my%20file.go"}`)+`}`), "src/my file.go", 7, "x", true},
		{"A leading ./ is dropped.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},`+loc(`{"uri":"./src/a.go"}`)+`}`), "src/a.go", 7, "x", true},
		{"A Windows file URI becomes a drive path.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},`+loc(`{"uri":"file:///C:/w/a.go"}`)+`}`), "C:/w/a.go", 7, "x", true},
		{"An absolute URI under originalUriBaseIds becomes relative.", `{"tool":` + sarifTool("t") + `,"originalUriBaseIds":{"SRCROOT":{"uri":"file:///home/runner/work/r/r/"}},"results":[{"message":{"text":"x"},` + loc(`{"uri":"file:///home/runner/work/r/r/pkg/a.go"}`) + `}]}`, "pkg/a.go", 7, "x", true},
		{"originalUriBaseIds after the results still apply.", `{"tool":` + sarifTool("t") + `,"results":[{"message":{"text":"x"},` + loc(`{"uri":"file:///repo/pkg/a.go"}`) + `}],"originalUriBaseIds":{"ROOT":{"uri":"file:///repo"}}}`, "/repo/pkg/a.go", 7, "x", true},
		{"A markdown message is used when there is no text.", sarifRunJSON(sarifTool("t"), `{"message":{"markdown":"**x**"},`+loc(`{"uri":"a.go"}`)+`}`), "a.go", 7, "**x**", true},
		{"A message by id uses the rule's short description.", sarifRunJSON(sarifTool("t", `{"id":"R","shortDescription":{"text":"Short"}}`), `{"ruleId":"R","message":{"id":"default","arguments":["a"]},`+loc(`{"uri":"a.go"}`)+`}`), "a.go", 7, "Short", true},
		{"A message by id before the tool uses the rule's short description.", `{"results":[{"ruleId":"R","message":{"id":"default"},` + loc(`{"uri":"a.go"}`) + `}],"tool":` + sarifTool("t", `{"id":"R","shortDescription":{"text":"Short"}}`) + `}`, "a.go", 7, "Short", true},
		{"A result without location has no file.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"}}`), "", 0, "x", true},
		{"A region line of 0 is no line.", sarifRunJSON(sarifTool("t"), `{"message":{"text":"x"},"locations":[{"physicalLocation":{"artifactLocation":{"uriBaseId":"%SRCROOT%"},"region":{"startLine":0}}}]}`), "", 0, "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(tc.run)))
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.Findings) != 1 {
				t.Fatalf("got %d findings, want 1", len(ev.Findings))
			}
			f := ev.Findings[0]
			got := [3]any{f.File, f.Line, f.Message}
			if diff := cmp.Diff([3]any{tc.file, tc.line, tc.msg}, got); diff != "" {
				t.Errorf("file, line, message mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadSARIFMessageIsCapped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 10000)
	ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(sarifRunJSON(sarifTool("t"), `{"message":{"text":"`+long+`"}}`))))
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Findings[0].Message
	if len(m) > sarifMaxMessage || !strings.HasSuffix(m, "…") || !strings.HasPrefix(m, "éé") {
		t.Errorf("message of %d bytes not capped to %d with an ellipsis", len(m), sarifMaxMessage)
	}
}

func TestReadSARIFTypeAndLintErrors(t *testing.T) {
	t.Parallel()
	errRes := sarifRes(`"level":"error"`)
	warnRes := sarifRes(`"level":"warning"`)
	tests := []struct {
		name       string
		runs       []string
		typ, lint  int
		wantErrors int
	}{
		{"Errors of a type checker are type errors.", []string{sarifRunJSON(sarifTool("mypy"), errRes+","+errRes+","+warnRes)}, 2, 0, 0},
		{"Errors of TypeScript are type errors.", []string{sarifRunJSON(sarifTool("TypeScript Compiler"), errRes)}, 1, 0, 0},
		{"Errors of Pyright are type errors.", []string{sarifRunJSON(sarifTool("Pyright"), errRes)}, 1, 0, 0},
		{"Errors of a linter are lint errors.", []string{sarifRunJSON(sarifTool("ESLint"), errRes+","+warnRes)}, 0, 1, 0},
		{"The typescript-eslint linter is a linter.", []string{sarifRunJSON(sarifTool("typescript-eslint"), errRes)}, 0, 1, 0},
		{"A typecheck rule of a linter counts as a type error.", []string{sarifRunJSON(sarifTool("golangci-lint"), sarifRes(`"ruleId":"typecheck","level":"error"`)+","+sarifRes(`"ruleId":"errcheck","level":"error"`))}, 1, 1, 0},
		{"Errors are split by the tool of each run.", []string{sarifRunJSON(sarifTool("pyright"), errRes), sarifRunJSON(sarifTool("semgrep"), errRes+","+errRes)}, 1, 2, 0},
		{"Errors held back before the tool are split by the tool named later.", []string{`{"results":[` + errRes + `],"tool":` + sarifTool("tsc") + `}`}, 1, 0, 0},
		{"Suppressed errors do not count.", []string{sarifRunJSON(sarifTool("eslint"), sarifRes(`"level":"error","suppressions":[{"kind":"inSource"}]`))}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(tc.runs...)))
			if err != nil {
				t.Fatal(err)
			}
			if ev.TypeErrors != tc.typ || ev.LintErrors != tc.lint {
				t.Errorf("TypeErrors, LintErrors = %d, %d; want %d, %d", ev.TypeErrors, ev.LintErrors, tc.typ, tc.lint)
			}
		})
	}
}

func TestReadSARIFCodeQLExtensions(t *testing.T) {
	t.Parallel()
	// CodeQL lists query rules in tool.extensions and points results at
	// them with rule.toolComponent.index.
	log := sarifDoc(`{"tool":{"driver":{"name":"CodeQL","rules":[{"id":"D0","defaultConfiguration":{"level":"note"}}]},
	"extensions":[{"name":"codeql/javascript-queries","rules":[
	  {"id":"js/xss","defaultConfiguration":{"level":"error"},"properties":{"security-severity":"6.1"}},
	  {"id":"js/sql-injection","defaultConfiguration":{"level":"error"},"properties":{"security-severity":"9.8"}}]}]},
	"results":[
	  {"ruleId":"js/sql-injection","ruleIndex":1,"rule":{"id":"js/sql-injection","index":1,"toolComponent":{"index":0}},"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}]},
	  {"ruleId":"js/xss","ruleIndex":0,"rule":{"id":"js/xss","index":0,"toolComponent":{"index":0}},"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}]}]}`)
	ev, err := ReadSARIF("t.sarif", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := sarifWant{Findings: []decide.Finding{sarifFinding(decide.Critical, "js/sql-injection"), sarifFinding(decide.Medium, "js/xss")}, LintErrors: 2}
	got := sarifWant{Findings: ev.Findings, TypeErrors: ev.TypeErrors, LintErrors: ev.LintErrors, Omitted: ev.Omitted}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadSARIF mismatch (-want +got):\n%s", diff)
	}
}

func TestReadSARIFStaticcheckFixture(t *testing.T) {
	t.Parallel()
	// Written by `staticcheck -show-ignored -f sarif ./...` (v0.7.0); the
	// first result is silenced by a //lint:ignore directive.
	ev, err := ReadSARIF("sarif-staticcheck.sarif", lnOpen(t, "sarif-staticcheck.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	fnd := func(sev decide.Severity, file string, line int, rule, msg string) decide.Finding {
		return decide.Finding{Severity: sev, File: file, Line: line, Rule: rule, RuleIsID: rule != "", Message: msg, Source: "sarif-staticcheck.sarif"}
	}
	want := &decide.Evidence{
		Sources: []string{"sarif-staticcheck.sarif"},
		Findings: []decide.Finding{
			fnd(decide.Medium, "internal/calc/calc.go", 13, "SA4017", "Sprintf doesn't have side effects and its return value is ignored"),
			fnd(decide.Medium, "main.go", 8, "U1000", "func unused is unused"),
			fnd(decide.Medium, "main.go", 15, "S1003", `should use !strings.Contains("abc", "b") instead`),
			fnd(decide.High, "main.go", 16, "SA5009", "Printf format %d has arg #1 of wrong type string"),
			fnd(decide.Medium, "main.go", 19, "SA4018", "self-assignment of x to x"),
			fnd(decide.Medium, "main.go", 20, "SA1019", "strings.Title has been deprecated since Go 1.18 and an alternative has been available since Go 1.0: The rule Title uses for word boundaries does not handle Unicode punctuation properly. Use golang.org/x/text/cases instead."),
		},
		Analysis:   true,
		LintErrors: 1,
		Notes:      []string{"sarif-staticcheck.sarif: 1 suppressed result ignored"},
	}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("ReadSARIF mismatch (-want +got):\n%s", diff)
	}
}

func TestReadSARIFStaticcheckCompileError(t *testing.T) {
	t.Parallel()
	// staticcheck reports a package that does not compile as a "compile"
	// result without uri or rule: a warning by the SARIF defaults.
	ev, err := ReadSARIF("c.sarif", lnOpen(t, "sarif-staticcheck-compile.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Findings) != 6 || ev.Findings[0].Rule != "compile" || ev.Findings[0].File != "" || ev.Findings[0].Severity != decide.Medium {
		t.Errorf("first finding = %+v of %d; want the compile result without file, medium", ev.Findings[0], len(ev.Findings))
	}
}

func TestReadSARIFKeepsTheMostSevere(t *testing.T) {
	t.Parallel()
	// 3 × MaxFindings results: one critical in the middle and at the end,
	// MaxFindings+2 high, the rest low.
	n := 3 * MaxFindings
	for _, order := range []string{"tool first", "results first"} {
		t.Run("Findings past the cap are ranked by severity then order ("+order+").", func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				level := "note"
				switch {
				case i == n/2 || i == n-1:
					level = "error\",\"properties\":{\"security-severity\":\"9.5\"},\"x\":\""
				case i%2 == 1 && i < 2*(MaxFindings+2):
					level = "error"
				}
				fmt.Fprintf(&b, `{"ruleId":"R","level":"%s","message":{"text":"m%d"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"f%d.go"},"region":{"startLine":%d}}}]}`, level, i, i%7, i+1)
			}
			tool := sarifTool("semgrep", `{"id":"R"}`)
			run := sarifRunJSON(tool, b.String())
			if order == "results first" {
				run = `{"results":[` + b.String() + `],"tool":` + tool + `}`
			}
			ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(run)))
			if err != nil {
				t.Fatal(err)
			}
			var kept decide.Counts
			for _, f := range ev.Findings {
				kept.Add(f.Severity)
			}
			wantKept := decide.Counts{Critical: 2, High: MaxFindings - 2}
			wantOmitted := decide.Counts{High: 4, Low: n - 2 - (MaxFindings + 2)}
			if diff := cmp.Diff([2]decide.Counts{wantKept, wantOmitted}, [2]decide.Counts{kept, ev.Omitted}); diff != "" {
				t.Errorf("kept, omitted mismatch (-want +got):\n%s", diff)
			}
			// The earliest highs are kept, in document order.
			if ev.Findings[0].Message != "m1" || ev.Findings[len(ev.Findings)-1].Message != fmt.Sprintf("m%d", n-1) {
				t.Errorf("first, last kept = %q, %q; want m1, m%d", ev.Findings[0].Message, ev.Findings[len(ev.Findings)-1].Message, n-1)
			}
			for i := 1; i < len(ev.Findings); i++ {
				if ev.Findings[i-1].Line >= ev.Findings[i].Line {
					t.Fatalf("findings out of document order at %d", i)
				}
			}
			if ev.LintErrors != MaxFindings+4 {
				t.Errorf("LintErrors = %d, want %d", ev.LintErrors, MaxFindings+4)
			}
		})
	}
}

func TestReadSARIFErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"An empty file is not a SARIF log.", "", "t.sarif: byte 0: empty file, expected a SARIF log (a JSON object)"},
		{"An array is not a SARIF log.", `[1]`, "t.sarif: byte 0: expected a SARIF log (a JSON object), found an array"},
		{"A log without runs is refused.", `{"version":"2.1.0"}`, "t.sarif: byte 19: not a SARIF log: the object has no \"runs\" array"},
		{"A log with null runs is refused.", `{"version":"2.1.0","runs":null}`, "t.sarif: byte 26: runs is null: the tool did not produce any run"},
		{"Another SARIF version is refused.", `{"version":"2.0.0","runs":[]}`, "t.sarif: byte 11: SARIF version \"2.0.0\" is not supported, expected 2.1.0"},
		{"A version that is not a string is refused.", `{"version":2,"runs":[]}`, "t.sarif: byte 11: version: expected the string \"2.1.0\", found a number"},
		{"Runs that are not an array are refused.", `{"version":"2.1.0","runs":{}}`, "t.sarif: byte 26: runs: expected an array, found an object"},
		{"A run that is not an object is refused.", `{"version":"2.1.0","runs":[1]}`, "t.sarif: byte 27: runs[0]: expected an object, found a number"},
		{"An unknown level is refused.", sarifDoc(sarifRunJSON(sarifTool("t"), `{"level":"fatal","message":{"text":"m"}}`)), "results[0]: unknown level \"fatal\" (want error, warning, note or none)"},
		{"An unknown default level is refused.", sarifDoc(sarifRunJSON(sarifTool("t", `{"id":"R","defaultConfiguration":{"level":"info"}}`), ``)), "rules[0]: unknown defaultConfiguration.level \"info\""},
		{"A level of the wrong type is refused.", sarifDoc(sarifRunJSON(sarifTool("t"), `{"level":3,"message":{"text":"m"}}`)), "runs[0].results[0]: level: expected a string, found a number"},
		{"A NaN security-severity is refused.", sarifDoc(sarifRunJSON(sarifTool("t"), `{"properties":{"security-severity":"NaN"},"message":{"text":"m"}}`)), "security-severity NaN is not a finite number"},
		{"A huge security-severity is refused.", sarifDoc(sarifRunJSON(sarifTool("t"), `{"properties":{"security-severity":1e999},"message":{"text":"m"}}`)), "security-severity 1e999 is not a finite number"},
		{"A huge line number is refused.", sarifDoc(sarifRunJSON(sarifTool("t"), `{"message":{"text":"m"},"locations":[{"physicalLocation":{"region":{"startLine":1e30}}}]}`)), "runs[0].results[0]: locations[0].physicalLocation.region.startLine: 1e30 is not an integer in range"},
		{"A truncated log is refused.", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":`, "unexpected end of file"},
		{"Invalid JSON is refused.", `{"version":"2.1.0","runs":[{"results":[{"message":{"text":"m"}},}]}]}`, "invalid JSON"},
		{"Data after the log is refused.", `{"version":"2.1.0","runs":[]} {}`, "t.sarif: byte 30: unexpected data after the SARIF log"},
		{"Deep nesting in a skipped value is refused.", `{"version":"2.1.0","runs":[],"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "JSON nested deeper than 512 levels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadSARIF("t.sarif", strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("ReadSARIF = %+v, want error containing %q", ev, tc.want)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *parse.Error", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "t.sarif: byte ") || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line naming the file and byte, containing %q", msg, tc.want)
			}
		})
	}
}

func TestReadSARIFHugeStringsAreStreamed(t *testing.T) {
	t.Parallel()
	// A 20 MiB message and a 20 MiB skipped snippet neither fail nor get
	// held: the message is cut to its cap.
	big := strings.Repeat("x", 20<<20)
	in := `{"version":"2.1.0","runs":[{"results":[{"message":{"text":"` + big + `"},"fixes":[{"description":{"text":"` + big + `"}}]}]}]}`
	ev, err := ReadSARIF("t.sarif", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m := ev.Findings[0].Message; len(m) > sarifMaxMessage || !strings.HasSuffix(m, "…") {
		t.Errorf("message of %d bytes, want at most %d ending in …", len(m), sarifMaxMessage)
	}
}

func TestReadSARIFNotes(t *testing.T) {
	t.Parallel()
	in := `{"runs":[{"tool":` + sarifTool("t", `{"id":"R"}`) + `,"results":[` +
		sarifRes(`"ruleId":"R","properties":{"security-severity":"n/a"}`) + `,` +
		sarifRes(`"ruleId":"NOPE"`) + `,` +
		sarifRes(`"baselineState":"absent"`) + `,` +
		sarifRes(`"suppressions":[{"status":"accepted"}]`) + `]}]}`
	ev, err := ReadSARIF("t.sarif", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"t.sarif: no SARIF version given; read as 2.1.0",
		"t.sarif: 1 suppressed result ignored",
		"t.sarif: 1 result with baselineState absent (fixed) ignored",
		"t.sarif: 1 security-severity value was not a number; the level was used instead",
		"t.sarif: 1 result names a rule the tool does not list; read with the default level warning",
		// The two results say the same at one place, but under two
		// rules: two findings, no repeat.
	}
	if diff := cmp.Diff(want, ev.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

func TestIsSARIF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"A log with a SARIF schema is SARIF.", `{"$schema":"https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json","version":"2.1.0","runs":[`, true},
		{"A log with the schemastore schema is SARIF.", "\uFEFF{\n  \"$schema\" : \"https://json.schemastore.org/sarif-2.1.0.json\"", true},
		{"A log with version 2.1.0 and runs is SARIF.", `{"version":"2.1.0","runs":[{"tool":{}}]}`, true},
		{"staticcheck's output is SARIF.", `{"version":"2.1.0","$schema":"https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json","runs":[]}`, true},
		{"Version 2.1.0 without runs is not SARIF.", `{"version":"2.1.0","name":"my-package"}`, false},
		{"Another schema is not SARIF.", `{"$schema":"https://json-schema.org/draft/2020-12/schema","runs":[]}`, false},
		{"A validation report is not SARIF.", `{"passed":true,"regressions":0,"checks":{}}`, false},
		{"An array is not SARIF.", `[{"version":"2.1.0","runs":[]}]`, false},
		{"XML is not SARIF.", `<checkstyle/>`, false},
		{"A log that opens with its runs array is SARIF, whatever follows (gosec).", "{\n\t\"runs\": [\n\t\t{\n\t\t\t\"results\": [", true},
		{"A runs key that is no array is not SARIF.", `{"runs": 3}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := isSARIF([]byte(tc.head)); got != tc.want {
				t.Errorf("isSARIF(%q) = %v, want %v", tc.head, got, tc.want)
			}
		})
	}
}

func FuzzReadSARIF(f *testing.F) {
	// The fixtures, cut to the rules their results use: the fuzzer slows
	// to a crawl on seeds of 100+ KB.
	for _, name := range []string{"sarif-staticcheck.sarif", "sarif-staticcheck-compile.sarif"} {
		f.Add(sarifSmallSeed(f, name))
	}
	f.Add([]byte(sarifDoc(sarifRunJSON(sarifTool("mypy", `{"id":"R","defaultConfiguration":{"level":"error"},"properties":{"security-severity":"7.5"}}`),
		sarifRes(`"ruleId":"R","ruleIndex":0,"suppressions":[{"status":"underReview"}]`)+","+sarifRes(`"level":"note","kind":"review","baselineState":"new"`)))))
	f.Add([]byte(`{"runs":[{"results":[{"ruleId":"R","message":{"id":"x"},"rule":{"index":0,"toolComponent":{"index":0}}}],"tool":{"driver":{"name":"t"},"extensions":[{"rules":[{"id":"R"}]}]},"originalUriBaseIds":{"S":{"uri":"file:///r/"}}}],"version":"2.1.0"}`))
	f.Add([]byte(`{"version":"2.1.0","runs":[{"results":[{"message":{"text":"a\u00e9\ud83d\ude00"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///C:/a%20b.go"},"region":{"startLine":3}}}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ReadSARIF("f.sarif", bytes.NewReader(data))
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if !json.Valid(bytes.TrimPrefix(data, []byte("\uFEFF"))) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if len(ev.Findings) > MaxFindings {
			t.Fatalf("kept %d findings", len(ev.Findings))
		}
		for _, f := range ev.Findings {
			if f.Severity < decide.Critical || f.Severity > decide.Low || f.Message == "" || len(f.Message) > sarifMaxMessage || !utf8.ValidString(f.Message) {
				t.Fatalf("bad finding %+v", f)
			}
		}
	})
}

// sarifSmallSeed reads a SARIF fixture and drops the rules no result uses
// and their help texts.
func sarifSmallSeed(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string           `json:"name"`
					Rules []map[string]any `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []map[string]any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		f.Fatal(err)
	}
	for i := range log.Runs {
		used := map[any]bool{}
		for _, r := range log.Runs[i].Results {
			used[r["ruleId"]] = true
		}
		var keep []map[string]any
		for _, r := range log.Runs[i].Tool.Driver.Rules {
			if used[r["id"]] {
				delete(r, "help")
				keep = append(keep, r)
			}
		}
		log.Runs[i].Tool.Driver.Rules = keep
	}
	out, err := json.Marshal(log)
	if err != nil {
		f.Fatal(err)
	}
	return out
}

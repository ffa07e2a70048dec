package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

func TestReadCheckstyleFixtures(t *testing.T) {
	t.Parallel()
	fnd := func(src string, sev decide.Severity, file string, line int, rule, msg string) decide.Finding {
		return decide.Finding{Severity: sev, File: file, Line: line, Rule: rule, RuleIsID: rule != "", Message: msg, Source: src}
	}
	tests := []struct {
		file string
		want *decide.Evidence
	}{
		// Written by `npx eslint -f checkstyle src` (ESLint 8.57.0).
		{"checkstyle-eslint.xml", &decide.Evidence{
			Sources: []string{"checkstyle-eslint.xml"},
			Findings: []decide.Finding{
				fnd("checkstyle-eslint.xml:1", decide.High, "/tmp/esl/src/broken.js", 1, "", "Parsing error: Unexpected token ;"),
				fnd("checkstyle-eslint.xml:1", decide.High, "/tmp/esl/src/index.js", 3, "eslint.rules.no-unused-vars", "'unused' is assigned a value but never used. (no-unused-vars)"),
				fnd("checkstyle-eslint.xml:1", decide.Medium, "/tmp/esl/src/index.js", 4, "eslint.rules.prefer-const", "'total' is never reassigned. Use 'const' instead. (prefer-const)"),
				fnd("checkstyle-eslint.xml:1", decide.High, "/tmp/esl/src/index.js", 5, "eslint.rules.eqeqeq", "Expected '===' and instead saw '=='. (eqeqeq)"),
				fnd("checkstyle-eslint.xml:1", decide.Medium, "/tmp/esl/src/index.js", 6, "eslint.rules.no-console", "Unexpected console statement. (no-console)"),
				fnd("checkstyle-eslint.xml:1", decide.High, "/tmp/esl/src/lib/helper.js", 2, "eslint.rules.no-undef", "'y' is not defined. (no-undef)"),
			},
			Analysis:   true,
			LintErrors: 4,
		}},
		// In the shape of golangci-lint's checkstyle printer.
		{"checkstyle-golangci.xml", &decide.Evidence{
			Sources: []string{"checkstyle-golangci.xml"},
			Findings: []decide.Finding{
				fnd("checkstyle-golangci.xml:5", decide.High, "internal/calc/calc.go", 12, "typecheck", "declared and not used: y"),
				fnd("checkstyle-golangci.xml:8", decide.High, "main.go", 8, "unused", "func `unused` is unused"),
				fnd("checkstyle-golangci.xml:9", decide.Medium, "main.go", 15, "gosimple", `S1003: should use !strings.Contains("abc", "b") instead`),
				fnd("checkstyle-golangci.xml:10", decide.Low, "main.go", 1, "gofmt", "File is not `gofmt`-ed with `-s`"),
			},
			Analysis:   true,
			LintErrors: 1,
			TypeErrors: 1,
		}},
	}
	for _, tc := range tests {
		t.Run("The fixture "+tc.file+" is read.", func(t *testing.T) {
			t.Parallel()
			ev, err := ReadCheckstyle(tc.file, lnOpen(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ev); diff != "" {
				t.Errorf("ReadCheckstyle mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCheckstyleSeverities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		attrs      string
		sev        decide.Severity
		lint, typ  int
		rule, file string
	}{
		{"Severity error is high and a lint error.", `severity="error" source="eslint.rules.semi"`, decide.High, 1, 0, "eslint.rules.semi", "a.js"},
		{"Severity warning is medium.", `severity="warning"`, decide.Medium, 0, 0, "", "a.js"},
		{"Severity info is low.", `severity="info"`, decide.Low, 0, 0, "", "a.js"},
		{"Severity ignore is low.", `severity="ignore"`, decide.Low, 0, 0, "", "a.js"},
		{"Severity is read case-insensitively.", `severity="Warning"`, decide.Medium, 0, 0, "", "a.js"},
		{"A missing severity is error, checkstyle's default.", `source="x"`, decide.High, 1, 0, "x", "a.js"},
		{"An error from TypeScript is a type error.", `severity="error" source="typescript"`, decide.High, 0, 1, "typescript", "a.js"},
		{"An error with a TS code is a type error.", `severity="error" source="TS2322"`, decide.High, 0, 1, "TS2322", "a.js"},
		{"An error from typescript-eslint is a lint error.", `severity="error" source="eslint.rules.@typescript-eslint/no-explicit-any"`, decide.High, 1, 0, "eslint.rules.@typescript-eslint/no-explicit-any", "a.js"},
		{"A warning from a type checker is no type error.", `severity="warning" source="tsc"`, decide.Medium, 0, 0, "tsc", "a.js"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := `<checkstyle><file name="./a.js"><error line="3" message="m" ` + tc.attrs + `/></file></checkstyle>`
			ev, err := ReadCheckstyle("c.xml", strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			want := []decide.Finding{{Severity: tc.sev, File: tc.file, Line: 3, Rule: tc.rule, RuleIsID: tc.rule != "", Message: "m", Source: "c.xml:1"}}
			if diff := cmp.Diff(want, ev.Findings); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
			if ev.LintErrors != tc.lint || ev.TypeErrors != tc.typ || !ev.Analysis {
				t.Errorf("LintErrors, TypeErrors, Analysis = %d, %d, %v; want %d, %d, true", ev.LintErrors, ev.TypeErrors, ev.Analysis, tc.lint, tc.typ)
			}
		})
	}
}

func TestReadCheckstyleShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []decide.Finding
	}{
		{"An empty report has no findings.", `<?xml version="1.0"?><checkstyle version="4.3"></checkstyle>`, nil},
		{"A byte order mark is skipped.", "\uFEFF<checkstyle><file name=\"a\"><error line=\"1\" severity=\"info\" message=\"m\"/></file></checkstyle>",
			[]decide.Finding{{Severity: decide.Low, File: "a", Line: 1, Message: "m", Source: "c.xml:1"}}},
		{"Other elements and comments are skipped.", "<!-- lint --><checkstyle><meta><x/></meta><file name=\"a\"><note/><error line=\"\" severity=\"warning\" message=\"m\" source=\"s\"><extra>t</extra></error></file></checkstyle>\n<!-- end -->",
			[]decide.Finding{{Severity: decide.Medium, File: "a", Rule: "s", RuleIsID: true, Message: "m", Source: "c.xml:1"}}},
		{"A missing message uses the source.", `<checkstyle><file name="a"><error severity="warning" source="rule-x"/></file></checkstyle>`,
			[]decide.Finding{{Severity: decide.Medium, File: "a", Rule: "rule-x", RuleIsID: true, Message: "rule-x", Source: "c.xml:1"}}},
		{"Entities and character references are decoded.", `<checkstyle><file name="a&amp;b.js"><error severity="error" message="&lt;x&gt; &#34;y&#34; &apos;z&apos;"/></file></checkstyle>`,
			[]decide.Finding{{Severity: decide.High, File: "a&b.js", Message: `<x> "y" 'z'`, Source: "c.xml:1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadCheckstyle("c.xml", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ev.Findings); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCheckstyleKeepsTheMostSevere(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<checkstyle><file name=\"a.js\">\n")
	n := MaxFindings + 100
	for i := 0; i < n; i++ {
		sev := "warning"
		if i%100 == 99 {
			sev = "error"
		}
		fmt.Fprintf(&b, "<error line=\"%d\" severity=\"%s\" message=\"m%d\"/>\n", i+1, sev, i)
	}
	b.WriteString("</file></checkstyle>")
	ev, err := ReadCheckstyle("c.xml", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	errs := n / 100
	var kept decide.Counts
	for _, f := range ev.Findings {
		kept.Add(f.Severity)
	}
	got := [3]any{kept, ev.Omitted, ev.LintErrors}
	want := [3]any{decide.Counts{High: errs, Medium: MaxFindings - errs}, decide.Counts{Medium: 100}, errs}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept, omitted, lint errors mismatch (-want +got):\n%s", diff)
	}
	if last := ev.Findings[len(ev.Findings)-1]; last.Message != fmt.Sprintf("m%d", n-1) {
		t.Errorf("last kept = %q, want the last error m%d", last.Message, n-1)
	}
}

func TestReadCheckstyleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"An empty file is refused.", ``, "c.xml:1: no XML element found, expected a <checkstyle> report"},
		{"Text is refused.", `lint ok`, "c.xml:1: text before the root element, expected a <checkstyle> report"},
		{"Another root element is refused.", `<testsuites></testsuites>`, "c.xml:1: root element <testsuites>, expected <checkstyle>"},
		{"A DTD is refused.", "<?xml version=\"1.0\"?>\n<!DOCTYPE checkstyle [<!ENTITY x \"y\">]>\n<checkstyle/>", "c.xml:2: DTD or entity declarations are not allowed"},
		{"An undeclared entity is refused.", `<checkstyle><file name="&x;"/></checkstyle>`, "c.xml:1: invalid XML: invalid character entity &x;"},
		{"A truncated report is refused.", "<checkstyle>\n<file name=\"a\">\n<error severity=\"error\"/>", "c.xml:3: unexpected end of file, expected the rest of the report"},
		{"Mismatched tags are refused.", "<checkstyle><file name=\"a\"></checkstyle>", "c.xml:1: invalid XML: element <file> closed by </checkstyle>"},
		{"An unknown severity is refused.", "<checkstyle>\n<file name=\"a\">\n<error severity=\"fatal\"/></file></checkstyle>", `c.xml:3: unknown severity "fatal" (want error, warning, info or ignore)`},
		{"A bad line number is refused.", "<checkstyle><file name=\"a\"><error line=\"x1\"/></file></checkstyle>", `c.xml:1: line "x1" is not a line number`},
		{"A second root element is refused.", "<checkstyle/><checkstyle/>", "c.xml:1: element <checkstyle> after the root element"},
		{"Deep nesting is refused.", "<checkstyle>" + strings.Repeat("<a>", 300) + strings.Repeat("</a>", 300) + "</checkstyle>", "c.xml:1: elements nested deeper than 256"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadCheckstyle("c.xml", strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("ReadCheckstyle = %+v, want error %q", ev, tc.want)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *parse.Error", err)
			}
			if err.Error() != tc.want {
				t.Errorf("error = %q, want %q", err.Error(), tc.want)
			}
		})
	}
}

func TestReadCheckstyleHugeToken(t *testing.T) {
	t.Parallel()
	in := `<checkstyle><file name="a"><error message="` + strings.Repeat("x", csMaxToken+64<<10) + `"/></file></checkstyle>`
	_, err := ReadCheckstyle("c.xml", strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("err = %v, want a token too large", err)
	}
}

func TestIsCheckstyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"ESLint's report is checkstyle.", `<?xml version="1.0" encoding="utf-8"?><checkstyle version="4.3"><file name="a">`, true},
		{"A report with comments and a BOM is checkstyle.", "\uFEFF<?xml version=\"1.0\"?>\n<!-- generated -->\n<checkstyle>", true},
		{"A report with a DTD is sniffed as checkstyle (the reader refuses it).", "<!DOCTYPE checkstyle>\n<checkstyle>", true},
		{"JUnit XML is not checkstyle.", `<?xml version="1.0"?><testsuites><testsuite name="x">`, false},
		{"Cobertura XML is not checkstyle.", `<?xml version="1.0"?><coverage line-rate="0.5">`, false},
		{"JSON is not checkstyle.", `{"checkstyle": true}`, false},
		{"A truncated root tag is not checkstyle.", `<checksty`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := isCheckstyle([]byte(tc.head)); got != tc.want {
				t.Errorf("isCheckstyle(%q) = %v, want %v", tc.head, got, tc.want)
			}
		})
	}
}

func FuzzReadCheckstyle(f *testing.F) {
	for _, name := range []string{"checkstyle-eslint.xml", "checkstyle-golangci.xml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\uFEFF<?xml version=\"1.0\"?><!-- c --><checkstyle><x/><file name=\"./a\"><error line=\"\" severity=\"ignore\" source=\"TS1\"/></file></checkstyle>"))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY a "b">]><checkstyle/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ReadCheckstyle("f.xml", bytes.NewReader(data))
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
		if len(ev.Findings) > MaxFindings || ev.LintErrors+ev.TypeErrors > len(ev.Findings)+ev.Omitted.Total() {
			t.Fatalf("inconsistent counts: %d findings, %+v omitted, %d+%d errors", len(ev.Findings), ev.Omitted, ev.LintErrors, ev.TypeErrors)
		}
	})
}

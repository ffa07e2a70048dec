package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryIsWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range Formats() {
		switch {
		case f.Name == "" || seen[f.Name]:
			t.Errorf("format %q: no name, or the name twice", f.Name)
		case f.Family != Findings && f.Family != Tests && f.Family != Coverage:
			t.Errorf("format %s: family %v, want exactly one", f.Name, f.Family)
		case f.Sniff == nil || f.Read == nil:
			t.Errorf("format %s: no rule or no reader", f.Name)
		case f.What == "" || f.Sniffs == "" || strings.ContainsAny(f.What+f.Sniffs, "|\n"):
			t.Errorf("format %s: the README's description must be one table cell each: %q, %q", f.Name, f.What, f.Sniffs)
		}
		seen[f.Name] = true
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	jacocoHead := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">`
	tests := []struct {
		name string
		in   string
		want string // "" for none
	}{
		{"a Go profile", "mode: atomic\na.go:1.1,2.2 1 1\n", "goprofile"},
		{"a Go profile with a byte order mark", "\xef\xbb\xbfmode: set\n", "goprofile"},
		{"an LCOV file starting with TN", "TN:\nSF:a.c\n", "lcov"},
		{"an LCOV file starting with SF", "SF:a.c\nDA:1,1\n", "lcov"},
		{"gcovr's Cobertura with a DOCTYPE", "<?xml version='1.0'?>\n<!DOCTYPE coverage SYSTEM 'x'>\n<coverage>", "cobertura"},
		{"coverage.py's Cobertura", "<?xml version=\"1.0\" ?>\n<coverage version=\"6.5\">\n\t<!-- c -->", "cobertura"},
		{"a JaCoCo report", jacocoHead + "<report name=\"x\">", "jacoco"},
		{"Istanbul's Clover, by its clover attribute", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage generated=\"1\" clover=\"3.2.0\">", "clover"},
		{"PHPUnit's Clover, by its project child", "<?xml version=\"1.0\"?>\n<coverage generated=\"1\">\n  <!-- x -->\n  <project timestamp=\"1\">", "clover"},
		{"a Cobertura root with a projects-like child is Cobertura", "<coverage><projects>", "cobertura"},
		{"a Cobertura attribute ending in clover is Cobertura", "<coverage noclover=\"1\"><sources>", "cobertura"},
		{"a <coverage> root cut before its '>' is Cobertura", "<coverage clover", "cobertura"},
		{"JUnit testsuites", "<?xml version=\"1.0\"?>\n<!-- gotestsum -->\n<testsuites>", "junit"},
		{"JUnit testsuite", "<testsuite name=\"x\">", "junit"},
		{"a run json", `{"layer": "L1", "pass_rate": 1}`, "run-json"},
		{"a SARIF log", `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[]}`, "sarif"},
		{"gosec's SARIF, runs first", `{"runs": [{"results": []}]}`, "sarif"},
		{"a validation report", `{"passed": true, "total_regressions": 0}`, "validation-report"},
		{"a review result", `{"review_score": 8, "findings": []}`, "review-json"},
		{"a discoveries log", `{"ts":"2026","type":"critique","data":{}}` + "\n", "discoveries"},
		{"a checkstyle report", `<?xml version="1.0"?><checkstyle version="8"></checkstyle>`, "checkstyle"},
		{"a tasks.csv", "id,title,status,review_score,gc_signal\n", "tasks-csv"},
		{"an audit report", "# Design Audit\n\n## Overall Score: 8/10\n", "audit-markdown"},
		{"a review report", "# Code Review\n\n**Quality Score**: 8/10\n", "review-markdown"},
		{"reports first: a JSON object with a run key and a review key is a run json", `{"review_score": 8, "pass_rate": 1}`, "run-json"},
		{"an audit report that also looks like a review is an audit report", "# Audit\n\n## Overall Score: 7/10\n\n- **[HIGH]** x (a.go:1)\n", "audit-markdown"},
		{"other JSON", `{"findings": []}`, ""},
		{"other XML", "<html>", ""},
		{"an unknown mode", "mode: sometimes\n", ""},
		{"prose", "hello\n", ""},
		{"nothing", "", ""},
		{"white space", " \n\t\n", ""},
		{"an unterminated comment", "<!-- ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, ok := Sniff([]byte(tt.in), Any)
			if f.Name != tt.want || ok != (tt.want != "") {
				t.Errorf("Sniff = %q, %v; want %q", f.Name, ok, tt.want)
			}
			if Known([]byte(tt.in)) != ok {
				t.Errorf("Known disagrees with Sniff")
			}
		})
	}
}

func TestSniffKeepsToTheFamilies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		fam  Family
		want string
	}{
		{"a SARIF log is no report", `{"version": "2.1.0", "runs": []}`, Reports, ""},
		{"an LCOV file is no finding", "TN:\nSF:a.c\n", Findings, ""},
		{"JUnit is tests", "<testsuite>", Tests, "junit"},
		{"JUnit is no coverage", "<testsuite>", Coverage, ""},
		{"a run json among the findings only: a review result", `{"review_score": 8, "pass_rate": 1}`, Findings, "review-json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if f, _ := Sniff([]byte(tt.in), tt.fam); f.Name != tt.want {
				t.Errorf("Sniff(%v) = %q, want %q", tt.fam, f.Name, tt.want)
			}
		})
	}
}

// fixtureFormats are the repository's fixtures by the format they are in.
var fixtureFormats = map[string]string{
	"coverage/testdata/go/*.out":                 "goprofile",
	"coverage/testdata/lcov/*.info":              "lcov",
	"coverage/testdata/cobertura/*.xml":          "cobertura",
	"coverage/testdata/jacoco/*.xml":             "jacoco",
	"coverage/testdata/clover/*.xml":             "clover",
	"coverage/testdata/junit/*.xml":              "junit",
	"coverage/testdata/junit/surefire/*.xml":     "junit",
	"decide/evidence/testdata/*.sarif":           "sarif",
	"decide/evidence/testdata/validation-*.json": "validation-report",
	"decide/evidence/testdata/review-*.json":     "review-json",
	"decide/evidence/testdata/*.ndjson":          "discoveries",
	"decide/evidence/testdata/checkstyle-*.xml":  "checkstyle",
	"decide/evidence/testdata/tasks-*.csv":       "tasks-csv",
	"decide/evidence/testdata/audit-*.md":        "audit-markdown",
	"decide/evidence/testdata/review-*.md":       "review-markdown",
	"testdata/examples/coverage/junit.xml":       "junit",
	"testdata/examples/coverage/lcov.info":       "lcov",
}

// Every fixture sniffs as its format, and reads through the registry's
// reader; the coverage readers stamp the registry's name on their facts.
func TestFixturesSniffAndRead(t *testing.T) {
	t.Parallel()
	formats := map[string]bool{}
	for pattern, want := range fixtureFormats {
		files, err := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(pattern)))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no fixture (%v)", pattern, err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := Sniff(data, Any)
			if !ok || f.Name != want {
				t.Errorf("%s sniffs as %q, want %q", file, f.Name, want)
				continue
			}
			formats[f.Name] = true
			e, err := f.Read(file, strings.NewReader(string(data)))
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			if f.Family == Coverage && (e.Coverage == nil || e.Coverage.Format != f.Name) {
				t.Errorf("%s: coverage %+v, want facts of format %q", file, e.Coverage, f.Name)
			}
		}
	}
	for _, f := range Formats() {
		if !formats[f.Name] && f.Name != "run-json" { // run-json: the read tests
			t.Errorf("no fixture is in the format %s", f.Name)
		}
	}
}

// gosec writes $schema and version after the results, past the head that
// is sniffed: its log is told by the runs it opens with.
func TestGosecSARIFIsToldByItsRuns(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "decide", "evidence", "testdata", "sarif-gosec.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if at := strings.Index(string(data), `"$schema"`); at < SniffLen {
		t.Fatalf("the fixture's $schema is at byte %d, inside the first %d bytes", at, SniffLen)
	}
	if f, _ := Sniff(data, Any); f.Name != "sarif" {
		t.Errorf("Sniff = %q, want sarif", f.Name)
	}
}

func TestFamilyString(t *testing.T) {
	t.Parallel()
	for f, want := range map[Family]string{Findings: "findings", Tests: "tests", Coverage: "coverage", Reports: "tests+coverage", Any: "findings+tests+coverage", 0: ""} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", f, got, want)
		}
	}
}

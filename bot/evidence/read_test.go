package evidence

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

func TestReadDispatchesByContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		kind       decide.Loop
	}{
		{"a review JSON", `{"review_score": 8, "gc_signal": "CONVERGED", "findings": []}`, decide.Review},
		{"an LCOV report", "TN:\nSF:a.c\nDA:1,1\nend_of_record\n", decide.Coverage},
		{"a JUnit report", `<testsuite name="s"><testcase name="t"/></testsuite>`, decide.Coverage},
		{"a validation report", `{"passed": true, "total_regressions": 0, "checks": {"tests": {"status": "PASS", "failed": 0}}}`, decide.Validation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Read("f", strings.NewReader(tt.body), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Kinds(); len(got) != 1 || got[0] != tt.kind {
				t.Errorf("kinds %v, want [%v]", got, tt.kind)
			}
		})
	}
}

func TestReadFallbacks(t *testing.T) {
	t.Parallel()
	broken := `{"review_score": 8, "findings": [`
	tests := []struct {
		name, file, body string
		loop             decide.Loop
		want             string // "critique" or "validation" for a fallback, "" for the error
	}{
		{"a broken review file is an error for a review", "r.json", broken, decide.Review, ""},
		{"critique data that cannot be read converges", "r.json", broken, decide.Critique, "critique"},
		{"even a file of no format, for a critique", "notes.txt", "hello", decide.Critique, "critique"},
		{"a broken validation report counts as a failed validation", "validation-report.json", `{"passed": true, "regressions": `, decide.Validation, "validation"},
		{"a broken report of no format, for a validation", "v.json", "{", decide.Validation, "validation"},
		{"a broken coverage report, for a validation", "c.info", "SF:a.c\nDA:x\n", decide.Validation, "validation"},
		{"a broken review file is no validation report", "r.json", broken, decide.Validation, ""},
		{"a file of no format, for no loop", "notes.txt", "hello", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Read(tt.file, strings.NewReader(tt.body), tt.loop)
			switch tt.want {
			case "":
				var pe *parse.Error
				if !errors.As(err, &pe) || pe.File != tt.file {
					t.Errorf("evidence %+v, error %v; want a ParseError naming %s", e, err, tt.file)
				}
			case "critique":
				if err != nil || e.Critique == nil || e.Critique.Unreadable == "" || e.Sources[0] != tt.file {
					t.Errorf("critique fallback: %+v, %v", e, err)
				}
			case "validation":
				if err != nil || e.Validation == nil || e.Validation.Unreadable == "" || e.Sources[0] != tt.file {
					t.Errorf("validation fallback: %+v, %v", e, err)
				}
			}
		})
	}
}

// The words of a refusal are the ones gcloop has always printed: scripts
// and the scenarios match them.
func TestRefusalsSayWhatTheyAlwaysSaid(t *testing.T) {
	t.Parallel()
	const want = "want review JSON or markdown, tasks.csv, discoveries.ndjson, audit markdown, validation-report.json, SARIF 2.1.0, checkstyle XML, or a coverage/test report"
	readAny := func(name, body string) error { _, err := Read(name, strings.NewReader(body), ""); return err }
	readReport := func(name, body string) error { _, _, err := ReadReport(name, strings.NewReader(body)); return err }
	tests := []struct {
		name string
		read func(name, body string) error
		body string
		want string
	}{
		{"an empty file", readAny, "", "e.json: byte 0: empty file: " + want},
		{"a file of white space", readAny, " \n\n", "e.json: byte 0: empty file: " + want},
		{"a file of no format", readAny, "hello", "e.json: not a format gcloop reads (" + want + ")"},
		{"an empty report", readReport, "", "e.json: byte 0: empty file: want a coverage or test report"},
		{"a report of white space", readReport, " \n", "e.json:1: unknown format: want a Go cover profile, LCOV, Cobertura, JaCoCo or Clover XML, JUnit XML or run-<layer>.json"},
		{"a SARIF log is no report", readReport, `{"version": "2.1.0", "runs": []}`, "e.json:1: unknown format: want a Go cover profile, LCOV, Cobertura, JaCoCo or Clover XML, JUnit XML or run-<layer>.json"},
		{"a broken validation report by its name is no report", readReport, "{", "e.json:1: unknown format: want a Go cover profile, LCOV, Cobertura, JaCoCo or Clover XML, JUnit XML or run-<layer>.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.read("e.json", tt.body)
			var pe *parse.Error
			if !errors.As(err, &pe) || err.Error() != tt.want {
				t.Errorf("error %v, want the ParseError %q", err, tt.want)
			}
		})
	}
}

func TestAReadErrorIsNamed(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	_, err := Read("r.json", iotest.ErrReader(boom), "")
	if !errors.Is(err, boom) || err.Error() != "read evidence r.json: disk on fire" {
		t.Errorf("Read error %v", err)
	}
	_, _, err = ReadReport("c.info", iotest.ErrReader(boom))
	var pe *parse.Error
	if !errors.Is(err, boom) || !errors.As(err, &pe) || pe.File != "c.info" {
		t.Errorf("ReadReport error %v", err)
	}
}

// A file no rule recognises is read by the format its name claims, among
// the families read: a broken validation-report.json is a validation
// report, which counts as a failed validation (its reader says why).
func TestReadByName(t *testing.T) {
	t.Parallel()
	e, err := Read("out/validation-report-2.json", strings.NewReader(`{"passed": tru`), "")
	if err != nil || e.Validation == nil || !strings.HasPrefix(e.Validation.Unreadable, "out/validation-report-2.json") {
		t.Errorf("evidence %+v, error %v; want an unreadable validation report", e, err)
	}
	if _, err := Read("out/report-2.json", strings.NewReader(`{"passed": tru`), ""); err == nil {
		t.Error("a file of no format and no known name was read")
	}
}

func TestReadReportTellsTheFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"a Go profile", "mode: set\na.go:1.1,2.2 1 1\n", "goprofile"},
		{"an LCOV file", "SF:a.c\nDA:1,1\nend_of_record\n", "lcov"},
		{"JUnit", `<testsuite name="s"><testcase name="t"/></testsuite>`, "junit"},
		{"a run json", `{"layer":"L2","coverage":55.5,"tests_passed":1,"tests_failed":0}`, "run-json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, f, err := ReadReport("r", strings.NewReader(tt.body))
			if err != nil || f.Name != tt.want || e.Sources[0] != "r" {
				t.Fatalf("ReadReport = %+v, %q, %v; want format %s", e, f.Name, err, tt.want)
			}
			if (f.Family == Coverage) != (e.Coverage != nil) || (f.Name != "goprofile" && f.Name != "lcov") != (e.Tests != nil) {
				t.Errorf("evidence %+v of a %s report", e, f.Name)
			}
		})
	}
	if _, f, err := ReadReport("r", strings.NewReader("SF:a.c\nDA:x\n")); err == nil || f.Name != "lcov" {
		t.Errorf("a broken LCOV file: format %q, error %v; want lcov and an error", f.Name, err)
	}
}

func TestReadTests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr string
	}{
		{"go test -json", `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n", 1, ""},
		{"JUnit", `<testsuite name="p"><testcase classname="p" name="TestA"/><testcase classname="p" name="TestB"/></testsuite>`, 2, ""},
		{"a coverage profile is not test results", "mode: set\np/a.go:1.1,2.2 1 1\n", 0, "b.txt: not test results: want JUnit XML or go test -json output"},
		{"garbage", "hello", 0, "b.txt:1: unknown format"},
		{"findings are not test results", `{"review_score": 8}`, 0, "b.txt:1: unknown format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadTests("b.txt", strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Cases) != tt.want {
				t.Errorf("%d cases, want %d", len(got.Cases), tt.want)
			}
		})
	}
}

// Read streams: a reader gets the file through one buffer, whatever its
// size.
func TestReadStreamsPastTheHead(t *testing.T) {
	t.Parallel()
	body := "TN:\n" + strings.Repeat("SF:a.c\nDA:1,1\nend_of_record\n", 20000)
	e, err := Read("big.info", iotest.OneByteReader(strings.NewReader(body)), "")
	if err != nil || e.Coverage == nil || len(e.Coverage.Files) != 1 {
		t.Fatalf("evidence %+v, %v", e, err)
	}
}

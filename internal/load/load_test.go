package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

func TestReadDispatchesByContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		kinds      []decide.Loop
	}{
		{"a review JSON", `{"review_score": 8, "gc_signal": "CONVERGED", "findings": []}`, []decide.Loop{decide.Review}},
		{"an LCOV report", "TN:\nSF:a.c\nDA:1,1\nend_of_record\n", []decide.Loop{decide.Coverage}},
		{"a JUnit report", `<testsuite name="s"><testcase name="t"/></testsuite>`, []decide.Loop{decide.Coverage}},
		{"a validation report", `{"passed": true, "total_regressions": 0, "checks": {"tests": {"status": "PASS", "failed": 0}}}`, []decide.Loop{decide.Validation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Read("f", strings.NewReader(tt.body), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Kinds(); len(got) != len(tt.kinds) || got[0] != tt.kinds[0] {
				t.Errorf("kinds %v, want %v", got, tt.kinds)
			}
		})
	}
}

func TestReadFallbacks(t *testing.T) {
	t.Parallel()
	broken := `{"review_score": 8, "findings": [`
	if _, err := Read("r.json", strings.NewReader(broken), decide.Review); err == nil {
		t.Error("a broken review file was accepted")
	}
	e, err := Read("r.json", strings.NewReader(broken), decide.Critique)
	if err != nil || e.Critique == nil || e.Critique.Unreadable == "" {
		t.Errorf("critique fallback: %+v, %v", e, err)
	}
	e, err = Read("validation-report.json", strings.NewReader(`{"passed": true, "regressions": `), decide.Validation)
	if err != nil || e.Validation == nil || e.Validation.Unreadable == "" {
		t.Errorf("validation fallback: %+v, %v", e, err)
	}
	var pe *decide.ParseError
	if _, err := Read("notes.txt", strings.NewReader("hello"), ""); !errors.As(err, &pe) {
		t.Errorf("an unknown format: err = %v, want a ParseError", err)
	}
}

func TestPathsReadsDirectoriesAndSkipsOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a/review-results.json": `{"review_score": 6, "gc_signal": "REVISION_NEEDED", "findings": []}`,
		"a/notes.txt":           "not evidence",
		"b.info":                "TN:\nSF:a.c\nDA:1,0\nend_of_record\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	es, err := Paths([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b.info")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Review == nil || es[1].Coverage == nil {
		t.Fatalf("evidence %+v", es)
	}
	if _, err := Paths([]string{filepath.Join(dir, "missing.json")}, ""); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: err = %v", err)
	}
	empty := t.TempDir()
	if _, err := Paths([]string{empty}, ""); err == nil {
		t.Error("an empty directory was accepted as evidence")
	}
}

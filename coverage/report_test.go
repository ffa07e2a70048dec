package coverage

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/report and testdata/upstream")

func TestReportGolden(t *testing.T) {
	t.Parallel()
	many := &decide.CoverageFacts{Format: "lcov"}
	for i := 0; i < 60; i++ {
		f := decide.FileCoverage{Path: fmt.Sprintf("src/f%02d.c", i), Covered: int64(i), Total: 60}
		many.Files = append(many.Files, f)
		many.Covered += f.Covered
		many.Total += f.Total
	}
	tests := []struct {
		name    string
		e       *decide.Evidence
		formats []Format
	}{
		{
			name: "lcov-and-junit",
			e: &decide.Evidence{
				Coverage: &decide.CoverageFacts{Format: "lcov", Covered: 7, Total: 9, Files: []decide.FileCoverage{
					{Path: "src/b.ts", Covered: 1, Total: 3}, {Path: "src/a|pipe.ts", Covered: 6, Total: 6},
				}},
				Tests: &decide.TestFacts{Passed: 3, Failed: 1, Skipped: 1, Cases: []decide.TestCase{
					{Name: "suite/ok", Status: decide.Passed},
					{Name: "suite/adds", File: "src/a.test.ts", Status: decide.Failed, Message: "expected 3\nreceived 4 | <b>", Category: "assertion_mismatch"},
				}},
			},
			formats: []Format{FormatLCOV, FormatJUnit},
		},
		{
			name:    "run-json-only",
			e:       &decide.Evidence{Coverage: &decide.CoverageFacts{Format: "run-json", Percent: ptr(81.234), Layer: "L1"}, Tests: &decide.TestFacts{Passed: 9, Failed: 1, PassRate: ptr(0.9)}},
			formats: []Format{FormatRunJSON},
		},
		{name: "many-files", e: &decide.Evidence{Coverage: many}, formats: []Format{FormatLCOV}},
		{name: "junit-only", e: &decide.Evidence{Tests: &decide.TestFacts{Passed: 2}}, formats: []Format{FormatJUnit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := NewReport(tt.e, tt.formats, ListWorst)
			var js, md bytes.Buffer
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "report", tt.name+".json"), js.Bytes())
			golden(t, filepath.Join("testdata", "report", tt.name+".md"), md.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestReportOfRealFixture(t *testing.T) {
	t.Parallel()
	c, err := ReadLCOV("c.info", bytes.NewReader(readFixture(t, "lcov/c.info")))
	if err != nil {
		t.Fatal(err)
	}
	rep := NewReport(&decide.Evidence{Sources: []string{"c.info"}, Coverage: c}, []Format{FormatLCOV}, ListWorst)
	if rep.Schema != "gcloop/coverage/v1" || rep.Tests != nil || *rep.Lines.Percent != 70.83 || len(rep.Files) != 3 || rep.Files[0].Path != "main.c" {
		t.Errorf("report %+v", rep)
	}
}

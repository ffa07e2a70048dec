package cycle

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/decide"
)

// goTests is a fake test command that writes what `go test
// -coverprofile` and gotestsum would: a Go cover profile and JUnit XML.
const goTests = `#!/bin/sh
add=1
sub=0
cases='<testcase classname="example.com/calc" name="TestAdd" time="0.000"></testcase>'
n=1
if [ -f more_test.go ]; then
	sub=1
	n=2
	cases="$cases"'<testcase classname="example.com/calc" name="TestMore" time="0.000"></testcase>'
fi
printf 'mode: set\nexample.com/calc/calc.go:3.24,5.2 1 %d\nexample.com/calc/calc.go:7.24,9.2 1 %d\n' "$add" "$sub" > cover.out
printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="%d" failures="0" errors="0" time="0.001">\n\t<testsuite tests="%d" failures="0" time="0.001" name="example.com/calc" timestamp="2026-01-01T00:00:00Z">\n\t\t%s\n\t</testsuite>\n</testsuites>\n' "$n" "$n" "$cases" > report.xml
`

// readReport reads the two reports goTests writes with the real readers:
// JUnit XML and a Go cover profile. (The command tells formats apart
// through the evidence registry, a layer above this package.)
func readReport(name string, r io.Reader) (*decide.Evidence, error) {
	e := &decide.Evidence{Sources: []string{name}}
	var err error
	if strings.HasSuffix(name, ".xml") {
		e.Tests, err = coverage.ReadJUnit(name, r)
	} else {
		e.Coverage, err = coverage.ReadGoProfile(name, r)
	}
	return e, err
}

func TestRunWithTheRealReaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		fix          string
		wantReverted bool
		wantSummary  string
		wantTally    string
	}{
		{
			name:        "a new Go test file is accepted",
			fix:         "printf 'package calc\\n' > more_test.go",
			wantSummary: "Round 1 for L1: coverage 50.0% -> 100.0% (delta: +50.0%)",
			wantTally:   "pass rate: 1.00 -> 1.00 (1 passed, 0 failed, 0 skipped -> 2 passed, 0 failed, 0 skipped)",
		},
		{
			name:         "a Go test file that adds nothing is reverted",
			fix:          "printf 'package calc\\n' > other_test.go",
			wantReverted: true,
			wantSummary:  "Round 1 for L1: coverage 50.0% -> 50.0% (delta: +0.0%)",
			wantTally:    "no_improvement: coverage 50.0% -> 50.0%, pass rate 1.00 -> 1.00: not improved",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newProject(t)
			write(t, dir, ".gitignore", "cover.out\nreport.xml\n")
			if err := os.WriteFile(filepath.Join(dir, "go-tests.sh"), []byte(goTests), 0o755); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "add", ".gitignore", "go-tests.sh")
			git(t, dir, "commit", "-q", "-m", "go tests")
			res, err := Run(context.Background(), Options{
				Dir: dir, Test: "./go-tests.sh", Fix: tt.fix,
				Coverage: "cover.out", JUnit: "report.xml", Layer: "L1",
				Read: readReport,
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := res.Summary(); got != tt.wantSummary {
				t.Errorf("Summary() = %q, want %q", got, tt.wantSummary)
			}
			if res.Reverted != tt.wantReverted {
				t.Errorf("Reverted = %v\n%s", res.Reverted, res.Markdown())
			}
			if !strings.Contains(res.Markdown(), tt.wantTally) {
				t.Errorf("report lacks %q:\n%s", tt.wantTally, res.Markdown())
			}
		})
	}
}

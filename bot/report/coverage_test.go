package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
)

func TestFileChanges(t *testing.T) {
	t.Parallel()
	fc := func(p string, c, n int64) decide.FileCoverage {
		return decide.FileCoverage{Path: p, Covered: c, Total: n}
	}
	tests := []struct {
		name      string
		now, prev []decide.FileCoverage
		want      []string
	}{
		{"the worst change comes first, then the best",
			[]decide.FileCoverage{fc("a.go", 5, 10), fc("b.go", 2, 10), fc("c.go", 9, 10)},
			[]decide.FileCoverage{fc("a.go", 4, 10), fc("b.go", 6, 10), fc("c.go", 1, 10)},
			[]string{"b.go", "a.go", "c.go"}},
		{"unchanged and removed files are left out",
			[]decide.FileCoverage{fc("a.go", 5, 10)},
			[]decide.FileCoverage{fc("a.go", 5, 10), fc("gone.go", 1, 2)},
			nil},
		{"new files follow the changed ones, least covered first",
			[]decide.FileCoverage{fc("new1.go", 9, 10), fc("a.go", 1, 10), fc("new2.go", 0, 10)},
			[]decide.FileCoverage{fc("a.go", 2, 10)},
			[]string{"a.go", "new2.go", "new1.go"}},
		{"an empty file counts as 0 %",
			[]decide.FileCoverage{fc("e.go", 0, 0)},
			[]decide.FileCoverage{fc("e.go", 1, 2)},
			[]string{"e.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, r := range fileChanges(tt.now, tt.prev) {
				got = append(got, r.path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCoverageFilesTable(t *testing.T) {
	t.Parallel()
	files := []decide.FileCoverage{{Path: "a.go", Covered: 1, Total: 4}, {Path: "b.go", Covered: 3, Total: 4}}
	base := func() *decide.Decision {
		return &decide.Decision{Loop: decide.Coverage, ID: "coverage", Outcome: decide.Fix, Verdict: "FIX", Round: 2, MaxRounds: 3, Files: files}
	}
	tests := []struct {
		name   string
		change func(d *decide.Decision)
		want   []string
		absent []string
	}{
		{"without an earlier round's files, the least covered files", func(d *decide.Decision) {},
			[]string{"### Coverage by file: least covered files (no per-file coverage of an earlier round to compare with)", "| a.go | 25 % |\n| b.go | 75 % |"}, nil},
		{"a first round just lists the least covered", func(d *decide.Decision) { d.Round = 1 },
			[]string{"### Coverage by file: least covered files\n"}, []string{"no per-file coverage"}},
		{"nothing changed says so", func(d *decide.Decision) { d.PrevFiles, d.PrevFilesRound = files, 1 },
			[]string{"No file's coverage changed since round 1 (2 files)."}, []string{"| file |"}},
		{"changes with before, now and the signed change", func(d *decide.Decision) {
			d.PrevFiles, d.PrevFilesRound = []decide.FileCoverage{{Path: "a.go", Covered: 2, Total: 4}}, 1
		}, []string{"2 files changed since round 1", "| a.go | 50 % | 25 % | 🔻 −25 |", "| b.go | — | 75 % | new |"}, nil},
		{"other loops show no table", func(d *decide.Decision) { d.Loop = decide.Review }, nil, []string{"Coverage by file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := base()
			tt.change(d)
			got, err := Markdown(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("report lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("report holds %q:\n%s", a, got)
				}
			}
		})
	}
}

package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestRollUp(t *testing.T) {
	t.Parallel()
	files := []decide.FileCoverage{
		{Path: "b/x.go", Covered: 9, Total: 10},
		{Path: "a/y.go", Covered: 0, Total: 4},
		{Path: "a/z.go", Covered: 2, Total: 4},
		{Path: "top.go", Covered: 1, Total: 2},
		{Path: "b/w.go", Covered: 0, Total: 8}, // 0 %, more uncovered than a/y.go
		{Path: "a/e.go", Covered: 0, Total: 0},
	}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"none listed", 0, []string{}},
		{"the worst two, by path", 2, []string{"a/y.go", "b/w.go"}},
		{"the worst four", 4, []string{"a/e.go", "a/y.go", "a/z.go", "b/w.go"}},
		{"all fit", 10, []string{"a/e.go", "a/y.go", "a/z.go", "b/w.go", "b/x.go", "top.go"}},
	}
	wantDirs := []ReportDir{
		{Path: ".", Files: 1, Covered: 1, Total: 2, Percent: 50},
		{Path: "a", Files: 3, Covered: 2, Total: 8, Percent: 25},
		{Path: "b", Files: 2, Covered: 9, Total: 18, Percent: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			list, dirs := rollUp(files, tt.n)
			got := []string{}
			for _, f := range list {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("listed files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantDirs, dirs); diff != "" {
				t.Errorf("directories (-want +got):\n%s", diff)
			}
		})
	}
}

// Past MaxDirectories, further directories are added up in one entry, so
// the roll-up stays bounded.
func TestRollUpDirectoriesAreBounded(t *testing.T) {
	t.Parallel()
	var files []decide.FileCoverage
	for i := 0; i < MaxDirectories+10; i++ {
		files = append(files, decide.FileCoverage{Path: fmt.Sprintf("d%05d/f.go", i), Covered: 1, Total: 2})
	}
	_, dirs := rollUp(files, WorstFiles)
	if len(dirs) != MaxDirectories+1 {
		t.Fatalf("%d directories, want %d", len(dirs), MaxDirectories+1)
	}
	want := ReportDir{Path: OtherDirectories, Files: 10, Covered: 10, Total: 20, Percent: 50}
	if diff := cmp.Diff(want, dirs[len(dirs)-1]); diff != "" {
		t.Errorf("last entry (-want +got):\n%s", diff)
	}
}

// With ListAll, WriteJSON streams every file; the bytes are those
// encoding/json writes for the same report with all files in "files".
func TestWriteJSONStreamsAllFiles(t *testing.T) {
	t.Parallel()
	paths := []string{"src/z.go", `we"ird\path.go`, "a<b>&c.ts", "ünï/cödé.py", "tab\there.c", "src/a.go"}
	for _, n := range []int{0, 1, len(paths)} {
		t.Run(fmt.Sprint(n, " files"), func(t *testing.T) {
			t.Parallel()
			c := &decide.CoverageFacts{Format: "lcov"}
			for i, p := range paths[:n] {
				c.Files = append(c.Files, decide.FileCoverage{Path: p, Covered: int64(i), Total: 7})
				c.Covered += int64(i)
				c.Total += 7
			}
			rep := NewReport(&decide.Evidence{Coverage: c}, []Format{FormatLCOV}, ListAll)
			var got bytes.Buffer
			if err := rep.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			plain := rep
			plain.all = nil
			plain.Files = []ReportFile{}
			for _, f := range c.Files { // sorted by path by NewReport
				plain.Files = append(plain.Files, reportFile(f))
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(plain); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("streamed JSON (-want +got):\n%s", diff)
			}
			if rep.FilesListed != "all" || rep.FileCount != n {
				t.Errorf("files_listed %q, file_count %d; want all, %d", rep.FilesListed, rep.FileCount, n)
			}
		})
	}
}

// The report of a monorepo holds the totals, the worst files and the
// roll-up, not one record per file: building and writing the default
// report allocates about the same for 240 000 files as for 2 000 (measured
// in bytes allocated, not time). Not parallel: allocation counts are
// process-wide.
func TestReportMemoryDoesNotGrowWithFiles(t *testing.T) {
	facts := func(n int) *decide.Evidence {
		c := &decide.CoverageFacts{Format: "lcov", Files: make([]decide.FileCoverage, n)}
		for i := range c.Files {
			c.Files[i] = decide.FileCoverage{Path: fmt.Sprintf("services/svc%03d/pkg%02d/file%06d.ts", i%500, i%37, i), Covered: int64(i % 40), Total: 40}
			c.Covered += c.Files[i].Covered
			c.Total += 40
		}
		return &decide.Evidence{Coverage: c}
	}
	small, large := facts(2_000), facts(240_000)
	report := func(e *decide.Evidence) uint64 {
		return allocated(func() {
			if err := NewReport(e, []Format{FormatLCOV}, ListWorst).WriteJSON(io.Discard); err != nil {
				t.Fatal(err)
			}
		})
	}
	s, l := report(small), report(large)
	t.Logf("allocated: 2 000 files %d KiB, 240 000 files %d KiB", s>>10, l>>10)
	// The roll-up holds at most MaxDirectories directories (the large
	// report has 18 500), the listing WorstFiles files.
	if l > 2<<20 {
		t.Errorf("the report of 240 000 files allocated %d KiB, want at most 2 MiB", l>>10)
	}
}

// FuzzRollUpDirectories checks the roll-up's directories against
// path.Dir of every file, whatever the paths and their order: the roll-up
// reuses the directory of the file before when the paths agree up to their
// last slash.
func FuzzRollUpDirectories(f *testing.F) {
	f.Add("a/b.go\na/c.go\na//d.go\n./a/e.go\nb/../a/f.go\n/x.go\ny.go\na/\n/\n\n")
	f.Fuzz(func(t *testing.T, list string) {
		ru := newRollUp(0)
		want := map[string]*ReportDir{}
		var other *ReportDir
		for _, p := range strings.Split(list, "\n") {
			fc := decide.FileCoverage{Path: p, Covered: int64(len(p) % 3), Total: 2}
			ru.Add(fc)
			d := want[path.Dir(p)]
			if d == nil && len(want) < MaxDirectories {
				d = &ReportDir{Path: path.Dir(p)}
				want[d.Path] = d
			}
			if d == nil {
				if other == nil {
					other = &ReportDir{Path: OtherDirectories}
				}
				d = other
			}
			d.Files++
			d.Covered += fc.Covered
			d.Total += fc.Total
		}
		got := map[string]ReportDir{}
		for k, d := range ru.dirs {
			got[k] = *d
		}
		wantv := map[string]ReportDir{}
		for k, d := range want {
			wantv[k] = *d
		}
		if diff := cmp.Diff(wantv, got); diff != "" {
			t.Fatalf("directories (-path.Dir +roll-up):\n%s", diff)
		}
		if (other == nil) != (ru.other == nil) || other != nil && *other != *ru.other {
			t.Fatalf("other directories %+v, want %+v", ru.other, other)
		}
	})
}

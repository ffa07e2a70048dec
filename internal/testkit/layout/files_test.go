package layout

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// maxLines is the most lines a non-test Go file may have: a file over it
// holds more than one job.
const maxLines = 500

// longFilesAllowed are the files over maxLines today: split by other
// branches. Once they are merged an entry whose file is short (or gone)
// fails the test, so that the list only ever shrinks; the goal is an
// empty list.
var longFilesAllowed = map[string]bool{}

// longFiles returns every non-test Go file of fsys over limit lines that
// allowed does not list, and every entry of allowed that is not such a
// file. It skips testdata and hidden directories.
func longFiles(fsys fs.FS, limit int, allowed map[string]bool) ([]string, error) {
	var problems []string
	long := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		if n <= limit {
			return nil
		}
		long[p] = true
		if !allowed[p] {
			problems = append(problems, fmt.Sprintf("%s: %d lines, more than %d; split it by job", p, n, limit))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk the module: %w", err)
	}
	for p := range allowed {
		if !long[p] {
			problems = append(problems, fmt.Sprintf("allow-list entry %s: not a file over %d lines any more; remove it", p, limit))
		}
	}
	sort.Strings(problems)
	return problems, nil
}

func TestNoLongFiles(t *testing.T) {
	t.Parallel()
	problems, err := longFiles(os.DirFS(moduleRoot(t)), maxLines, longFilesAllowed)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestLongFilesRule(t *testing.T) {
	t.Parallel()
	lines := func(n int) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(strings.Repeat("x\n", n))}
	}
	fsys := fstest.MapFS{
		"a/short.go":            lines(3),
		"a/long.go":             lines(4),
		"a/long_test.go":        lines(9),
		"a/testdata/long.go":    lines(9),
		".git/long.go":          lines(9),
		"a/notes.md":            lines(9),
		"b/unterminated.go":     {Data: []byte("x\nx\nx\nx")},
		"b/allowed.go":          lines(5),
		"b/allowed_but_fine.go": lines(2),
	}
	got, err := longFiles(fsys, 3, map[string]bool{"b/allowed.go": true, "b/allowed_but_fine.go": true, "gone.go": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/long.go: 4 lines, more than 3",
		"allow-list entry b/allowed_but_fine.go: not a file over 3 lines",
		"allow-list entry gone.go: not a file over 3 lines",
		"b/unterminated.go: 4 lines, more than 3",
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want %q…", i, got[i], want[i])
		}
	}
}

package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadPathsReadsDirectoriesAndSkipsOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "a/review-results.json", `{"review_score": 6, "gc_signal": "REVISION_NEEDED", "findings": []}`)
	writeFile(t, dir, "a/notes.txt", "not evidence")
	writeFile(t, dir, "b.info", "TN:\nSF:a.c\nDA:1,0\nend_of_record\n")
	es, err := ReadPaths([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b.info")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Review == nil || es[1].Coverage == nil {
		t.Fatalf("evidence %+v", es)
	}
	if got, want := es[0].Sources, []string{filepath.Join(dir, "a", "review-results.json")}; !cmp.Equal(got, want) {
		t.Errorf("sources %q, want %q", got, want)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "mixed/z/lcov.info", "SF:a.c\nDA:1,1\nend_of_record\n")
	writeFile(t, dir, "mixed/junit.xml", "<testsuite/>")
	writeFile(t, dir, "mixed/review.json", `{"review_score": 6}`)
	writeFile(t, dir, "mixed/notes.txt", "not evidence")
	writeFile(t, dir, "findings/review.json", `{"review_score": 6}`)
	writeFile(t, dir, "outside/real.json", `{"review_score": 6}`)
	writeFile(t, dir, "empty/.keep", "")
	symlink(t, filepath.Join(dir, "outside", "real.json"), filepath.Join(dir, "mixed", "link.json"))
	symlink(t, filepath.Join(dir, "mixed"), filepath.Join(dir, "linked"))
	in := func(rel ...string) []string {
		var out []string
		for _, r := range rel {
			out = append(out, filepath.Join(dir, filepath.FromSlash(r)))
		}
		return out
	}
	tests := []struct {
		name    string
		paths   []string
		fam     Family
		want    []string
		wantErr string
	}{
		{"a directory: its files of any family, in name order; symlinks in it passed over", in("mixed"), Any, in("mixed/junit.xml", "mixed/review.json", "mixed/z/lcov.info"), ""},
		{"a directory: its reports", in("mixed"), Reports, in("mixed/junit.xml", "mixed/z/lcov.info"), ""},
		{"a file stands for itself, whatever it holds", in("mixed/notes.txt", "mixed/junit.xml"), Reports, in("mixed/notes.txt", "mixed/junit.xml"), ""},
		{"a directory named through a symlink", in("linked"), Reports, in("linked/junit.xml", "linked/z/lcov.info"), ""},
		{"a missing path", in("missing.json"), Any, nil, "read evidence " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{"a directory with no file of the families", in("findings"), Reports, nil, "read evidence " + filepath.Join(dir, "findings") + ": no file in the directory is in a format gcloop reads"},
		{"an empty directory", in("empty"), Any, nil, "read evidence " + filepath.Join(dir, "empty") + ": no file in the directory is in a format gcloop reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Paths(tt.paths, tt.fam)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Paths = %q, %v; want the error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Paths (-want +got):\n%s", diff)
			}
		})
	}
}

// A file of a directory that cannot be read is named in the error.
func TestPathsNamesAnUnreadableFile(t *testing.T) {
	t.Parallel()
	if os.Getuid() == 0 {
		t.Skip("root reads every file: a mode cannot make one unreadable")
	}
	dir := t.TempDir()
	writeFile(t, dir, "d/secret.json", `{"review_score": 6}`)
	if err := os.Chmod(filepath.Join(dir, "d", "secret.json"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Paths([]string{filepath.Join(dir, "d")}, Any)
	want := "read evidence " + filepath.Join(dir, "d", "secret.json") + ": permission denied"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

package pushfix

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestReadPatchRefusesWithOneLineNamingTheFileAndPlace(t *testing.T) {
	t.Parallel()
	hunk := "@@ -0,0 +1 @@\n+x\n"
	newFile := func(p string) string {
		return "diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n" + hunk
	}
	tests := []struct {
		name, patch string
		lim         PatchLimits
		say         string
	}{
		{"too large", newFile("a_test.go"), PatchLimits{MaxBytes: 20}, "more than 20 bytes"},
		{"too many lines", newFile("a_test.go"), PatchLimits{MaxLines: 5}, "more than 5 lines"},
		{"too many files", newFile("a_test.go") + newFile("b_test.go"), PatchLimits{MaxFiles: 1}, "more than 1"},
		{"hunk counts lie", "diff --git a/a_test.go b/a_test.go\n--- a/a_test.go\n+++ b/a_test.go\n@@ -1,3 +1,3 @@\n-x\n+y\n", PatchLimits{}, "line "},
		{"climbs out", newFile("../evil_test.go"), PatchLimits{}, "not a clean repository-relative path"},
		{"into .git", newFile(".git/hooks/pre-commit"), PatchLimits{}, "not a clean repository-relative path"},
		{"changed twice", newFile("a_test.go") + newFile("a_test.go"), PatchLimits{}, "file 2 (a_test.go): a_test.go is changed again, already by file 1"},
		{"binary without data", "diff --git a/x.bin b/x.bin\nindex 6772730..943242d 100644\nBinary files a/x.bin and b/x.bin differ\n", PatchLimits{}, "make the patch with git diff --binary"},
		{"not a git mode", "diff --git a/a_test.go b/a_test.go\nold mode 100644\nnew mode 100777\n", PatchLimits{}, "new mode 100777 is no Git file mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadPatch("art/gcloop-changes.patch", strings.NewReader(tt.patch), tt.lim)
			if !errors.Is(err, ErrPatch) {
				t.Fatalf("error %v, want ErrPatch", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "art/gcloop-changes.patch: ") || !strings.Contains(msg, tt.say) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line naming the patch and saying %q", msg, tt.say)
			}
		})
	}
}

func TestReadPatchReadsWhatGitDiffBinaryWrites(t *testing.T) {
	t.Parallel()
	all, err := os.ReadFile("testdata/all.patch")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadPatch("gcloop-changes.patch", strings.NewReader(string(all)), PatchLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range p.Files {
		names = append(names, fileName(f))
	}
	if got := strings.Join(names, " "); got != "b_test.go cart_test.go new_test.go noeol_test.go old_test.go run_test.sh testdata/x.bin" {
		t.Errorf("files %s", got)
	}
	empty, err := ReadPatch("gcloop-changes.patch", strings.NewReader(""), PatchLimits{})
	if err != nil || len(empty.Files) != 0 {
		t.Errorf("an empty patch: %v, %v; want no files and no error", empty, err)
	}
}

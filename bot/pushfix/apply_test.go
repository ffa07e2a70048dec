package pushfix

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/coverage/guard"
)

// patchHead is the commit every patch of these tests was made against
// (by git diff --binary, see testdata/all.patch).
var patchHead = map[string]fakeFile{
	"cart_test.go":   {ModeFile, "package cart\n\nfunc TestA(t *testing.T) {\n\tif 1 != 1 {\n\t\tt.Fatal(\"x\")\n\t}\n}\n"},
	"old_test.go":    {ModeFile, "old\n"},
	"noeol_test.go":  {ModeFile, "keep"},
	"a_test.go":      {ModeFile, "move me\n"},
	"testdata/x.bin": {ModeFile, "\x00\x01\x02bin"},
	"run_test.sh":    {ModeFile, "#!/bin/sh\n"},
	"link":           {ModeSymlink, "cart_test.go"},
}

// change is what a test compares of a guard.Change.
type change struct {
	Path               string
	Old, New           string
	OldExists, NewExst bool
	OldMode, NewMode   string
}

func changesOf(cs []guard.Change) []change {
	var out []change
	for _, c := range cs {
		out = append(out, change{c.Path, string(c.Old), string(c.New), c.OldExists, c.NewExists, c.OldMode, c.NewMode})
	}
	return out
}

func applyText(t *testing.T, files map[string]fakeFile, patch string) (*Snapshot, error) {
	t.Helper()
	f := newFakeGit()
	head := f.seed("feature", files)
	p, err := ReadPatch("gcloop-changes.patch", strings.NewReader(patch), PatchLimits{})
	if err != nil {
		return nil, err
	}
	return ApplyPatch(context.Background(), f, f, "o", "r", head, p)
}

func TestApplyPatchOfEveryKindOfChange(t *testing.T) {
	t.Parallel()
	all, err := os.ReadFile("testdata/all.patch")
	if err != nil {
		t.Fatal(err)
	}
	s, err := applyText(t, patchHead, string(all))
	if err != nil {
		t.Fatal(err)
	}
	cart := patchHead["cart_test.go"].content
	want := []change{
		{"a_test.go", "move me\n", "", true, false, ModeFile, ""}, // renamed away
		{"b_test.go", "", "move me\n", false, true, "", ModeFile}, // renamed to, content kept
		{"cart_test.go", cart, cart + "\nfunc TestB(t *testing.T) {}\n", true, true, ModeFile, ModeFile},
		{"new_test.go", "", "package cart\n\nfunc TestNew(t *testing.T) {}\n", false, true, "", ModeFile},
		{"noeol_test.go", "keep", "keep\nmore", true, true, ModeFile, ModeFile}, // no newline at the end, both sides
		{"old_test.go", "old\n", "", true, false, ModeFile, ""},
		{"run_test.sh", "#!/bin/sh\n", "#!/bin/sh\n", true, true, ModeFile, ModeExecutable}, // a mode change alone
		{"testdata/x.bin", "\x00\x01\x02bin", "\x00\x01\x02bin2\xff", true, true, ModeFile, ModeFile},
	}
	if diff := cmp.Diff(want, changesOf(s.Changes)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if s.Modes["run_test.sh"] != ModeExecutable || s.Modes["old_test.go"] != ModeFile || s.Modes["new_test.go"] != ModeFile {
		t.Errorf("modes %v", s.Modes)
	}
	if len(s.Unpushable) != 0 {
		t.Errorf("unpushable %v, want none", s.Unpushable)
	}
	// The guard judges the result as it judges a workspace: the mode
	// change and the binary file are refused, the rest is test-only.
	g := guard.Check(s.Changes, nil, nil, guard.Metrics{}, guard.Options{})
	kinds := map[string]bool{}
	for _, v := range g.Violations {
		kinds[v.Kind+" "+v.File] = true
	}
	for _, k := range []string{"file_mode run_test.sh", "binary_file testdata/x.bin"} {
		if !kinds[k] {
			t.Errorf("guard violations %v, want %q among them", g.Violations, k)
		}
	}
}

func TestApplyPatchIsExactOrAConflict(t *testing.T) {
	t.Parallel()
	cart := patchHead["cart_test.go"].content
	tests := []struct {
		name  string
		files map[string]fakeFile
		patch string
		want  error
		say   string
	}{
		{"context differs", map[string]fakeFile{"cart_test.go": {ModeFile, strings.Replace(cart, `"x"`, `"y"`, 1)}},
			"diff --git a/cart_test.go b/cart_test.go\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -5,3 +5,5 @@ func TestA(t *testing.T) {\n \t\tt.Fatal(\"x\")\n \t}\n }\n+\n+func TestB(t *testing.T) {}\n",
			ErrConflict, "hunk 1"},
		{"hunk at another line (no offset is tried)", map[string]fakeFile{"cart_test.go": {ModeFile, "// one more line\n" + cart}},
			"diff --git a/cart_test.go b/cart_test.go\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -5,3 +5,5 @@ func TestA(t *testing.T) {\n \t\tt.Fatal(\"x\")\n \t}\n }\n+\n+func TestB(t *testing.T) {}\n",
			ErrConflict, "hunk 1"},
		{"index names another blob", patchHead,
			"diff --git a/cart_test.go b/cart_test.go\nindex 1234567..a8a2e36 100644\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -5,3 +5,5 @@ func TestA(t *testing.T) {\n \t\tt.Fatal(\"x\")\n \t}\n }\n+\n+func TestB(t *testing.T) {}\n",
			ErrConflict, "made against blob 1234567"},
		{"result is not the blob the index names", patchHead,
			"diff --git a/cart_test.go b/cart_test.go\nindex 336096d..1234567 100644\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -5,3 +5,5 @@ func TestA(t *testing.T) {\n \t\tt.Fatal(\"x\")\n \t}\n }\n+\n+func TestB(t *testing.T) {}\n",
			ErrConflict, "index line says 1234567"},
		{"new file exists", patchHead,
			"diff --git a/old_test.go b/old_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/old_test.go\n@@ -0,0 +1 @@\n+x\n",
			ErrConflict, "already in the head commit's tree"},
		{"new file where the tree has a directory", patchHead,
			"diff --git a/testdata b/testdata\nnew file mode 100644\n--- /dev/null\n+++ b/testdata\n@@ -0,0 +1 @@\n+x\n",
			ErrConflict, "testdata is a directory in the head commit's tree"},
		{"new file below a file of the tree", patchHead,
			"diff --git a/cart_test.go/x_test.go b/cart_test.go/x_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/cart_test.go/x_test.go\n@@ -0,0 +1 @@\n+x\n",
			ErrConflict, "lies under cart_test.go, a file in the head commit's tree"},
		{"changed file missing", map[string]fakeFile{"other.go": {ModeFile, "x\n"}},
			"diff --git a/cart_test.go b/cart_test.go\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -1 +1 @@\n-a\n+b\n",
			ErrConflict, "not in the head commit's tree"},
		{"deleted file holds other lines", patchHead,
			"diff --git a/old_test.go b/old_test.go\ndeleted file mode 100644\n--- a/old_test.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-new\n",
			ErrConflict, "old_test.go"},
		{"mode differs", patchHead,
			"diff --git a/run_test.sh b/run_test.sh\nold mode 100755\nnew mode 100644\n",
			ErrConflict, "mode 100644 in the head commit"},
		{"binary onto other bytes", map[string]fakeFile{"testdata/x.bin": {ModeFile, "\x00other"}},
			"diff --git a/testdata/x.bin b/testdata/x.bin\nindex 677273046bce3115f56c248238f3b83f77cfc239..943242d65e5068bdcc2623d87a51cd08371aa827 100644\nGIT binary patch\nliteral 8\nPcmZQzWJ=1+Gx`qz237)Y\n\nliteral 6\nNcmZQzWJ=1+0{{Yf0X+Z!\n\n",
			ErrConflict, "testdata/x.bin"},
		{"binary without data", patchHead,
			"diff --git a/testdata/x.bin b/testdata/x.bin\nindex 6772730..943242d 100644\nBinary files a/testdata/x.bin and b/testdata/x.bin differ\n",
			ErrPatch, "git diff --binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := applyText(t, tt.files, tt.patch)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) || !strings.HasPrefix(err.Error(), "gcloop-changes.patch: ") {
				t.Fatalf("error %v, want %v saying %q and naming the patch", err, tt.want, tt.say)
			}
		})
	}
}

func TestApplyPatchSymlinksAndSubmodulesAreUnpushable(t *testing.T) {
	t.Parallel()
	s, err := applyText(t, patchHead, "diff --git a/link b/link\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-cart_test.go\n\\ No newline at end of file\n+../../etc/passwd\n\\ No newline at end of file\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Unpushable) != 1 || s.Unpushable[0].Path != "link" {
		t.Fatalf("unpushable %v, want the link", s.Unpushable)
	}
	if g := guard.Check(s.Changes, nil, nil, guard.Metrics{}, guard.Options{}); g.OK() {
		t.Errorf("the guard accepted a changed symbolic link")
	}
}

// The patch the documented workflow makes: git add --all --intent-to-add,
// then git diff --binary HEAD; new files come as additions, a new binary
// file as a literal.
func TestApplyPatchOfTheDocumentedWorkflow(t *testing.T) {
	t.Parallel()
	patch, err := os.ReadFile("testdata/intent-to-add.patch")
	if err != nil {
		t.Fatal(err)
	}
	s, err := applyText(t, map[string]fakeFile{"a_test.go": {ModeFile, "a\n"}}, string(patch))
	if err != nil {
		t.Fatal(err)
	}
	want := []change{
		{"a_test.go", "a\n", "a\nb\n", true, true, ModeFile, ModeFile},
		{"new_test.go", "", "n\n", false, true, "", ModeFile},
		{"sub/x.bin", "", "\x00bin", false, true, "", ModeFile},
	}
	if diff := cmp.Diff(want, changesOf(s.Changes)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

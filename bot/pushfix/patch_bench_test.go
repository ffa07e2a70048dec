package pushfix

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchPatch is a generator's patch of files test files: each modified
// file gains a test of lines lines after its first line, and as many new
// files are added.
func benchPatch(files, lines int) (string, map[string]fakeFile) {
	var b strings.Builder
	head := map[string]fakeFile{}
	for i := 0; i < files; i++ {
		name := fmt.Sprintf("pkg%d/x_test.go", i)
		old := "package pkg\n\nimport \"testing\"\n"
		head[name] = fakeFile{ModeFile, old}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,3 +1,%d @@\n package pkg\n \n import \"testing\"\n", name, name, name, name, 3+lines+2)
		fmt.Fprintf(&b, "+\n+func TestX%d(t *testing.T) {\n", i)
		for j := 0; j < lines; j++ {
			fmt.Fprintf(&b, "+\tif got := %d; got != %d {\n", j, j)
		}
		// Close the function without balancing: content is not judged here.
		nn := fmt.Sprintf("pkg%d/new_test.go", i)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", nn, nn, nn, lines)
		for j := 0; j < lines; j++ {
			fmt.Fprintf(&b, "+// line %d of a new test file\n", j)
		}
	}
	return b.String(), head
}

// BenchmarkReadPatch: parsing a patch of 100 modified and 100 new files
// of 200 lines each (about 1 MB).
func BenchmarkReadPatch(b *testing.B) {
	text, _ := benchPatch(100, 200)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadPatch("bench.patch", strings.NewReader(text), PatchLimits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyPatch: reading the same patch and applying it to the
// head's tree in memory, the old contents from an in-memory Git.
func BenchmarkApplyPatch(b *testing.B) {
	text, files := benchPatch(100, 200)
	f := newFakeGit()
	head := f.seed("feature", files)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := ReadPatch("bench.patch", strings.NewReader(text), PatchLimits{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := ApplyPatch(context.Background(), f, f, "o", "r", head, p)
		if err != nil || len(s.Changes) != 200 {
			b.Fatalf("%v, %d changes", err, len(s.Changes))
		}
	}
}

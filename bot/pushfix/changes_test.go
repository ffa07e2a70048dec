package pushfix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/coverage/guard"
)

// checkout writes files into a new workspace directory like a checkout:
// 100755 files executable, 120000 entries as symbolic links, 160000 as an
// empty directory, plus a .git directory.
func checkout(t *testing.T, files map[string]fakeFile) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, ".git/config", "[core]\n", 0o644)
	write(t, dir, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	for p, f := range files {
		switch f.mode {
		case ModeSymlink:
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(f.content, full); err != nil {
				t.Fatal(err)
			}
		case ModeSubmodule:
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
				t.Fatal(err)
			}
		case ModeExecutable:
			write(t, dir, p, f.content, 0o755)
		default:
			write(t, dir, p, f.content, 0o644)
		}
	}
	return dir
}

func write(t *testing.T, dir, p, content string, perm os.FileMode) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, perm); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, p string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
		t.Fatal(err)
	}
}

// repoFiles is the head commit of the scan tests.
func repoFiles() map[string]fakeFile {
	big := strings.Repeat("0123456789abcdef", 200) // over the fake's content limit below
	return map[string]fakeFile{
		".gitignore":              {ModeFile, "# build output\n*.out\n!keep.out\n/build/\nnode_modules/\n"},
		"go.mod":                  {ModeFile, "module example.com/x\n"},
		"pkg/.gitignore":          {ModeFile, "gen_*.go\n"},
		"pkg/a.go":                {ModeFile, "package pkg\n\nfunc A() int { return 1 }\n"},
		"pkg/a_test.go":           {ModeFile, "package pkg\n\nfunc TestA(t *testing.T) {}\n"},
		"pkg/testdata/big.golden": {ModeFile, big},
		"pkg/testdata/img.bin":    {ModeFile, "\x89PNG\x00\x01\x02"},
		"scripts/run.sh":          {ModeExecutable, "#!/bin/sh\necho run\n"},
		"docs/old.md":             {ModeFile, "# old\n"},
		"build/tracked.txt":       {ModeFile, "tracked in an ignored directory\n"},
		"link":                    {ModeSymlink, "pkg/a.go"},
		"third_party/sub":         {ModeSubmodule, "1111111111111111111111111111111111111111"},
		"hidden/tracked.txt":      {ModeFile, "hidden by Workspace.Ignore\n"},
	}
}

func TestScanFindsModifiedAddedAndDeletedFiles(t *testing.T) {
	t.Parallel()
	for _, truncated := range []bool{false, true} {
		name := "complete tree listing"
		if truncated {
			name = "truncated tree listing walked one tree at a time"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGit()
			f.truncate = truncated
			f.contentLimit = 1000
			files := repoFiles()
			head := f.seed("feature/x", files)
			dir := checkout(t, files)

			// The generator's work.
			write(t, dir, "pkg/a_test.go", "package pkg\n\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n", 0o644)
			write(t, dir, "pkg/b_test.go", "package pkg\n", 0o644)
			write(t, dir, "tools/gen.sh", "#!/bin/sh\n", 0o755)
			write(t, dir, "scripts/run.sh", "#!/bin/sh\necho run fast\n", 0o644) // lost its x bit: the tree's mode stays
			write(t, dir, "pkg/testdata/big.golden", files["pkg/testdata/big.golden"].content+"more\n", 0o644)
			write(t, dir, "pkg/testdata/img.bin", "\x89PNG\x00\x01\x03", 0o644)
			write(t, dir, "build/tracked.txt", "changed\n", 0o644)
			remove(t, dir, "docs/old.md")
			// Ignored or hidden: none of these is a change.
			write(t, dir, "coverage.out", "mode: set\n", 0o644)
			write(t, dir, "pkg/sub/c.out", "x\n", 0o644)
			write(t, dir, "build/new.txt", "ignored\n", 0o644)
			write(t, dir, "pkg/gen_x.go", "package pkg\n", 0o644)
			write(t, dir, "web/node_modules/m/index.js", "x\n", 0o644)
			write(t, dir, ".git/index", "binary\n", 0o644)
			write(t, dir, "third_party/sub/file.c", "inside a submodule\n", 0o644)
			write(t, dir, "nested/.git/HEAD", "ref: refs/heads/main\n", 0o644)
			write(t, dir, "nested/x.go", "package nested\n", 0o644)
			write(t, dir, "gcloop-report.md", "written by the action\n", 0o644)
			// Negated: not ignored.
			write(t, dir, "keep.out", "kept\n", 0o644)

			write(t, dir, "gcloop-out/evidence/coverage.json", "{}\n", 0o644)
			remove(t, dir, "hidden/tracked.txt") // hidden by Ignore: not a deletion
			ws := Workspace{Dir: dir, Ignore: func(p string) bool { return p == "gcloop-report.md" || p == "gcloop-out" || p == "hidden" }}
			s, err := Scan(context.Background(), f, f, "o", "r", head, ws)
			if err != nil {
				t.Fatal(err)
			}
			want := []guard.Change{
				{Path: "build/tracked.txt", Old: []byte(files["build/tracked.txt"].content), New: []byte("changed\n"), OldExists: true, NewExists: true, OldMode: ModeFile, NewMode: ModeFile},
				{Path: "docs/old.md", Old: []byte("# old\n"), OldExists: true, OldMode: ModeFile},
				{Path: "keep.out", New: []byte("kept\n"), NewExists: true, NewMode: ModeFile},
				{Path: "pkg/a_test.go", Old: []byte(files["pkg/a_test.go"].content), New: []byte("package pkg\n\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n"), OldExists: true, NewExists: true, OldMode: ModeFile, NewMode: ModeFile},
				{Path: "pkg/b_test.go", New: []byte("package pkg\n"), NewExists: true, NewMode: ModeFile},
				{Path: "pkg/testdata/big.golden", Old: []byte(files["pkg/testdata/big.golden"].content), New: []byte(files["pkg/testdata/big.golden"].content + "more\n"), OldExists: true, NewExists: true, OldMode: ModeFile, NewMode: ModeFile},
				{Path: "pkg/testdata/img.bin", Old: []byte("\x89PNG\x00\x01\x02"), New: []byte("\x89PNG\x00\x01\x03"), OldExists: true, NewExists: true, OldMode: ModeFile, NewMode: ModeFile},
				{Path: "scripts/run.sh", Old: []byte("#!/bin/sh\necho run\n"), New: []byte("#!/bin/sh\necho run fast\n"), OldExists: true, NewExists: true, OldMode: ModeExecutable, NewMode: ModeFile},
				{Path: "tools/gen.sh", New: []byte("#!/bin/sh\n"), NewExists: true, NewMode: ModeExecutable},
			}
			if diff := cmp.Diff(want, s.Changes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			wantModes := map[string]string{
				"build/tracked.txt": ModeFile, "docs/old.md": ModeFile, "keep.out": ModeFile, "pkg/a_test.go": ModeFile,
				"pkg/b_test.go": ModeFile, "pkg/testdata/big.golden": ModeFile, "pkg/testdata/img.bin": ModeFile,
				"scripts/run.sh": ModeExecutable, "tools/gen.sh": ModeExecutable,
			}
			if diff := cmp.Diff(wantModes, s.Modes); diff != "" {
				t.Errorf("modes (-want +got):\n%s", diff)
			}
			if len(s.Unpushable) != 0 {
				t.Errorf("unpushable = %v, want none", s.Unpushable)
			}
			wantNotes := []string{"nested: a nested Git repository, not compared", "third_party/sub: a submodule, not compared"}
			if diff := cmp.Diff(wantNotes, s.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if s.HeadSHA != head || s.BaseTree != f.commits[head].tree {
				t.Errorf("head, base tree = %s, %s; want %s, %s", s.HeadSHA, s.BaseTree, head, f.commits[head].tree)
			}
			walked := 0
			for _, c := range f.calls {
				if strings.HasPrefix(c, "GetTree ") && strings.HasSuffix(c, " false") {
					walked++
				}
			}
			if truncated && walked != 8 || !truncated && walked != 0 {
				t.Errorf("non-recursive GetTree calls = %d, want 8 (one per tree) when truncated, 0 otherwise", walked)
			}
			downloads := 0
			for _, m := range f.methods() {
				if m == "DownloadContents" {
					downloads++
				}
			}
			if downloads != 1 {
				t.Errorf("DownloadContents called %d times, want once (for the file over the content limit)", downloads)
			}
		})
	}
}

func TestScanReportsSymbolicLinksAsUnpushable(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	files := map[string]fakeFile{
		"testdata/link": {ModeSymlink, "../a.txt"},
		"a.txt":         {ModeFile, "a\n"},
	}
	head := f.seed("main", files)
	dir := checkout(t, files)
	remove(t, dir, "testdata/link")
	if err := os.Symlink("../b.txt", filepath.Join(dir, "testdata/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "testdata/new_link")); err != nil {
		t.Fatal(err)
	}
	s, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []guard.Change{
		{Path: "testdata/link", Old: []byte("../a.txt"), New: []byte("../b.txt"), OldExists: true, NewExists: true, OldMode: ModeSymlink, NewMode: ModeSymlink},
		{Path: "testdata/new_link", New: []byte("a.txt"), NewExists: true, NewMode: ModeSymlink},
	}
	if diff := cmp.Diff(want, s.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	wantUnpushable := []Unpushable{
		{"testdata/link", "a symbolic link changed; symbolic links are never pushed"},
		{"testdata/new_link", "a symbolic link added; symbolic links are never pushed"},
	}
	if diff := cmp.Diff(wantUnpushable, s.Unpushable); diff != "" {
		t.Errorf("unpushable (-want +got):\n%s", diff)
	}
	if s.Modes["testdata/link"] != ModeSymlink || s.Modes["testdata/new_link"] != ModeSymlink {
		t.Errorf("modes = %v, want 120000 for both links", s.Modes)
	}
}

func TestScanReportsAnUnchangedWorkspaceAsNoChange(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	files := repoFiles()
	head := f.seed("main", files)
	dir := checkout(t, files)
	cs, err := Changes(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("changes = %+v, want none", cs)
	}
	for _, m := range f.methods() {
		if m == "GetContents" || m == "DownloadContents" {
			t.Errorf("called %s for an unchanged workspace", m)
		}
	}
}

func TestScanMarksAGitLFSPointerReplacedByItsContentUnpushable(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	ptr := lfsPointer + "oid sha256:4d7a\nsize 12345\n"
	files := map[string]fakeFile{"testdata/model.bin": {ModeFile, ptr}}
	head := f.seed("main", files)
	dir := checkout(t, files)
	write(t, dir, "testdata/model.bin", "\x00real content", 0o644)
	s, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Unpushable) != 1 || s.Unpushable[0].Path != "testdata/model.bin" || !strings.Contains(s.Unpushable[0].Reason, "LFS") {
		t.Errorf("unpushable = %+v, want the LFS pointer", s.Unpushable)
	}
}

func TestScanFailsWhenTheOldContentDoesNotMatchItsBlobID(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	files := map[string]fakeFile{"a_test.go": {ModeFile, "package a\n"}}
	head := f.seed("main", files)
	dir := checkout(t, files)
	write(t, dir, "a_test.go", "package a // changed\n", 0o644)
	// Corrupt the stored blob: the contents API now answers other bytes.
	for sha := range f.blobs {
		f.blobs[sha] = []byte("tampered\n")
	}
	_, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "expected "+gitBlobID([]byte("package a\n"))) {
		t.Errorf("err = %v, want a blob id mismatch", err)
	}
}

func TestScanWrapsGitHubErrors(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	_, err := Scan(context.Background(), f, f, "o", "r", strings.Repeat("a", 40), Workspace{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "get head commit") {
		t.Fatalf("err = %v, want a failed head commit lookup", err)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("err = %v, want it to wrap GitHub's 404", err)
	}
}

func TestScanRejectsUnsafeTreePaths(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"../x", "a/../../x", ".git/config", "a/.GIT/hooks/pre-commit", "a//b"} {
		if safePath(p) {
			t.Errorf("safePath(%q) = true, want false", p)
		}
	}
	for _, p := range []string{"a", "a/b.go", "a..b/c", ".gitignore", ".github/x"} {
		if !safePath(p) {
			t.Errorf("safePath(%q) = false, want true", p)
		}
	}
}

func TestScanReportsAModeChangeAloneAndThePlanRefusesIt(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	files := map[string]fakeFile{"a_test.go": {ModeFile, "package a\n"}}
	head := f.seed("main", files)
	dir := checkout(t, files)
	write(t, dir, "a_test.go", "package a\n", 0o755)
	s, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []guard.Change{{Path: "a_test.go", Old: []byte("package a\n"), New: []byte("package a\n"), OldExists: true, NewExists: true, OldMode: ModeFile, NewMode: ModeExecutable}}
	if diff := cmp.Diff(want, s.Changes); diff != "" {
		t.Fatalf("changes (-want +got):\n%s", diff)
	}
	p := Plan(s.Changes, nil, nil, guard.Metrics{}, guard.Options{})
	if len(p.Accepted) != 0 || len(p.Reverted) != 1 || p.Guard.Violations[0].Kind != guard.FileMode {
		t.Errorf("plan = %+v, want the mode change refused as file_mode", p)
	}
}

func TestScanRefusesANonUTF8Path(t *testing.T) {
	t.Parallel()
	f := newFakeGit()
	files := map[string]fakeFile{"a_test.go": {ModeFile, "package a\n"}}
	head := f.seed("main", files)
	dir := checkout(t, files)
	write(t, dir, "pk\xfcg/new_test.go", "x\n", 0o644)
	_, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `workspace path "pk\xfcg" is not valid UTF-8`) {
		t.Errorf("err = %v, want the path named as not UTF-8", err)
	}
}

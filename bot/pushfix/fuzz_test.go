package pushfix

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gcloop/gcloop/coverage/guard"
)

// FuzzScan builds a change set from a workspace the generator changed
// arbitrarily: a file of the head commit rewritten, a new file at an
// arbitrary path (with an arbitrary .gitignore beside it), the executable
// bit flipped. Properties: no panic; every change's path is safe and the
// changes are in path order; a change changes something; a rewritten
// tracked file shows its old and new content; Plan then judges it without
// panicking.
func FuzzScan(f *testing.F) {
	f.Add("pkg/a_test.go", []byte("package pkg\n\nfunc TestB(t *testing.T) {}\n"), "pkg/new_test.go", []byte("x\n"), []byte("*.out\n"), false)
	f.Add("docs/old.md", []byte("\x00binary"), "a b/ü.txt", []byte(""), []byte("!keep\n/a b\n"), true)
	f.Add("scripts/run.sh", []byte("#!/bin/sh\necho run\n"), ".gitignore", []byte("**\n"), []byte("[\n"), true)
	f.Fuzz(func(t *testing.T, tracked string, content []byte, newPath string, newContent, ignore []byte, flip bool) {
		files := repoFiles()
		if _, ok := files[tracked]; !ok || files[tracked].mode == ModeSubmodule || files[tracked].mode == ModeSymlink {
			return
		}
		if !safePath(newPath) || len(newPath) > 200 || strings.ContainsAny(newPath, "\\\x00") || strings.Contains(newPath, "//") {
			return
		}
		if !utf8.ValidString(newPath) {
			// Refused with an error naming the path (TestScanRefusesANonUTF8Path).
			return
		}
		fg := newFakeGit()
		head := fg.seed("main", files)
		dir := checkout(t, files)
		mode := os.FileMode(0o644)
		if files[tracked].mode == ModeExecutable != flip {
			mode = 0o755
		}
		write(t, dir, tracked, string(content), mode)
		full := filepath.Join(dir, filepath.FromSlash(newPath))
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			return // a directory of the checkout
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return // a file of the checkout on the way
		}
		if err := os.WriteFile(full, newContent, 0o644); err != nil {
			return
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Dir(filepath.FromSlash(newPath)), ".gitignore"), ignore, 0o644); err != nil {
			return
		}
		s, err := Scan(context.Background(), fg, fg, "o", "r", head, Workspace{Dir: dir})
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if !sort.SliceIsSorted(s.Changes, func(i, j int) bool { return s.Changes[i].Path < s.Changes[j].Path }) {
			t.Fatalf("changes not in path order")
		}
		for _, c := range s.Changes {
			if !safePath(c.Path) {
				t.Fatalf("unsafe path %q", c.Path)
			}
			if c.Same() {
				t.Fatalf("change %s changes nothing", c.Path)
			}
			if c.Path == tracked {
				if !c.OldExists || !c.NewExists || !bytes.Equal(c.New, content) || string(c.Old) != files[tracked].content {
					t.Fatalf("tracked %s: old %q new %q, want %q -> %q", c.Path, c.Old, c.New, files[tracked].content, content)
				}
			}
		}
		p := Plan(s.Changes, nil, nil, guard.Metrics{}, guard.Options{})
		if !p.Guard.OK() && len(p.Accepted) != 0 {
			t.Fatalf("a refused plan accepts %d changes", len(p.Accepted))
		}
	})
}

// FuzzApplyPatch reads any bytes as a patch and applies what it reads to
// a small tree in memory: no input may crash the reader or the apply, and
// whatever applies changes only clean paths, each once.
func FuzzApplyPatch(f *testing.F) {
	if all, err := os.ReadFile("testdata/all.patch"); err == nil {
		f.Add(all)
	}
	f.Add([]byte("diff --git a/a_test.go b/a_test.go\n--- a/a_test.go\n+++ b/a_test.go\n@@ -1 +1,2 @@\n x\n+y\n"))
	f.Add([]byte("diff --git a/a_test.go b/c_test.go\nsimilarity index 100%\nrename from a_test.go\nrename to c_test.go\n"))
	f.Add([]byte("diff --git a/x.bin b/x.bin\nGIT binary patch\nliteral 6\nNcmZQzWJ=1+0{{Yf0X+Z!\n\nliteral 0\nHcmV?d00001\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadPatch("fuzz.patch", bytes.NewReader(data), PatchLimits{MaxBytes: 1 << 16, MaxFiles: 20})
		if err != nil {
			if !errors.Is(err, ErrPatch) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line wrapping ErrPatch", err)
			}
			return
		}
		tree := map[string]treeFile{
			"a_test.go": {mode: ModeFile, sha: BlobID([]byte("x\n"))},
			"x.bin":     {mode: ModeFile, sha: BlobID([]byte("\x00\x01\x02bin"))},
		}
		content := map[string][]byte{"a_test.go": []byte("x\n"), "x.bin": []byte("\x00\x01\x02bin")}
		a := applier{tree: tree, dirs: treeDirs(tree), old: func(p string, _ treeFile) ([]byte, error) { return content[p], nil }}
		seen := map[string]bool{}
		for _, file := range p.Files {
			cs, err := a.file(file)
			if err != nil {
				if !errors.Is(err, ErrConflict) && !errors.Is(err, ErrPatch) {
					t.Fatalf("apply %s: %v: want ErrConflict or ErrPatch", fileName(file), err)
				}
				continue
			}
			for _, c := range cs {
				if !safePath(c.Path) || seen[c.Path] {
					t.Fatalf("change of %q: unsafe or twice", c.Path)
				}
				seen[c.Path] = true
			}
		}
	})
}

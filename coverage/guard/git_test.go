package guard

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitRun runs git in dir with a fixed identity, failing the test on error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// writeFiles writes files (slash paths relative to dir); a nil-like value
// "<delete>" removes the file.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if c == "<delete>" {
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newRepo makes a repository with one commit of files.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q")
	writeFiles(t, dir, files)
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "base")
	return dir
}

// summary renders changes compactly for comparison.
type changeSummary struct {
	Path                 string
	Old, New             string
	OldExists, NewExists bool
}

func summarize(cs []Change) []changeSummary {
	var out []changeSummary
	for _, c := range cs {
		out = append(out, changeSummary{c.Path, string(c.Old), string(c.New), c.OldExists, c.NewExists})
	}
	return out
}

func TestFromGit(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{
		".gitignore":     "*.out\n",
		"a.go":           "package a\n",
		"a_test.go":      "package a\n",
		"gone.go":        "package a\n",
		"sub/keep.txt":   "keep\n",
		"sub/staged.txt": "old\n",
	})
	writeFiles(t, dir, map[string]string{
		"a_test.go":             "package a\n\nfunc TestA(t *testing.T) {}\n",
		"gone.go":               "<delete>",
		"new_test.go":           "package a\n",
		"sub/testdata/x.json":   "{}\n",
		"cover.out":             "mode: set\n",
		"sub/staged.txt":        "new\n",
		"name with space.txt":   "x\n",
		"sub/\u00e9t\u00e9.txt": "summer\n",
	})
	gitRun(t, dir, "add", "sub/staged.txt")

	got, err := FromGit(context.Background(), filepath.Join(dir, "sub"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []changeSummary{
		{Path: "a_test.go", Old: "package a\n", New: "package a\n\nfunc TestA(t *testing.T) {}\n", OldExists: true, NewExists: true},
		{Path: "gone.go", Old: "package a\n", OldExists: true},
		{Path: "name with space.txt", New: "x\n", NewExists: true},
		{Path: "new_test.go", New: "package a\n", NewExists: true},
		{Path: "sub/staged.txt", Old: "old\n", New: "new\n", OldExists: true, NewExists: true},
		{Path: "sub/testdata/x.json", New: "{}\n", NewExists: true},
		{Path: "sub/\u00e9t\u00e9.txt", New: "summer\n", NewExists: true},
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestFromGitAgainstAnOlderBase(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "v1\n"})
	writeFiles(t, dir, map[string]string{"a.go": "v2\n"})
	gitRun(t, dir, "commit", "-q", "-am", "second")
	got, err := FromGit(context.Background(), dir, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	want := []changeSummary{{Path: "a.go", Old: "v1\n", New: "v2\n", OldExists: true, NewExists: true}}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// Against HEAD nothing changed.
	got, err = FromGit(context.Background(), dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("changes against HEAD = %v, want none", summarize(got))
	}
}

func TestFromGitErrors(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a": "a\n"})
	empty := t.TempDir()
	gitRun(t, empty, "init", "-q")
	tests := []struct {
		name    string
		dir     string
		base    string
		wantErr string
	}{
		{"an unknown base names the revision", repo, "nope", `git rev-parse --verify: "nope" is not a commit`},
		{"a base that looks like an option is refused", repo, "--output=x", `invalid revision "--output=x"`},
		{"a repository without commits has no HEAD", empty, "", `git rev-parse --verify: "HEAD" is not a commit`},
		{"a directory outside any repository names git's complaint", "/", "", "git rev-parse --show-toplevel: fatal: not a git repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromGit(context.Background(), tt.dir, tt.base)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("FromGit error = %v, want prefix %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans several lines", err)
			}
		})
	}
}

func TestFromGitGivesAGitError(t *testing.T) {
	t.Parallel()
	_, err := FromGit(context.Background(), "/", "")
	var ge *GitError
	if !errors.As(err, &ge) || ge.Command != "git rev-parse --show-toplevel" {
		t.Fatalf("error %v is not a *GitError for rev-parse", err)
	}
}

func TestFromTrees(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "v1\n", "b.go": "b\n"})
	from := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD^{tree}"))
	writeFiles(t, dir, map[string]string{"a.go": "v2\n", "b.go": "<delete>", "c_test.go": "c\n"})
	gitRun(t, dir, "add", "-A")
	to := strings.TrimSpace(gitRun(t, dir, "write-tree"))
	got, err := FromTrees(context.Background(), dir, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := []changeSummary{
		{Path: "a.go", Old: "v1\n", New: "v2\n", OldExists: true, NewExists: true},
		{Path: "b.go", Old: "b\n", OldExists: true},
		{Path: "c_test.go", New: "c\n", NewExists: true},
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestFromGitFeedsCheck(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "package a\n", "a_test.go": "package a\n"})
	writeFiles(t, dir, map[string]string{
		"a_test.go":               "package a\n\nfunc TestA(t *testing.T) {\n\tt.Skip()\n}\n",
		".github/workflows/x.yml": "on: push\n",
	})
	cs, err := FromGit(context.Background(), dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	res := Check(cs, nil, nil, improved, Options{})
	var got []string
	for _, v := range res.Violations {
		got = append(got, v.String())
	}
	want := []string{
		".github/workflows/x.yml:1: workflow_file: added under .github/; a coverage round may not touch workflows or repository settings",
		"a_test.go:4: forbidden_marker: added \".Skip(\": t.Skip()",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

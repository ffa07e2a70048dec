package pathmatch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitFiles are .gitignore files by directory, with the rules doublestar
// alone would get wrong: braces and commas, Git's classes, a "]" first in
// a class, escapes, "**" inside a segment, nested negation.
var gitFiles = map[string]string{
	"": "{a,b}.txt\n" +
		"c,d.txt\n" +
		"[]]x\n" +
		"[a-]y\n" +
		"[[:punct:]]p\n" +
		"[[:space:][:digit:]]s\n" +
		"[![:alnum:]]n\n" +
		"\\[lit\\]\n" +
		"q?q\n" +
		"mid/dir/*.log\n" +
		"deep/**/x\n" +
		"only/\n" +
		"w**w\n" +
		"!keep.w\n" +
		"*.w\n",
	"nest": "!*.txt\n/anchored\n",
}

var gitCases = []struct {
	path  string
	isDir bool
	want  bool
}{
	{"{a,b}.txt", false, true},
	{"a.txt", false, false},
	{"c,d.txt", false, true},
	{"]x", false, true},
	{"ax", false, false},
	{"-y", false, true},
	{"ay", false, true},
	{"by", false, false},
	{"!p", false, true},
	{"ap", false, false},
	{"7s", false, true},
	{"as", false, false},
	{"_n", false, true},
	{"an", false, false},
	{"[lit]", false, true},
	{"l", false, false},
	{"qxq", false, true},
	{"qq", false, false},
	{"mid/dir/a.log", false, true},
	{"x/mid/dir/a.log", false, false},
	{"mid/dir/sub/a.log", false, false},
	{"deep/x", false, true},
	{"deep/a/b/x", false, true},
	{"only", true, true},
	{"x/only", false, false},
	{"only/f", false, true},
	{"wxw", false, true},
	{"w/w", false, false},
	{"a.w", false, true},
	{"keep.w", false, true}, // the later "*.w" wins over "!keep.w"
	{"nest/{a,b}.txt", false, false},
	{"nest/anchored", false, true},
	{"nest/x/anchored", false, false},
	{"nest/sub/{a,b}.txt", false, false},
}

func TestGitignoreCases(t *testing.T) {
	t.Parallel()
	var g Gitignore
	for dir, content := range gitFiles {
		g.Add(dir, []byte(content))
	}
	for _, tt := range gitCases {
		if got := g.Ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

// TestGitignoreCasesAgreeWithGitCheckIgnore asks git check-ignore the
// same table, when git is installed.
func TestGitignoreCasesAgreeWithGitCheckIgnore(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) error {
		cmd := exec.Command(gitBin, append([]string{"-C", dir, "-c", "core.excludesFile=/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		return cmd.Run()
	}
	if err := git("init", "-q"); err != nil {
		t.Fatalf("git init: %v", err)
	}
	for d, content := range gitFiles {
		write(t, filepath.Join(dir, filepath.FromSlash(d), ".gitignore"), content)
	}
	for _, tt := range gitCases {
		p := filepath.Join(dir, filepath.FromSlash(tt.path))
		if tt.isDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(p); err == nil {
			continue // a directory of another case
		}
		write(t, p, "")
	}
	for _, tt := range gitCases {
		err := git("check-ignore", "-q", "--", tt.path)
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %q: %v", tt.path, err)
		}
		if got := err == nil; got != tt.want {
			t.Errorf("git check-ignore %q = %v, table says %v", tt.path, got, tt.want)
		}
	}
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExcludedLeavesParentsOut(t *testing.T) {
	t.Parallel()
	var g Gitignore
	g.Add("", []byte("build/\n"))
	if g.Excluded("build/x", false) {
		t.Error(`Excluded("build/x") looked at its parent`)
	}
	if !g.Ignored("build/x", false) || !g.Excluded("build", true) {
		t.Error("build/ not applied")
	}
	var none *Gitignore
	if none.Excluded("a", false) || none.Ignored("a", true) {
		t.Error("a nil Gitignore excluded a path")
	}
}

// FuzzGitignore: any rules and any path, without panicking.
func FuzzGitignore(f *testing.F) {
	f.Add(gitFiles[""], "a/b/c.txt", false)
	f.Add("**/x/**\n![a-\n[[:alpha:]", "x/y", true)
	f.Fuzz(func(t *testing.T, rules, name string, isDir bool) {
		var g Gitignore
		g.Add("", []byte(rules))
		g.Add("a", []byte(rules))
		g.AddExclude([]byte(rules))
		g.Ignored(name, isDir)
	})
}

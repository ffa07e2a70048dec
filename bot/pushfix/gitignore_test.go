package pushfix

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var ignoreFiles = map[string]string{
	"": "# comment\n" +
		"*.log\n" +
		"!important.log\n" +
		"/build/\n" +
		"!/build/keep.txt\n" +
		"doc/*.txt\n" +
		"**/tmp\n" +
		"foo/**/bar\n" +
		"logs/**\n" +
		"\\#hash\n" +
		"\\!bang\n" +
		"trailing\\ \n" +
		"[abc].cls\n" +
		"[!x]y.z\n" +
		"*.o   \n" +
		"node_modules/\n" +
		"[[:digit:]][[:upper:]].d\r\n" +
		"a**b.c\n" +
		"\n",
	"sub": "*.gen\n!keep.log\n/local\n",
}

var ignoreCases = []struct {
	path  string
	isDir bool
	want  bool
}{
	{"a.log", false, true},
	{"dir/a.log", false, true},
	{"important.log", false, false},
	{"build", true, true},
	{"build/x", false, true},
	{"build/keep.txt", false, true}, // a parent directory is excluded: no re-inclusion
	{"sub/build/x", false, false},   // "/build/" is anchored
	{"doc/a.txt", false, true},
	{"doc/sub/a.txt", false, false},
	{"x/tmp", false, true},
	{"tmp/y", false, true},
	{"foo/bar", false, true},
	{"foo/a/b/bar", false, true},
	{"logs", true, false}, // "logs/**" matches inside only
	{"logs/a", false, true},
	{"#hash", false, true},
	{"!bang", false, true},
	{"trailing ", false, true},
	{"trailing", false, false},
	{"a.cls", false, true},
	{"d.cls", false, false},
	{"ay.z", false, true},
	{"xy.z", false, false},
	{"k.o", false, true},
	{"web/node_modules/m.js", false, true},
	{"node_modules", false, false}, // a file: "node_modules/" is for directories
	{"sub/keep.log", false, false}, // the deeper file's negation wins
	{"sub/a.log", false, true},
	{"sub/x.gen", false, true},
	{"x.gen", false, false},
	{"sub/local", false, true},
	{"sub/a/local", false, false},
	{"1A.d", false, true},
	{"aA.d", false, false},
	{"axxb.c", false, true},
	{"ax/xb.c", false, false}, // "**" inside a segment is a plain "*"
	{"README.md", false, false},
}

func newIgnore(files map[string]string) *Gitignore {
	var g Gitignore
	for dir, content := range files {
		g.Add(dir, []byte(content))
	}
	return &g
}

func TestGitignoreMatchesLikeGit(t *testing.T) {
	t.Parallel()
	g := newIgnore(ignoreFiles)
	for _, tt := range ignoreCases {
		if got := g.Ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

// The same table, asked of git check-ignore when git is installed.
func TestGitignoreTableAgreesWithGitCheckIgnore(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(gitBin, append([]string{"-C", dir, "-c", "core.excludesFile=/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.Output()
		return string(out), err
	}
	if _, err := run("init", "-q"); err != nil {
		t.Fatalf("git init: %v", err)
	}
	for d, content := range ignoreFiles {
		p := filepath.Join(dir, filepath.FromSlash(d), ".gitignore")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range ignoreCases {
		p := filepath.Join(dir, filepath.FromSlash(tt.path))
		if tt.isDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range ignoreCases {
		out, err := run("check-ignore", "-q", "--", tt.path)
		got := err == nil && out == ""
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %q: %v", tt.path, err)
		}
		if got != tt.want {
			t.Errorf("git check-ignore %q = %v, table says %v", tt.path, got, tt.want)
		}
	}
}

func TestGitignoreExcludeFileIsOverriddenByGitignore(t *testing.T) {
	t.Parallel()
	var g Gitignore
	g.Add("", []byte("!a.tmp\n"))
	g.AddExclude([]byte("*.tmp\n"))
	if g.Ignored("a.tmp", false) {
		t.Error("a.tmp ignored; the .gitignore negation should override .git/info/exclude")
	}
	if !g.Ignored("b.tmp", false) {
		t.Error("b.tmp not ignored; .git/info/exclude says *.tmp")
	}
}

func TestGitignoreZeroValueIgnoresNothing(t *testing.T) {
	t.Parallel()
	var g *Gitignore
	if g.Ignored("a", false) || (&Gitignore{}).Ignored("a/b", true) {
		t.Error("an empty Gitignore ignored a path")
	}
}

func TestMatchSegmentHandlesMalformedClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"[abc", "a", false},
		{"[]]", "]", true},
		{"[!]]", "a", true},
		{"[a-c]x", "bx", true},
		{"[[:nope:]]", "a", false},
		{"a\\", "a", false},
		{"\\*", "*", true},
		{"\\*", "a", false},
		{"*", "", true},
		{"?", "", false},
		{"***", "abc", true},
	}
	for _, tt := range tests {
		if got := matchSegment(tt.pat, tt.name); got != tt.want {
			t.Errorf("matchSegment(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
	if strings.Count(ignoreFiles[""], "\n") < 10 {
		t.Fatal("fixture lost")
	}
}

func FuzzGitignore(f *testing.F) {
	f.Add(ignoreFiles[""], "a/b/c.log", false)
	f.Add("**/x/**\n![a-\n[[:alpha:]", "x/y", true)
	f.Add("\\", "\\", false)
	f.Add("a/**/**/b/**", "a/b/c", false)
	f.Fuzz(func(t *testing.T, rules, name string, isDir bool) {
		var g Gitignore
		g.Add("", []byte(rules))
		g.Add("a", []byte(rules))
		g.AddExclude([]byte(rules))
		g.Ignored(name, isDir)
	})
}

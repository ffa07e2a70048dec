package imagetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ignoreRule is one .dockerignore line.
type ignoreRule struct {
	text   string
	re     *regexp.Regexp
	negate bool
}

// parseDockerignore reads .dockerignore rules the way Docker does: comments
// and blank lines dropped, "!" negates, paths cleaned and relative to the
// context root, "*" and "?" stay within one path element, "**" spans any
// number of them.
func parseDockerignore(t *testing.T, b []byte) []ignoreRule {
	t.Helper()
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{text: line}
		if p, ok := strings.CutPrefix(line, "!"); ok {
			r.negate, line = true, p
		}
		line = strings.TrimPrefix(path.Clean("/"+line), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case strings.HasPrefix(line[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(line[i:], "**"):
				re.WriteString(".*")
				i++
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		rx, err := regexp.Compile(re.String())
		if err != nil {
			t.Fatalf(".dockerignore %q: %v", r.text, err)
		}
		r.re = rx
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether Docker leaves the slash path p out of the build
// context: the last rule that matches p or one of its parent directories
// decides.
func ignored(rules []ignoreRule, p string) bool {
	out := false
	for _, r := range rules {
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if r.re.MatchString(q) {
				out = !r.negate
				break
			}
		}
	}
	return out
}

// buildInputs lists, relative to the module root, every file `go build
// ./cmd/gcloop` reads from this module: go.mod, go.sum, and the Go and
// embedded files of every package of the module the binary depends on.
func buildInputs(t *testing.T) []string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool(t), "list", "-e", "-deps", "-json=ImportPath,Dir,Module,GoFiles,CgoFiles,SFiles,HFiles,EmbedFiles,Error", "./cmd/gcloop")
	cmd.Dir = abs
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./cmd/gcloop: %v\n%s", err, stderr.Bytes())
	}
	files := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath                                    string
			Dir                                           string
			Module                                        *struct{ Main bool }
			GoFiles, CgoFiles, SFiles, HFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		rel, err := filepath.Rel(abs, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.SFiles, p.HFiles, p.EmbedFiles} {
			for _, f := range list {
				files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
			}
		}
	}
	if len(files) < 3 {
		t.Fatalf("go list found no Go file of ./cmd/gcloop")
	}
	return files
}

func TestDockerignoreKeepsEveryFileTheBuildReads(t *testing.T) {
	t.Parallel()
	rules := parseDockerignore(t, readRoot(t, ".dockerignore"))
	for _, f := range buildInputs(t) {
		if ignored(rules, f) {
			t.Errorf("%s is needed by go build ./cmd/gcloop but .dockerignore leaves it out of the image's build context", f)
		}
	}
}

func TestDockerignoreLeavesOutWhatTheBuildDoesNotNeed(t *testing.T) {
	t.Parallel()
	rules := parseDockerignore(t, readRoot(t, ".dockerignore"))
	for _, f := range []string{
		".git/HEAD",
		".git/objects/pack/pack-1.pack",
		".github/workflows/ci.yml",
		"testdata/examples/review/review-results.json",
		"decide/testdata/fuzz/FuzzReadSARIF/0123abcd",
		"decide/decide_test.go",
		"decide.test",
		"web/node_modules/x/index.js",
		"coverage.out",
		"docs/design.md",
		"README.md",
	} {
		if !ignored(rules, f) {
			t.Errorf("%s is sent in the build context; want it left out (.dockerignore)", f)
		}
	}
}

func TestDockerignoreRulesMatchAsDockerDoes(t *testing.T) {
	t.Parallel()
	rules := parseDockerignore(t, []byte("# comment\n\n/docs\n*.md\n**/testdata\n!keep/testdata\nbuild/**/*.o\n"))
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"docs/a/b.txt", true},     // a directory rule covers its contents
		{"x/docs/a.txt", false},    // rules are anchored at the context root
		{"README.md", true},        // "*" matches within the root only
		{"a/README.md", false},     // ... not below it
		{"testdata/x", true},       // "**/" also matches no directory
		{"a/b/testdata/c/d", true}, // ... or several
		{"keep/testdata/x", false}, // a later "!" rule wins
		{"build/x.o", true},        // "/**/" matches zero directories
		{"build/a/b/x.o", true},    // ... or any number
		{"builder/x.o", false},     // names are whole elements
		{"main.go", false},         // nothing matches
	} {
		if got := ignored(rules, tc.path); got != tc.want {
			t.Errorf("ignored(%q) = %v; want %v", tc.path, got, tc.want)
		}
	}
}

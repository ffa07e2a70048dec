package imagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A runnable example in the docs is a ```sh block right after the line
// `<!-- runnable -->` (or `<!-- runnable exit=N -->` for a command that
// exits N), followed, blank lines apart, by a ```text block with the first
// lines of what it prints, stdout and stderr together. A text block whose
// last line is `…` shows the first lines only; else it shows all of them.
// In a list item the three may be indented alike.
// docs/design.md ("Examples that cannot drift") describes the convention.

// runnableTimeout bounds one example; they all run in well under a second
// once gcloop is built.
const runnableTimeout = 2 * time.Minute

var runnableMarker = regexp.MustCompile(`^<!-- runnable(?: exit=([0-9]+))? -->$`)

// runnable is one example: where it is, its command, its exit code and the
// output shown.
type runnable struct {
	where   string // file:line of the marker
	command string
	exit    int
	want    []string
	prefix  bool // the shown output ends with "…": compare the first lines only
}

// parseRunnable finds the runnable examples of one Markdown page.
func parseRunnable(name, doc string) ([]runnable, error) {
	lines := strings.Split(doc, "\n")
	var out []runnable
	var errs []error
	for i := 0; i < len(lines); i++ {
		line := strings.TrimLeft(lines[i], " ")
		m := runnableMarker.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "<!-- runnable") {
				errs = append(errs, fmt.Errorf("%s:%d: %q: want <!-- runnable --> or <!-- runnable exit=N -->", name, i+1, line))
			}
			continue
		}
		lines := dedent(lines, i, len(lines[i])-len(line))
		r := runnable{where: fmt.Sprintf("%s:%d", name, i+1)}
		if m[1] != "" {
			r.exit, _ = strconv.Atoi(m[1])
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "<!--") && strings.HasSuffix(lines[j], "-->") {
			j++ // other markers (main-command) may sit between
		}
		cmd, next, ok := fenced(lines, j, "```sh")
		if !ok {
			errs = append(errs, fmt.Errorf("%s: the marker is not followed by a ```sh block", r.where))
			continue
		}
		r.command = strings.Join(cmd, "\n")
		for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
			next++
		}
		shown, end, ok := fenced(lines, next, "```text")
		if !ok {
			errs = append(errs, fmt.Errorf("%s: the ```sh block is not followed by a ```text block with its output", r.where))
			continue
		}
		if n := len(shown); n > 0 && shown[n-1] == "…" {
			r.prefix, shown = true, shown[:n-1]
		}
		if len(shown) == 0 {
			errs = append(errs, fmt.Errorf("%s: the ```text block shows no output", r.where))
			continue
		}
		r.want = shown
		out = append(out, r)
		i = end - 1
	}
	return out, errors.Join(errs...)
}

// dedent returns lines from i on with indent spaces taken off each line
// that has them (a list item's block), the lines before i as they are.
func dedent(lines []string, i, indent int) []string {
	if indent == 0 {
		return lines
	}
	out := slices.Clone(lines)
	pad := strings.Repeat(" ", indent)
	for j := i; j < len(out); j++ {
		out[j] = strings.TrimPrefix(out[j], pad)
	}
	return out
}

// fenced returns the lines of the fenced block that opens at lines[i] with
// fence, and the index after its closing fence.
func fenced(lines []string, i int, fence string) ([]string, int, bool) {
	if i >= len(lines) || lines[i] != fence {
		return nil, i, false
	}
	for j := i + 1; j < len(lines); j++ {
		if lines[j] == "```" {
			return lines[i+1 : j], j + 1, true
		}
	}
	return nil, i, false
}

// goRunGcloop is how the docs run gcloop from a clone; the test runs the
// binary it built instead (the same code, built once).
var goRunGcloop = regexp.MustCompile(`(^|[;&|(]\s*|\n)go run \./cmd/gcloop\b`)

// volatile are the parts of an output that change from run to run, and
// what both sides become before they are compared.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`gcloop-[0-9]+`), "gcloop-N"},                                                             // os.MkdirTemp's suffix
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`), "2006-01-02T15:04:05Z"}, // times
	{regexp.MustCompile(`\bgcloop (?:devel|v[0-9]\S*)`), "gcloop VERSION"},                                        // `gcloop version`
}

// normalize makes an output comparable: the example's temporary directory
// becomes /tmp, then the volatile parts their stand-ins.
func normalize(s, tmp string) string {
	if tmp != "" {
		s = strings.ReplaceAll(s, tmp, "/tmp")
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// compareOutput says how got (normalized) differs from what the docs show;
// "" when it is what they show.
func compareOutput(r runnable, got string) string {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	want := make([]string, len(r.want))
	for i, w := range r.want {
		want[i] = normalize(w, "")
	}
	if r.prefix {
		if len(lines) < len(want) {
			return fmt.Sprintf("it printed %d lines, fewer than the %d shown", len(lines), len(want))
		}
		lines = lines[:len(want)]
	}
	if d := cmp.Diff(want, lines); d != "" {
		return "the output is not what the docs show (-shown +printed):\n" + d
	}
	return ""
}

// buildGcloop builds the full gcloop (the bot included) into dir.
func buildGcloop(t *testing.T, dir string) {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool(t), "build", "-o", filepath.Join(dir, "gcloop"), "./cmd/gcloop")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gcloop: %v\n%s", err, out)
	}
}

// exampleEnv is the environment of an example: gcloop first in PATH, a
// fresh HOME and TMPDIR, Go's caches kept but no module downloads, and no
// way to GitHub or through a proxy (port 9 of the loopback is closed).
func exampleEnv(t *testing.T, bin, tmp string) []string {
	t.Helper()
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + tmp, "TMPDIR=" + tmp, "LANG=C.UTF-8",
		"GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local",
		"GITHUB_API_URL=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9",
	}
	out, err := exec.Command(goTool(t), "env", "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	for i, name := range []string{"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE"} {
		if v := strings.Split(string(out), "\n")[i]; v != "" {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// rootEntries lists the repository root, to see that no example writes in it.
func rootEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestDocsRunnableExamplesPrintWhatTheyShow runs every example marked
// runnable in README.md and docs/, from the repository root with a built
// gcloop first in PATH, offline, and compares what it prints with what the
// docs show.
func TestDocsRunnableExamplesPrintWhatTheyShow(t *testing.T) {
	t.Parallel()
	var all []runnable
	for _, name := range docFiles(t) {
		rs, err := parseRunnable(name, string(readRoot(t, name)))
		if err != nil {
			t.Error(err)
		}
		all = append(all, rs...)
	}
	if len(all) == 0 {
		t.Fatal("no runnable example in README.md or docs/")
	}
	bin := t.TempDir()
	buildGcloop(t, bin)
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	before := rootEntries(t)
	t.Run("examples", func(t *testing.T) {
		for _, r := range all {
			t.Run(r.where, func(t *testing.T) {
				t.Parallel()
				tmp := t.TempDir()
				ctx, cancel := context.WithTimeout(context.Background(), runnableTimeout)
				defer cancel()
				script := goRunGcloop.ReplaceAllString(r.command, "${1}gcloop")
				cmd := exec.CommandContext(ctx, "bash", "-c", script)
				cmd.Dir, cmd.Env, cmd.WaitDelay = abs, exampleEnv(t, bin, tmp), 5*time.Second
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				code := 0
				var exit *exec.ExitError
				switch {
				case ctx.Err() != nil:
					t.Fatalf("%s did not finish in %v: %s\n%s", r.where, runnableTimeout, r.command, out.String())
				case errors.As(err, &exit):
					code = exit.ExitCode()
				case err != nil:
					t.Fatalf("%s: run %s: %v", r.where, r.command, err)
				}
				got := normalize(out.String(), tmp)
				if code != r.exit {
					t.Errorf("%s: %s exited %d, the docs say %d (mark it <!-- runnable exit=%d --> if that is right)\n%s", r.where, r.command, code, r.exit, code, got)
				}
				if problem := compareOutput(r, got); problem != "" {
					t.Errorf("%s: %s: %s\nit printed:\n%s", r.where, r.command, problem, got)
				}
			})
		}
	})
	if after := rootEntries(t); !slices.Equal(before, after) {
		t.Errorf("the examples changed the repository root: %v before, %v after; an example must write only under $TMPDIR", before, after)
	}
}

func TestParseRunnable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []runnable
		err       string
	}{
		{"a command and its whole output",
			"text\n<!-- runnable -->\n```sh\ngcloop version\n```\n\n```text\ngcloop v1.2.3\n```\n",
			[]runnable{{where: "d.md:2", command: "gcloop version", want: []string{"gcloop v1.2.3"}}}, ""},
		{"an exit code, another marker between, the first lines only",
			"<!-- runnable exit=3 -->\n<!-- main-command -->\n```sh\na \\\n  b\n```\n```text\none\n…\n```\n",
			[]runnable{{where: "d.md:1", command: "a \\\n  b", exit: 3, want: []string{"one"}, prefix: true}}, ""},
		{"a marker before a block of another language",
			"<!-- runnable -->\n```yaml\nx: 1\n```\n", nil, "d.md:1: the marker is not followed by a ```sh block"},
		{"a command without its output",
			"<!-- runnable -->\n```sh\ngcloop version\n```\n\nprose\n", nil, "d.md:1: the ```sh block is not followed by a ```text block"},
		{"an output that shows nothing",
			"<!-- runnable -->\n```sh\ntrue\n```\n```text\n…\n```\n", nil, "d.md:1: the ```text block shows no output"},
		{"in a list item",
			"- item\n\n  <!-- runnable -->\n  ```sh\n  gcloop version\n  ```\n\n  ```text\n  gcloop v1\n  ```\n- next\n",
			[]runnable{{where: "d.md:3", command: "gcloop version", want: []string{"gcloop v1"}}}, ""},
		{"a misspelt marker",
			"<!-- runnable exit=x -->\n", nil, `d.md:1: "<!-- runnable exit=x -->": want`},
		{"an unclosed block",
			"<!-- runnable -->\n```sh\ngcloop version\n", nil, "not followed by a ```sh block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseRunnable("d.md", tt.doc)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(runnable{})); d != "" {
				t.Errorf("parseRunnable (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompareOutputNormalizesOnlyWhatChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		shown  []string
		prefix bool
		got    string
		ok     bool
	}{
		{"the same", []string{"a", "b"}, false, "a\nb\n", true},
		{"a line more than shown", []string{"a"}, false, "a\nb\n", false},
		{"the first lines of more", []string{"a"}, true, "a\nb\n", true},
		{"fewer lines than shown", []string{"a", "b"}, true, "a\n", false},
		{"another word", []string{"decision: fix"}, false, "decision: converge\n", false},
		{"another temporary directory", []string{"/tmp/gcloop-123/report.md"}, false, "/tmp/gcloop-98765/report.md", true},
		{"another time", []string{`"time": "2026-01-02T03:04:05Z"`}, false, `"time": "2027-11-12T13:14:15.5+01:00"`, true},
		{"another version", []string{"gcloop v1.2.3"}, false, "gcloop devel", true},
		{"a number is no version", []string{"score 5.5"}, false, "score 6.5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runnable{want: tt.shown, prefix: tt.prefix}
			if problem := compareOutput(r, normalize(tt.got, "")); (problem == "") != tt.ok {
				t.Errorf("compareOutput(%q, %q) = %q; want ok %v", tt.shown, tt.got, problem, tt.ok)
			}
		})
	}
	if got := normalize("wrote /x/y/TestZ/001/gcloop-42/a.md", "/x/y/TestZ/001"); got != "wrote /tmp/gcloop-N/a.md" {
		t.Errorf("normalize with the example's TMPDIR = %q", got)
	}
}

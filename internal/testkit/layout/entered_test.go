package layout

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// enteredBound is how many of the module's packages following one
// evidence file from `gcloop run --dry-run` to the report may run code
// of: the command, the action driver, the registry, the reader, the
// judgment, the round, the settings, the report and its effects.
const enteredBound = 12

// TestDryRunEntersFewPackages runs a coverage build of gcloop as a dry run
// on one review file, and counts the packages with a block that ran there
// but not in `gcloop version` (which runs every package's initialization
// and nothing else): the packages the evidence's way to the report enters.
func TestDryRunEntersFewPackages(t *testing.T) {
	t.Parallel()
	root, dir := moduleRoot(t), t.TempDir()
	bin := filepath.Join(dir, "gcloop")
	goCmd(t, "build", "-cover", "-coverpkg="+module+"/...", "-o", bin, "./cmd/gcloop")
	blocks := func(name string, args ...string) map[string]bool {
		cov := filepath.Join(dir, name)
		if err := os.Mkdir(cov, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOCOVERDIR="+cov)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcloop %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		text := filepath.Join(dir, name+".txt")
		goCmd(t, "tool", "covdata", "textfmt", "-i", cov, "-o", text)
		return ranBlocks(t, text)
	}
	start := blocks("version", "version")
	run := blocks("run", "run", "--dry-run", "--loop", "review", "--evidence", "testdata/examples/review/review-results.json")
	entered := map[string]bool{}
	for b := range run {
		if !start[b] {
			file, _, _ := strings.Cut(b, ":")
			if rel, ok := modRel(filepath.ToSlash(filepath.Dir(file))); ok {
				entered[rel] = true
			}
		}
	}
	var names []string
	for p := range entered {
		names = append(names, p)
	}
	sort.Strings(names)
	t.Logf("%d packages entered: %s", len(names), strings.Join(names, " "))
	if len(names) > enteredBound {
		t.Errorf("one evidence file's way from a dry run to the report enters %d packages, more than %d:\n\t%s", len(names), enteredBound, strings.Join(names, "\n\t"))
	}
	for _, want := range []string{"bot/action", "bot/evidence", "decide/evidence", "bot/round", "bot/report"} {
		if !entered[want] {
			t.Errorf("%s was not entered: the dry run did not read the evidence or render the report", want)
		}
	}
}

// ranBlocks reads a coverage profile in text form and returns the blocks
// (file:start,end) that ran.
func ranBlocks(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ran := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		block, count, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: line %q: want file:start,end statements count", path, line)
		}
		if _, n, _ := strings.Cut(count, " "); n != "0" {
			ran[block] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ran
}

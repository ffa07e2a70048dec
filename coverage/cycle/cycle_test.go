package cycle

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

// runTests is the fake test command: coverage and results follow from
// which files exist and what they say. calc.go has 10 lines; calc_test.go
// covers 4 of them with TestAdd, more_test.go 4 more with TestMore.
const runTests = `#!/bin/sh
lh=0
cases=""
failed=0
if [ -f calc_test.go ]; then
	lh=4
	if grep -q 't.Skip' calc_test.go; then
		cases="$cases<testcase classname=\"calc\" name=\"TestAdd\"><skipped/></testcase>"
		lh=0
	elif grep -q 'return 0' calc.go; then
		cases="$cases<testcase classname=\"calc\" name=\"TestAdd\"><failure message=\"got 0\"/></testcase>"
		failed=1
	else
		cases="$cases<testcase classname=\"calc\" name=\"TestAdd\"/>"
	fi
fi
if [ -f more_test.go ]; then
	lh=$((lh + 4))
	cases="$cases<testcase classname=\"calc\" name=\"TestMore\"/>"
fi
printf 'TN:\nSF:calc.go\nLF:10\nLH:%d\nend_of_record\n' "$lh" > coverage.info
printf '<testsuite name="calc">%s</testsuite>\n' "$cases" > junit.xml
echo "tests ran: covered $lh of 10"
exit $failed
`

const moreTest = "package calc\n\nimport \"testing\"\n\nfunc TestMore(t *testing.T) {\n\tif Sub(3, 1) != 2 {\n\t\tt.Fatal(\"Sub\")\n\t}\n}\n"

// fakeRead reads the fake reports: LCOV totals or a JUnit testsuite.
func fakeRead(name string, r io.Reader) (*decide.Evidence, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ev := &decide.Evidence{Sources: []string{name}}
	if bytes.HasPrefix(b, []byte("<")) {
		var suite struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		}
		if err := xml.Unmarshal(b, &suite); err != nil {
			return nil, parse.OffsetError(name, 0, "bad JUnit: %v", err)
		}
		t := &decide.TestFacts{}
		for _, c := range suite.Cases {
			tc := decide.TestCase{Name: "calc." + c.Name, File: "calc_test.go", Status: decide.Passed}
			switch {
			case c.Failure != nil:
				tc.Status = decide.Failed
				t.Failed++
			case c.Skipped != nil:
				tc.Status = decide.Skipped
				t.Skipped++
			default:
				t.Passed++
			}
			t.Cases = append(t.Cases, tc)
		}
		ev.Tests = t
		return ev, nil
	}
	c := &decide.CoverageFacts{Format: "lcov"}
	for i, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || (k != "LF" && k != "LH") {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, parse.LineError(name, i+1, "bad count %q", v)
		}
		if k == "LF" {
			c.Total += n
		} else {
			c.Covered += n
		}
	}
	ev.Coverage = c
	return ev, nil
}

// git runs git in dir with a fixed identity.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// newProject makes a repository holding the calc project and the fake
// test script, committed.
func newProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, "calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n")
	write(t, dir, "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n")
	write(t, dir, "run-tests.sh", runTests)
	write(t, dir, "notes.txt", "user's own file\n")
	if err := os.Chmod(filepath.Join(dir, "run-tests.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "calc.go", "calc_test.go", "run-tests.sh")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// tree lists the repository's files that are not reports, with contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
			return nil
		}
		if rel == "coverage.info" || rel == "junit.xml" {
			return nil
		}
		out[rel] = read(t, dir, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func opts(dir, fix string) Options {
	return Options{
		Dir: dir, Test: "./run-tests.sh", Fix: fix,
		Coverage: "coverage.info", JUnit: "junit.xml",
		Round: 2, Read: fakeRead,
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		fix          string
		wantReverted bool
		wantSummary  string
		wantKinds    []string
		wantChanges  []string
		wantNotes    []string
	}{
		{
			name:        "a fixer that adds a test file is accepted and raises coverage",
			fix:         "printf '" + strings.ReplaceAll(moreTest, "\n", `\n`) + "' > more_test.go",
			wantSummary: "Round 2: coverage 40.0% -> 80.0% (delta: +40.0%)",
			wantChanges: []string{"more_test.go"},
		},
		{
			name:         "a fixer that edits a source file is reverted",
			fix:          "sed -i 's/return a - b/return a - b + 0/' calc.go && printf 'package calc\\n' > more_test.go",
			wantReverted: true,
			wantSummary:  "Round 2: coverage 40.0% -> 80.0% (delta: +40.0%)",
			wantKinds:    []string{guard.NonTestFile},
			wantChanges:  []string{"calc.go", "more_test.go"},
		},
		{
			name:         "a fixer that adds t.Skip is reverted",
			fix:          "sed -i 's/^func TestAdd(t \\*testing.T) {$/&\\n\\tt.Skip(\"flaky\")/' calc_test.go && printf 'package calc\\n' > more_test.go",
			wantReverted: true,
			wantSummary:  "Round 2: coverage 40.0% -> 40.0% (delta: +0.0%)",
			wantKinds:    []string{guard.TestLost, guard.ForbiddenMarker, guard.NoImprovement},
			wantChanges:  []string{"calc_test.go", "more_test.go"},
		},
		{
			name:         "a fixer that touches a workflow is reverted",
			fix:          "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml && printf 'package calc\\n' > more_test.go",
			wantReverted: true,
			wantSummary:  "Round 2: coverage 40.0% -> 80.0% (delta: +40.0%)",
			wantKinds:    []string{guard.WorkflowFile},
			wantChanges:  []string{".github/workflows/x.yml", "more_test.go"},
		},
		{
			name:         "a fixer that breaks a test and deletes a file is reverted",
			fix:          "sed -i 's/return a + b/return 0/' calc.go && rm run-tests.sh && cp /dev/null gone && printf 'package calc\\n' > more_test.go; exit 3",
			wantReverted: true,
			wantKinds:    []string{guard.NonTestFile, guard.TestBroken, guard.NonTestFile, guard.NonTestFile},
			wantChanges:  []string{"calc.go", "gone", "more_test.go", "run-tests.sh"},
		},
		{
			name:         "a fixer that turns a file into a directory is reverted",
			fix:          "rm calc.go && mkdir -p calc.go/deep && printf 'package calc\\n' > calc.go/deep/a_test.go",
			wantReverted: true,
			wantKinds:    []string{guard.NonTestFile, guard.NoImprovement},
			wantChanges:  []string{"calc.go", "calc.go/deep/a_test.go"},
		},
		{
			name:        "a fixer that changes nothing leaves nothing to revert",
			fix:         "true",
			wantSummary: "Round 2: coverage 40.0% -> 40.0% (delta: +0.0%)",
			wantKinds:   []string{guard.NoImprovement},
			wantNotes:   []string{"the fixer changed no file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newProject(t)
			// The user's staged work and untracked files must survive.
			write(t, dir, "staged.txt", "staged\n")
			git(t, dir, "add", "staged.txt")
			wantIndex := git(t, dir, "diff", "--cached", "--name-status")
			before := tree(t, dir)

			var stdout bytes.Buffer
			o := opts(dir, tt.fix)
			o.Stdout = &stdout
			if strings.Contains(tt.fix, "run-tests.sh") {
				// The script deletes itself: run a copy from outside.
				script := filepath.Join(t.TempDir(), "run-tests.sh")
				if err := os.WriteFile(script, []byte(runTests), 0o755); err != nil {
					t.Fatal(err)
				}
				o.Test = script
			}
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tt.wantSummary != "" {
				if got := res.Summary(); got != tt.wantSummary {
					t.Errorf("Summary() = %q, want %q", got, tt.wantSummary)
				}
			}
			if res.Reverted != tt.wantReverted {
				t.Errorf("Reverted = %v, want %v\n%s", res.Reverted, tt.wantReverted, res.Markdown())
			}
			var kinds []string
			for _, v := range res.Guard.Violations {
				kinds = append(kinds, v.Kind)
			}
			if diff := cmp.Diff(tt.wantKinds, kinds); diff != "" {
				t.Errorf("violation kinds (-want +got):\n%s\n%s", diff, res.Markdown())
			}
			if diff := cmp.Diff(tt.wantChanges, res.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if tt.wantNotes != nil {
				if diff := cmp.Diff(tt.wantNotes, res.Notes); diff != "" {
					t.Errorf("notes (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(stdout.String(), "tests ran") {
				t.Errorf("the test command's output did not reach Stdout: %q", stdout.String())
			}
			if got := git(t, dir, "diff", "--cached", "--name-status"); got != wantIndex {
				t.Errorf("the user's index changed: %q, want %q", got, wantIndex)
			}
			if tt.wantReverted {
				if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
					t.Errorf("the working tree after the revert differs (-before +after):\n%s", diff)
				}
				if fi, err := os.Stat(filepath.Join(dir, "run-tests.sh")); err != nil || fi.Mode()&0o100 == 0 {
					t.Errorf("run-tests.sh not restored with its mode: %v, %v", fi, err)
				}
			}
		})
	}
}

func TestRunAcceptedKeepsTheChange(t *testing.T) {
	t.Parallel()
	dir := newProject(t)
	fix := "printf '" + strings.ReplaceAll(moreTest, "\n", `\n`) + "' > more_test.go"
	res, err := Run(context.Background(), opts(dir, fix))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "more_test.go"); got != moreTest {
		t.Errorf("more_test.go = %q, want the fixer's content", got)
	}
	want := "Round 2: coverage 40.0% -> 80.0% (delta: +40.0%)\n\n" +
		"- target: 80.0% (reached)\n" +
		"- pass rate: 1.00 -> 1.00 (1 passed, 0 failed, 0 skipped -> 2 passed, 0 failed, 0 skipped)\n" +
		"- the fixer changed 1 file: `more_test.go`\n" +
		"- **accepted**: test-only change that improves the measurements\n"
	if diff := cmp.Diff(want, res.Markdown()); diff != "" {
		t.Errorf("Markdown() (-want +got):\n%s", diff)
	}
}

func TestRunRevertedReport(t *testing.T) {
	t.Parallel()
	dir := newProject(t)
	o := opts(dir, "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml")
	o.Layer = "L2"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := "Round 2 for L2: coverage 40.0% -> 40.0% (delta: +0.0%)\n\n" +
		"- target: 60.0% (not reached)\n" +
		"- pass rate: 1.00 -> 1.00 (1 passed, 0 failed, 0 skipped -> 1 passed, 0 failed, 0 skipped)\n" +
		"- the fixer changed 1 file: `.github/workflows/x.yml`\n" +
		"- **reverted**: the change is not test-only or does not help:\n" +
		"  - `.github/workflows/x.yml:1: workflow_file: added under .github/; a coverage round may not touch workflows or repository settings`\n" +
		"  - `no_improvement: coverage 40.0% -> 40.0%, pass rate 1.00 -> 1.00: not improved`\n"
	if diff := cmp.Diff(want, res.Markdown()); diff != "" {
		t.Errorf("Markdown() (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, ".github")); !os.IsNotExist(err) {
		t.Errorf(".github still exists after the revert: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(o *Options)
		wantErr string
		// wantClean: the fixer's file must be gone after the error.
		wantClean bool
	}{
		{"no test command", func(o *Options) { o.Test = "" }, "cycle: no test command", false},
		{"no fix command", func(o *Options) { o.Fix = "" }, "cycle: no fix command", false},
		{"no coverage path", func(o *Options) { o.Coverage = "" }, "cycle: no coverage report path", false},
		{"no reader", func(o *Options) { o.Read = nil }, "cycle: no report reader", false},
		{"a target above 100", func(o *Options) { o.Target = 101 }, "cycle: target 101 is outside 0–100", false},
		{"a test command that writes no report", func(o *Options) { o.Test = "true" }, "cycle: coverage.info: the test command (before, exit status 0) wrote no report", false},
		{"a report path that is not there", func(o *Options) { o.JUnit = "results.xml" }, "cycle: results.xml: the test command (before, exit status 0) wrote no report", false},
		{
			"a test command that stops writing reports after the fix",
			func(o *Options) { o.Test = "[ -f more_test.go ] || ./run-tests.sh" },
			"cycle: coverage.info: the test command (after, exit status 0) did not rewrite the report", true,
		},
		{"a coverage path that holds a test report", func(o *Options) { o.Coverage = "junit.xml"; o.JUnit = "" }, "cycle: junit.xml: not a coverage report", false},
		{"an unreadable report names the reader's error", func(o *Options) { o.Test = "./run-tests.sh; echo 'LF:x' > coverage.info" }, "cycle: coverage.info:1: bad count \"x\"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newProject(t)
			o := opts(dir, "printf 'package calc\\n' > more_test.go")
			tt.edit(&o)
			res, err := Run(context.Background(), o)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Run error = %v, want %q", err, tt.wantErr)
			}
			if tt.wantClean {
				if got := read(t, dir, "more_test.go"); got != "<missing>" {
					t.Errorf("more_test.go survived the failed cycle: %q", got)
				}
				if !res.Reverted {
					t.Errorf("Reverted = false after an error past the fixer")
				}
			}
		})
	}
}

func TestRunOutsideGit(t *testing.T) {
	t.Parallel()
	o := opts(t.TempDir(), "true")
	_, err := Run(context.Background(), o)
	if err == nil || !strings.HasPrefix(err.Error(), "cycle: git rev-parse --show-toplevel: fatal: not a git repository") {
		t.Fatalf("Run error = %v", err)
	}
}

func TestRunCancelledRevertsTheFixer(t *testing.T) {
	t.Parallel()
	dir := newProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The fixer writes a file, says so, and blocks until cancelled.
	o := opts(dir, "printf 'package calc\\n' > more_test.go; touch fixer-started; sleep 30")
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		res, err = Run(ctx, o)
		close(done)
	}()
	for i := 0; ; i++ {
		if _, statErr := os.Stat(filepath.Join(dir, "fixer-started")); statErr == nil {
			break
		}
		if i > 3000 {
			t.Fatal("the fixer never started")
		}
		select {
		case <-done:
			t.Fatalf("Run ended early: %v", err)
		default:
		}
		sleep()
	}
	cancel()
	<-done
	if err == nil || !strings.Contains(err.Error(), "fix command interrupted") {
		t.Fatalf("Run error = %v, want an interruption", err)
	}
	if !res.Reverted {
		t.Errorf("Reverted = false")
	}
	for _, f := range []string{"more_test.go", "fixer-started"} {
		if got := read(t, dir, f); got != "<missing>" {
			t.Errorf("%s survived the cancelled cycle", f)
		}
	}
}

// Package cycle runs one local fix-verify cycle of the coverage loop
// (DESIGN §2.5, §5.3, §8 `gcloop coverage cycle`): run the tests and read
// coverage, let a fixer (a test generator) change the working tree, run the
// tests again, judge the fixer's change with the test-only guard, and undo
// it exactly when refused. One call is one cycle, never more.
//
// The working tree is snapshotted with Git without touching the user's
// index, HEAD or files: `git add -A` into a temporary index
// (GIT_INDEX_FILE) and `git write-tree`. The fixer's change is the
// difference between the snapshots taken just before and just after the
// fixer ran, so files the test command writes (reports, caches) are not
// blamed on the fixer.
package cycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
)

// Options configure one cycle.
type Options struct {
	// Dir is the directory the commands run in and report paths are
	// relative to; "" is the current directory. It must lie in a Git
	// working tree.
	Dir string
	// Test and Fix are shell commands, run with `sh -c` in Dir. A failing
	// test command is not an error (tests may fail); a failing fixer is
	// noted and its change judged all the same.
	Test, Fix string
	// Coverage is the coverage report the test command writes; JUnit the
	// optional test report. Both relative to Dir (or absolute).
	Coverage, JUnit string
	// Target is the coverage goal in percent; 0 means the layer's default
	// (L1 80, L2 60, L3 40, none 80).
	Target float64
	// Layer is L1, L2, L3 or "" and only labels the report.
	Layer string
	// Round numbers this cycle in the report; 0 means 1.
	Round int
	// Guard configures the test-only guard.
	Guard guard.Options
	// Stdout and Stderr receive the commands' output; nil discards it.
	// (The fixer's and the tests' output both go there.)
	Stdout, Stderr io.Writer
	// Read reads one report, sniffing its format (the evidence registry's
	// reader of coverage and test reports, bot/evidence).
	Read func(name string, r io.Reader) (*decide.Evidence, error)
}

// Measure is what one test run showed.
type Measure struct {
	Coverage *float64          `json:"coverage"`  // line coverage, percent
	PassRate *float64          `json:"pass_rate"` // 0–1; nil without a test report
	Tests    *decide.TestFacts `json:"-"`
	ExitCode int               `json:"exit_code"` // of the test command
}

// Result is the outcome of one cycle.
type Result struct {
	Round  int     `json:"round"`
	Layer  string  `json:"layer,omitempty"`
	Target float64 `json:"target"`
	Before Measure `json:"before"`
	After  Measure `json:"after"`
	// FixExitCode is the fixer's exit status.
	FixExitCode int `json:"fix_exit_code"`
	// Changes are the paths the fixer changed, relative to the repository
	// root, in path order.
	Changes []string     `json:"changes"`
	Guard   guard.Result `json:"guard"`
	// Reverted reports that the fixer's change was refused and undone.
	Reverted bool `json:"reverted"`
	// Notes are anomalies: a failing fixer, a moved HEAD, unknown values.
	Notes []string `json:"notes,omitempty"`
}

// Accepted reports whether the fixer's change was kept.
func (r Result) Accepted() bool { return !r.Reverted }

// defaultTarget returns the coverage target of a layer (DESIGN §2.5).
func defaultTarget(layer string) float64 {
	switch layer {
	case "L2":
		return 60
	case "L3":
		return 40
	}
	return 80
}

// runner holds one cycle's resolved settings.
type runner struct {
	o   Options
	dir string // absolute Dir
	top string // repository root
}

// Run runs one fix-verify cycle. Errors are problems that leave no
// judgment possible: bad options, a directory outside Git, a report
// missing or unreadable, a git failure. When such an error happens after
// the fixer ran, the fixer's change is reverted first and the returned
// Result says so.
func Run(ctx context.Context, o Options) (Result, error) {
	res := Result{Round: o.Round, Layer: o.Layer, Target: o.Target}
	if res.Round <= 0 {
		res.Round = 1
	}
	if res.Target == 0 {
		res.Target = defaultTarget(o.Layer)
	}
	switch {
	case o.Test == "":
		return res, errors.New("cycle: no test command")
	case o.Fix == "":
		return res, errors.New("cycle: no fix command")
	case o.Coverage == "":
		return res, errors.New("cycle: no coverage report path")
	case o.Read == nil:
		return res, errors.New("cycle: no report reader")
	case math.IsNaN(res.Target) || res.Target < 0 || res.Target > 100:
		return res, fmt.Errorf("cycle: target %v is outside 0–100", o.Target)
	}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("cycle: %w", err)
	}
	top, err := guard.TopLevel(ctx, dir)
	if err != nil {
		return res, fmt.Errorf("cycle: %w", err)
	}
	r := &runner{o: o, dir: dir, top: top}

	// 1. Tests before.
	if res.Before, err = r.measure(ctx, "before"); err != nil {
		return res, err
	}

	// 2. Snapshot, fix, snapshot.
	// The temporary indexes live in the git directory: a TMPDIR inside
	// the work tree would put them into the very snapshot they record.
	gitDir, err := guard.Git(ctx, top, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return res, fmt.Errorf("cycle: %w", err)
	}
	tmp, err := os.MkdirTemp(strings.TrimSpace(string(gitDir)), "gcloop-cycle-")
	if err != nil {
		return res, fmt.Errorf("cycle: %w", err)
	}
	defer os.RemoveAll(tmp)
	headBefore := r.head(ctx)
	snap0, err := r.snapshot(ctx, filepath.Join(tmp, "before.index"))
	if err != nil {
		return res, err
	}
	code, fixErr := r.sh(ctx, "fix", o.Fix)
	res.FixExitCode = code
	// From here on a failure must not leave the fixer's change behind:
	// undo work runs even when ctx is cancelled.
	undoCtx := context.WithoutCancel(ctx)
	snap1, err := r.snapshot(undoCtx, filepath.Join(tmp, "after.index"))
	if err != nil {
		return res, err
	}
	changes, err := guard.FromTrees(undoCtx, top, snap0.tree, snap1.tree)
	if err != nil {
		return res, fmt.Errorf("cycle: %w", err)
	}
	for _, c := range changes {
		res.Changes = append(res.Changes, c.Path)
	}
	if headAfter := r.head(undoCtx); headAfter != headBefore {
		res.Notes = append(res.Notes, fmt.Sprintf("the fixer moved HEAD from %s to %s; gcloop judges and reverts files, not commits", short(headBefore), short(headAfter)))
	}
	if fixErr != nil {
		return r.abort(undoCtx, res, snap0, changes, fmt.Errorf("cycle: fix command: %w", fixErr))
	}
	if code != 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the fix command exited with status %d; its change is judged all the same", code))
	}

	// 3. Tests after.
	if res.After, err = r.measure(ctx, "after"); err != nil {
		return r.abort(undoCtx, res, snap0, changes, err)
	}

	// 4. Judge, and undo a refused change.
	m := guard.Metrics{
		CoverageBefore: res.Before.Coverage, CoverageAfter: res.After.Coverage,
		PassRateBefore: res.Before.PassRate, PassRateAfter: res.After.PassRate,
	}
	res.Guard = guard.Check(changes, res.Before.Tests, res.After.Tests, m, o.Guard)
	if !res.Guard.OK() && len(changes) > 0 {
		if err := r.revert(undoCtx, snap0, changes); err != nil {
			return res, err
		}
		res.Reverted = true
	}
	if len(changes) == 0 {
		res.Notes = append(res.Notes, "the fixer changed no file")
	}
	return res, nil
}

// abort reverts the fixer's change after a failure and returns err.
func (r *runner) abort(ctx context.Context, res Result, snap snapshot, changes []guard.Change, err error) (Result, error) {
	if len(changes) == 0 {
		return res, err
	}
	if rerr := r.revert(ctx, snap, changes); rerr != nil {
		return res, fmt.Errorf("%w; and reverting the fixer's change failed: %v", err, rerr)
	}
	res.Reverted = true
	res.Notes = append(res.Notes, "the fixer's change was reverted because the cycle could not finish")
	return res, err
}

// measure runs the test command and reads its reports.
func (r *runner) measure(ctx context.Context, when string) (Measure, error) {
	var m Measure
	paths := []string{r.o.Coverage}
	if r.o.JUnit != "" {
		paths = append(paths, r.o.JUnit)
	}
	stamps := make([]stamp, len(paths))
	for i, p := range paths {
		stamps[i] = statStamp(r.abs(p))
	}
	code, err := r.sh(ctx, "test", r.o.Test)
	m.ExitCode = code
	if err != nil {
		return m, fmt.Errorf("cycle: test command (%s): %w", when, err)
	}
	for i, p := range paths {
		now := statStamp(r.abs(p))
		if !now.exists {
			return m, fmt.Errorf("cycle: %s: the test command (%s, exit status %d) wrote no report", p, when, code)
		}
		if stamps[i].exists && now == stamps[i] {
			return m, fmt.Errorf("cycle: %s: the test command (%s, exit status %d) did not rewrite the report", p, when, code)
		}
	}
	ev, err := r.read(r.o.Coverage)
	if err != nil {
		return m, err
	}
	if ev.Coverage == nil {
		return m, fmt.Errorf("cycle: %s: not a coverage report", r.o.Coverage)
	}
	m.Coverage = percent(ev.Coverage)
	m.Tests = ev.Tests
	if r.o.JUnit != "" {
		tev, err := r.read(r.o.JUnit)
		if err != nil {
			return m, err
		}
		if tev.Tests == nil {
			return m, fmt.Errorf("cycle: %s: not a test report", r.o.JUnit)
		}
		m.Tests = tev.Tests
	}
	m.PassRate = m.Tests.Rate()
	return m, nil
}

// read opens and reads one report.
func (r *runner) read(p string) (*decide.Evidence, error) {
	f, err := os.Open(r.abs(p))
	if err != nil {
		return nil, fmt.Errorf("cycle: %w", err)
	}
	defer f.Close()
	ev, err := r.o.Read(p, f)
	if err != nil {
		return nil, fmt.Errorf("cycle: %w", err)
	}
	if ev == nil {
		return nil, fmt.Errorf("cycle: %s: no evidence read", p)
	}
	return ev, nil
}

// abs resolves a report path against Dir.
func (r *runner) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.dir, p)
}

// percent returns the coverage percentage of c, nil when it has no lines.
func percent(c *decide.CoverageFacts) *float64 {
	if c.Percent != nil {
		v := *c.Percent
		return &v
	}
	if c.Total <= 0 {
		return nil
	}
	v := 100 * float64(c.Covered) / float64(c.Total)
	return &v
}

// stamp identifies one version of a file cheaply.
type stamp struct {
	exists bool
	size   int64
	mtime  time.Time
}

// statStamp stats p.
func statStamp(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return stamp{}
	}
	return stamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
}

// sh runs a shell command in Dir. A non-zero exit is reported as the code,
// not an error; err is set when the command could not run or ctx ended.
func (r *runner) sh(ctx context.Context, what, command string) (int, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = r.dir
	cmd.Stdout = r.o.Stdout
	cmd.Stderr = r.o.Stderr
	killGroup(cmd)
	// A background child that keeps the output open must not hang the
	// cycle once the command itself has exited.
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, fmt.Errorf("%s command interrupted: %w", what, ctx.Err())
	}
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode(), nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

// short abbreviates a commit id for messages.
func short(id string) string {
	if id == "" {
		return "(none)"
	}
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/coverage/cycle"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/wfcmd"
)

const coverageUsage = `Usage:
  gcloop coverage report [--format json|markdown] [--files worst|all] FILE...
  gcloop coverage guard  [--base REV] [--before RESULTS] [--after RESULTS] [--patterns GLOB,...]
  gcloop coverage cycle  --test CMD --fix CMD --coverage FILE [--junit FILE] [--target P] [--round N]

Run 'gcloop coverage SUBCOMMAND -h' for a subcommand's flags.
`

// runCoverage runs `gcloop coverage report|guard|cycle`.
func runCoverage(env *Env, args []string) error {
	if len(args) == 0 {
		return usagef("coverage: want a subcommand: report, guard or cycle")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(env.Stdout, coverageUsage)
		return nil
	case "report":
		return runCoverageReport(env, args[1:])
	case "guard":
		return runCoverageGuard(env, args[1:])
	case "cycle":
		return runCoverageCycle(env, args[1:])
	}
	return usagef("coverage: unknown subcommand %q (want report, guard or cycle)", args[0])
}

// runCoverageReport prints the coverage and test totals of report files.
func runCoverageReport(env *Env, args []string) error {
	fs := newFlagSet("coverage report", env)
	format := fs.String("format", "json", "output format: json or markdown")
	listing := fs.String("files", "worst", "files to list: worst (the 50 of lowest coverage) or all (streamed)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop coverage report [--format json|markdown] [--files worst|all] FILE...")
		fs.PrintDefaults()
	}
	files, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(files) == 0 {
		return usagef("coverage report: no report files given")
	}
	if *format != "json" && *format != "markdown" {
		return usagef("coverage report: --format %q: want json or markdown", *format)
	}
	list, err := coverage.ParseListing(*listing)
	if err != nil {
		return usagef("coverage report: %v", err)
	}
	// A directory stands for the coverage and test reports under it, as
	// in decide.
	if files, err = evidence.Paths(files, evidence.Reports); err != nil {
		return err
	}
	stream := ""
	if list == coverage.ListWorst {
		if stream, err = streamableLCOV(files); err != nil {
			return err
		}
	}
	var ru *coverage.RollUp
	var pieces []*decide.Evidence
	var formats []coverage.Format
	for _, name := range files {
		var e *decide.Evidence
		var f coverage.Format
		if name == stream {
			ru = coverage.NewRollUp()
			e, f, err = streamCoverageFile(name, ru)
		} else {
			e, f, err = readCoverageFile(name)
		}
		if err != nil {
			return err
		}
		pieces = append(pieces, e)
		formats = append(formats, f)
	}
	merged, err := decide.Merge(pieces...)
	if err != nil {
		return err
	}
	var rep coverage.Report
	if ru != nil {
		rep = coverage.NewRolledUpReport(merged, formats, ru)
	} else {
		rep = coverage.NewReport(merged, formats, list)
	}
	if *format == "json" {
		return rep.WriteJSON(env.Stdout)
	}
	out := wfcmd.NewWriter(env.Stdout) // file names come from the reports
	if err := rep.WriteMarkdown(out); err != nil {
		return err
	}
	return out.Close()
}

func readCoverageFile(name string) (*decide.Evidence, coverage.Format, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, "", fmt.Errorf("read report %s: %w", name, unwrapPathError(err))
	}
	defer f.Close()
	return readReport(name, f)
}

// readReport reads a coverage or test report through the evidence
// registry, with its format as the report names it.
func readReport(name string, r io.Reader) (*decide.Evidence, coverage.Format, error) {
	e, f, err := evidence.ReadReport(name, r)
	return e, coverage.Format(f.Name), err
}

// streamableLCOV returns the one report among files whose per-file
// coverage can be streamed into a roll-up (DESIGN §11): an LCOV file, when
// no other file holds coverage (files of two reports merge by path, which
// needs every path). "" when there is none.
func streamableLCOV(files []string) (string, error) {
	lcov, others := "", 0
	for _, name := range files {
		f, regular, err := sniffCoverageFile(name)
		if err != nil {
			return "", err
		}
		if !regular {
			return "", nil // a pipe is read once, as it comes
		}
		switch f {
		case coverage.FormatLCOV:
			if lcov != "" {
				return "", nil
			}
			lcov = name
		case coverage.FormatJUnit, "":
		default:
			others++
		}
	}
	if others > 0 {
		return "", nil
	}
	return lcov, nil
}

// sniffCoverageFile tells the format of a report from its first bytes;
// "" when it is none (reading it then gives the error). A file that is not
// a regular file (a named pipe, a process substitution) is not read:
// regular is false, and it cannot be read twice.
func sniffCoverageFile(name string) (f coverage.Format, regular bool, err error) {
	st, err := os.Stat(name)
	if err != nil {
		return "", false, fmt.Errorf("read report %s: %w", name, unwrapPathError(err))
	}
	if !st.Mode().IsRegular() {
		return "", false, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return "", false, fmt.Errorf("read report %s: %w", name, unwrapPathError(err))
	}
	defer file.Close()
	head := make([]byte, evidence.SniffLen)
	n, err := io.ReadFull(file, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", false, fmt.Errorf("read report %s: %w", name, unwrapPathError(err))
	}
	sniffed, _ := evidence.Sniff(head[:n], evidence.Reports)
	return coverage.Format(sniffed.Name), true, nil
}

// streamCoverageFile reads an LCOV report, folding its files into ru.
func streamCoverageFile(name string, ru *coverage.RollUp) (*decide.Evidence, coverage.Format, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, "", fmt.Errorf("read report %s: %w", name, unwrapPathError(err))
	}
	defer f.Close()
	c, err := coverage.StreamLCOV(name, f, ru)
	if err != nil {
		return nil, coverage.FormatLCOV, err
	}
	return &decide.Evidence{Sources: []string{name}, Coverage: c}, coverage.FormatLCOV, nil
}

// readTests reads test results for the guard — JUnit XML or go test
// -json output; "" gives nil.
func readTests(name string) (*decide.TestFacts, error) {
	if name == "" {
		return nil, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read test results %s: %w", name, unwrapPathError(err))
	}
	defer f.Close()
	return evidence.ReadTests(name, f)
}

// runCoverageGuard judges the work tree's changes against a base revision.
func runCoverageGuard(env *Env, args []string) error {
	fs := newFlagSet("coverage guard", env)
	base := fs.String("base", "HEAD", "revision the work tree is compared with")
	before := fs.String("before", "", "test results before the change (JUnit XML or go test -json)")
	after := fs.String("after", "", "test results after the change (JUnit XML or go test -json)")
	patterns := fs.String("patterns", "", "comma-separated test-path globs (default: the built-in test patterns)")
	dir := fs.String("C", ".", "work tree to judge")
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop coverage guard [--base REV] [--before RESULTS] [--after RESULTS] [--patterns GLOB,...]")
		fs.PrintDefaults()
	}
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(rest) > 0 {
		return usagef("coverage guard: unexpected argument %q", rest[0])
	}
	if *format != "text" && *format != "json" {
		return usagef("coverage guard: --format %q: want text or json", *format)
	}
	if err := requireTools(env, "gcloop coverage guard", "git"); err != nil {
		return err
	}
	opts := guard.Options{}
	if *patterns != "" {
		for _, p := range strings.Split(*patterns, ",") {
			p = strings.TrimSpace(p)
			if err := guard.ValidatePattern(p); err != nil {
				return usagef("coverage guard: --patterns: %v", err)
			}
			opts.Patterns = append(opts.Patterns, p)
		}
	}
	bt, err := readTests(*before)
	if err != nil {
		return err
	}
	at, err := readTests(*after)
	if err != nil {
		return err
	}
	changes, err := guard.FromGit(env.Ctx, *dir, *base)
	if err != nil {
		return err
	}
	m := guard.Metrics{PassRateBefore: bt.Rate(), PassRateAfter: at.Rate()}
	res := guard.Check(changes, bt, at, m, opts)
	if *format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		out := struct {
			OK         bool              `json:"ok"`
			Accepted   []string          `json:"accepted"`
			Violations []guard.Violation `json:"violations"`
			Notes      []string          `json:"notes"`
		}{res.OK(), nonNilStrings(res.Accepted), res.Violations, nonNilStrings(res.Notes)}
		if out.Violations == nil {
			out.Violations = []guard.Violation{}
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printGuard(env, res, len(changes))
	}
	if !res.OK() {
		return &exitError{code: exitGuard, msg: fmt.Sprintf("guard: %d violation(s): the change is not test-only", len(res.Violations))}
	}
	return nil
}

func printGuard(env *Env, res guard.Result, changed int) {
	for _, v := range res.Violations {
		fmt.Fprintln(env.Stdout, wfcmd.Escape(v.String())) // names changed files
	}
	for _, n := range res.Notes {
		fmt.Fprintln(env.Stdout, "note:", wfcmd.Escape(n))
	}
	if res.OK() {
		fmt.Fprintf(env.Stdout, "ok: %d changed file(s), all test-only\n", changed)
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// runCoverageCycle runs one local fix-verify cycle.
func runCoverageCycle(env *Env, args []string) error {
	fs := newFlagSet("coverage cycle", env)
	var o cycle.Options
	fs.StringVar(&o.Test, "test", "", "shell command that runs the tests and writes the reports")
	fs.StringVar(&o.Fix, "fix", "", "shell command that writes or fixes tests")
	fs.StringVar(&o.Coverage, "coverage", "", "coverage report the test command writes")
	fs.StringVar(&o.JUnit, "junit", "", "JUnit report the test command writes")
	fs.Float64Var(&o.Target, "target", 0, "coverage target in percent (default: per layer)")
	fs.StringVar(&o.Layer, "layer", "", "coverage layer: L1, L2 or L3")
	fs.IntVar(&o.Round, "round", 1, "round number shown in the report")
	fs.StringVar(&o.Dir, "C", ".", "work tree to run in")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop coverage cycle --test CMD --fix CMD --coverage FILE [--junit FILE] [--target P] [--round N]")
		fs.PrintDefaults()
	}
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	switch {
	case len(rest) > 0:
		return usagef("coverage cycle: unexpected argument %q", rest[0])
	case o.Test == "" || o.Fix == "" || o.Coverage == "":
		return usagef("coverage cycle: --test, --fix and --coverage are required")
	case o.Round < 1:
		return usagef("coverage cycle: --round %d: rounds start at 1", o.Round)
	case o.Target < 0 || o.Target > 100:
		return usagef("coverage cycle: --target %g out of range 0–100", o.Target)
	}
	if _, err := decide.LayerTarget(o.Layer); err != nil {
		return usagef("coverage cycle: %v", err)
	}
	if err := requireTools(env, "gcloop coverage cycle", "git", "sh"); err != nil {
		return err
	}
	o.Stdout, o.Stderr = env.Stderr, env.Stderr
	o.Read = func(name string, r io.Reader) (*decide.Evidence, error) {
		e, _, err := readReport(name, r)
		return e, err
	}
	res, err := cycle.Run(env.Ctx, o)
	if err != nil {
		if res.Reverted {
			_ = wfcmd.WriteBlock(env.Stdout, res.Markdown())
		}
		return err
	}
	if err := wfcmd.WriteBlock(env.Stdout, res.Markdown()); err != nil {
		return err
	}
	if !res.Accepted() && len(res.Changes) > 0 {
		return &exitError{code: exitGuard, msg: "cycle: the fixer's change was refused and reverted"}
	}
	return nil
}

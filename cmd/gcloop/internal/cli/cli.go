// Package cli holds gcloop's commands: flag parsing and wiring over the
// tested packages, with exit codes mapped in one place.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gcloop/gcloop/internal/wfcmd"
)

// Exit codes of DESIGN §8.
const (
	exitOK       = 0
	exitNoResult = 1 // no decision possible, unreadable input
	exitUsage    = 2
	exitFailOn   = 3 // --fail-on matched
	exitGuard    = 4 // coverage guard found violations
)

// Env is what a command may use of the outside world.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
}

// usageError is a command-line mistake (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries a specific exit code; its message, if any, is printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

const usage = `gcloop decides generator–critic loops on pull requests.

Usage:
  gcloop decide   [flags] EVIDENCE...    decide one round from evidence files
  gcloop coverage report|guard|cycle     read coverage, guard test-only changes, run a fix-verify cycle
  gcloop run      [--dry-run]            the GitHub Action
  gcloop bot      [--listen ADDR]        the GitHub App's webhook server
  gcloop version                         print the version

Run 'gcloop COMMAND -h' for a command's flags.
`

// Main runs gcloop with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	env := &Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv, Now: time.Now}
	return exitCode(run(env, args), stderr)
}

func run(env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return &exitError{code: exitUsage}
	}
	switch args[0] {
	case "decide":
		return runDecide(env, args[1:])
	case "coverage":
		return runCoverage(env, args[1:])
	case "run":
		return runAction(env, args[1:])
	case "bot":
		return runBot(env, args[1:])
	case "version", "--version", "-version":
		return runVersion(env, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	return usagef("unknown command %q (want decide, coverage, run, bot or version)", args[0])
}

// exitCode maps an error to an exit code, printing its one-line message.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "gcloop:", wfcmd.Escape(ee.msg))
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "gcloop:", wfcmd.Escape(ue.msg))
		return exitUsage
	}
	fmt.Fprintln(stderr, "gcloop:", wfcmd.Escape(oneLine(err.Error())))
	return exitNoResult
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// parseFlags parses a command's flags (before or after the positional
// arguments) and returns the positional ones. -h or --help prints the
// command's usage on stdout and returns flag.ErrHelp (exit 0); a mistake is
// printed on stderr with the usage (exit 2, through flagError).
func parseFlags(env *Env, fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if f := fs.Lookup("help"); f != nil && f.Value.String() == "true" {
		fs.SetOutput(env.Stdout)
		fs.Usage()
		return nil, flag.ErrHelp
	}
	return pos, nil
}

// parseInterleaved parses flags that may come before or after the
// positional arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newFlagSet returns a flag set whose errors come back as usage errors,
// with -h and --help (see parseFlags). Its Usage must print to
// fs.Output(): stdout for help, stderr for a mistake.
func newFlagSet(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	help := fs.Bool("help", false, "print this help on stdout")
	fs.BoolVar(help, "h", false, "print this help on stdout")
	return fs
}

// flagError turns a flag parse error into a usage error.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &exitError{code: exitUsage} // the flag package printed the message
}

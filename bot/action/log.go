package action

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/wfcmd"
)

// Log is the action's progress log: one line per step, under
// ::group::/::endgroup:: sections when running as the action
// (GITHUB_ACTIONS=true), plain lines by hand. Every line is escaped with
// wfcmd, so no text of the evidence can become a workflow command. A nil
// *Log logs nothing.
type Log struct {
	w       io.Writer
	actions bool
	open    bool
	noted   map[string]bool
}

// NewLog returns a log writing to w; actions turns on the groups.
func NewLog(w io.Writer, actions bool) *Log {
	return &Log{w: w, actions: actions, noted: map[string]bool{}}
}

// Group starts a section titled "gcloop: <title>", closing the open one.
// By hand it prints nothing: the lines say what they are about.
func (l *Log) Group(title string) {
	if l == nil {
		return
	}
	l.End()
	if l.actions {
		fmt.Fprintf(l.w, "::group::gcloop: %s\n", wfcmd.Escape(title))
		l.open = true
	}
}

// End closes the open section, if any.
func (l *Log) End() {
	if l == nil || !l.open {
		return
	}
	fmt.Fprintln(l.w, "::endgroup::")
	l.open = false
}

// Printf prints one progress line, "gcloop: " and the escaped text.
func (l *Log) Printf(format string, args ...any) {
	if l == nil {
		return
	}
	fmt.Fprintln(l.w, "gcloop:", wfcmd.Escape(oneLine(fmt.Sprintf(format, args...))))
}

// Note prints a diagnostic once: a note printed as the run met it is not
// repeated when the run's notes are listed at its end.
func (l *Log) Note(msg string) {
	if l == nil || l.noted[msg] {
		return
	}
	l.noted[msg] = true
	l.Printf("%s", msg)
}

// LogInputs prints the inputs a run uses, never the secrets (token,
// state-key).
func (l *Log) LogInputs(o *Options) {
	if l == nil {
		return
	}
	l.Group("inputs")
	l.Printf("loop %s, id %s", or(string(o.Loop), "(from the evidence)"), or(o.ID, "(the loop)"))
	l.Printf("evidence %s; artifacts %s", listOrNone(o.Evidence), listOrNone(o.Artifacts))
	l.Printf("config %s, comment %t, check %t, fail-on %s, timeout %s, dry run %t", o.Config, o.Comment, o.Check, o.FailOn, o.Timeout, o.DryRun)
	l.Printf("state-key %s", map[bool]string{true: "given (signed state only)", false: "not given"}[o.StateKey != ""])
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// describeEvidence says what an evidence file was read as: the loops it
// speaks for and the report formats.
func describeEvidence(e *decide.Evidence) string {
	var parts []string
	add := func(ok bool, s string) {
		if ok {
			parts = append(parts, s)
		}
	}
	add(e.Review != nil, "review")
	add(e.Critique != nil, "critique")
	add(e.Audit != nil, "audit")
	add(e.Validation != nil, "validation report")
	if e.Coverage != nil {
		parts = append(parts, "coverage ("+or(e.Coverage.Format, "unknown format")+")")
	}
	add(e.Tests != nil, "test results")
	add(e.Analysis, "static-analysis log")
	if len(parts) == 0 {
		return "nothing gcloop uses"
	}
	s := strings.Join(parts, " + ")
	if n := len(e.Findings); n > 0 {
		s += ", " + strconv.Itoa(n) + " finding(s)"
	}
	return s
}

// logEvidence prints what one file was read as and the reader's notes.
func (l *Log) logEvidence(name string, e *decide.Evidence) {
	if l == nil {
		return
	}
	l.Printf("evidence %s: read as %s", name, describeEvidence(e))
	for _, n := range e.Notes {
		l.Printf("evidence %s: %s", name, n)
	}
}

package action

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/internal/wfcmd"
)

// PrintDryRun prints what a run would do on GitHub: the report comment, the
// fix issues and the commit. Everything from the evidence is escaped for
// workflow commands (wfcmd): a finding, a file name or a note cannot start
// a `::command::` in the log.
func PrintDryRun(w io.Writer, res *Result) {
	d := res.Decision
	fmt.Fprintf(w, "gcloop dry run: %s round %d: %s (%s)\n\n", d.ID, d.Round, d.Outcome, wfcmd.Escape(d.Verdict))
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", wfcmd.Escape(n))
	}
	fmt.Fprintln(w, "=== report comment (created or edited in place) ===")
	_ = wfcmd.WriteBlock(w, strings.TrimRight(res.Report, "\n")+"\n")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "=== fix issues ===")
	switch {
	case !res.Settings.Issues:
		fmt.Fprintln(w, "none: the issues input is false")
	case len(res.Planned) == 0:
		fmt.Fprintln(w, "none")
	}
	for _, p := range res.Planned {
		what := "new issue"
		if p.Number > 0 {
			what = fmt.Sprintf("update #%d", p.Number)
		}
		fmt.Fprintf(w, "--- %s: %s [%s]\n", what, wfcmd.Escape(p.Title), wfcmd.Escape(strings.Join(p.Labels, ", ")))
		_ = wfcmd.WriteBlock(w, strings.TrimRight(p.Body, "\n")+"\n")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "=== check run ===")
	if c := res.Check; c != nil {
		fmt.Fprintf(w, "%s on %s: %s, %q, %d annotations\n", check.Name(c.LoopID), or(short(c.SHA), "the PR head"), c.Conclusion,
			wfcmd.Escape(c.Title), len(c.Annotations))
	} else {
		fmt.Fprintln(w, "none: the check input is false")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "=== commit ===")
	if len(res.Reverted) > 0 {
		fmt.Fprintf(w, "none: the changes were refused (reverted): %s\n", wfcmd.Escape(strings.Join(res.Reverted, ", ")))
	} else {
		fmt.Fprintln(w, "none")
	}
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

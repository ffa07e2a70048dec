package action

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/publish"
	"github.com/sethvargo/go-githubactions"
)

// commandLines lists the lines of out the runner would read as workflow
// commands: it splits lines at CR as well as LF and trims white space.
func commandLines(out string) []string {
	var cmds []string
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

func TestPrintDryRunIsInert(t *testing.T) {
	t.Parallel()
	res := decided(t)
	hostile := "x\r::add-mask::secret\n::set-output name=decision::converge"
	res.Notes = []string{"evidence " + hostile + ": not found in the workspace"}
	res.Report = "# Report\n" + hostile + "\n"
	res.Settings.Issues = true
	res.Planned = []publish.PlannedIssue{{Title: "gcloop: fix " + hostile, Labels: []string{"gcloop"}, Body: hostile}}
	res.Reverted = []string{hostile}
	var b strings.Builder
	PrintDryRun(&b, res)
	if cmds := commandLines(b.String()); len(cmds) != 0 {
		t.Errorf("the dry run prints workflow commands %q:\n%s", cmds, b.String())
	}
}

func TestPublishLogIsInert(t *testing.T) {
	t.Parallel()
	res := decided(t)
	res.CommentURL = "https://x/\r::add-mask::y"
	var log, stdout strings.Builder
	a := githubactions.New(githubactions.WithWriter(&stdout), githubactions.WithGetenv(func(string) string { return "" }))
	if err := Publish(a, &Context{}, res, Files{Report: "a\n::error::b"}, &log); err != nil {
		t.Fatal(err)
	}
	if cmds := commandLines(log.String()); len(cmds) != 0 {
		t.Errorf("the outputs log prints workflow commands %q:\n%s", cmds, log.String())
	}
}

package round

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// Log receives a round's progress: sections and one line per step. The
// action's log groups and escapes them; the bot writes structured lines.
type Log interface {
	// Group starts a section.
	Group(title string)
	// Printf prints one line.
	Printf(format string, args ...any)
	// Note prints a diagnostic once.
	Note(msg string)
}

// quiet is the Log of an engine given none.
type quiet struct{}

func (quiet) Group(string)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Note(string)           {}

// logIssues prints the fix issues a round opened, edited and closed.
func logIssues(l Log, out publish.SyncResult) {
	if len(out.Created)+len(out.Updated)+len(out.Closed)+len(out.Reopened) == 0 {
		l.Printf("issues: %d planned; none opened, updated or closed", len(out.Planned))
		return
	}
	line := fmt.Sprintf("issues: opened %s; updated %s; closed %s", issueList(out.Created), issueList(out.Updated), issueList(out.Closed))
	if len(out.Reopened) > 0 {
		line += "; reopened " + issueList(out.Reopened)
	}
	l.Printf("%s", line)
}

func issueList(ns []int) string {
	if len(ns) == 0 {
		return "none"
	}
	s := append([]int{}, ns...)
	sort.Ints(s)
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = "#" + strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

// commentChange says what writing body does to the report comment found.
func commentChange(found *github.IssueComment, body string) string {
	switch {
	case found == nil || found.GetID() == 0:
		return "created"
	case found.GetBody() == body:
		return "unchanged"
	}
	return "edited"
}

// logCheck prints what became of the round's check run.
func logCheck(l Log, id string, rec, prev *decide.CheckRecord, res *Result) {
	switch {
	case res.checkPlanned && res.Check != nil:
		l.Printf("check run %s: %s, planned (a dry run writes none)", check.Name(id), res.Check.Conclusion)
	case rec == nil:
		l.Printf("check run %s: not written (see the notes)", check.Name(id))
	case rec == prev:
		l.Printf("check run %s: unchanged", check.Name(id))
	case rec.Status:
		l.Printf("check run %s: written as a commit status (no checks: write)", check.Name(id))
	default:
		l.Printf("check run %s: written (id %d)", check.Name(id), rec.ID)
	}
}

// logOutcome prints the decision as it ends — the effects may change it
// (a refused change set, a cut-short run) — and the decision's notes.
func logOutcome(l Log, d *decide.Decision) {
	l.Group("result")
	l.Note("decision: " + CheckTitle(d)) // again only when the effects changed it
	for _, n := range d.Notes {
		l.Note(n)
	}
}

// CheckTitle is the decision in one line: verdict, round and loop.
func CheckTitle(d *decide.Decision) string {
	t := fmt.Sprintf("%s — round %d of %d (%s)", d.Verdict, d.Round, d.MaxRounds, d.ID)
	if d.Status == decide.StatusPartial {
		t += ", partial"
	}
	return t
}

package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// Options shape the Markdown report of a decision.
type Options struct {
	// BlobURL is the prefix of file links, e.g.
	// "https://github.com/o/r/blob/<sha>/". Empty: findings show a plain
	// path:line without links.
	BlobURL string
	// RunURL is the workflow run that judged the round; empty when
	// unknown.
	RunURL string
	// Title overrides the heading text (the status emoji and the flag
	// badges stay).
	Title string
	// Dispatched says the next round's workflow was started.
	Dispatched bool
}

// limits bound the parts of a report; -1 means no bound.
type limits struct {
	fullRounds  int // newest history rounds shown in full
	chartRounds int // newest rounds in the trend chart
	findings    int // findings listed
	msgRunes    int // rune cap of a finding message or table cell
	proseRunes  int // rune cap of the critic's prose
	items       int // reasons, notes, steps, checks, dimensions, metrics, failures, files per task
	tasks       int // tasks shown
	files       int // rows of the per-file coverage table
}

// levels are the compaction steps of the comment: the first is the full
// report, each next one smaller; the last is the minimal report.
var levels = []limits{
	{-1, -1, -1, escInlineRunes, escBlockRunes, -1, -1, 15},
	{20, 100, 500, 500, escBlockRunes, 200, 100, 15},
	{10, 50, 200, 300, 2000, 100, 50, 15},
	{5, 30, 50, 200, 1000, 50, 20, 15},
	{4, 25, 30, 150, 700, 30, 15, 10},
	{3, 20, 20, 120, 500, 20, 10, 10},
	{1, 0, 5, 80, 300, 10, 5, 5},
	{1, 0, 0, 60, 200, 5, 3, 0},
}

// Markdown renders the whole report of a decision, without a size limit:
// what the job summary, the check run, report.md and `gcloop decide`
// show. Layout: the lead (the heading with the decision, **Why:** and
// **Next action:**), then the sections of the loop's template by name:
// Summary (run link, figures), Analysis (severity counts, the findings
// each once, the loop's own tables), Decision (decision and verdict in
// words, tasks, how to go on), and the long parts folded in <details>:
// "Iteration history" with its trend chart, and "Reasoning". All text
// that comes from artifacts is escaped (EscapeInline, EscapeBlock).
func Markdown(d *decide.Decision, o Options) (string, error) {
	return render(d, o, 0, "")
}

// render renders the report and, when marker is set, the marker as its
// last line. With maxBytes > 0 the report is compacted step by step until
// it fits; it is an error when even the minimal report and the marker do
// not. The marker itself is never cut.
func render(d *decide.Decision, o Options, maxBytes int, marker string) (string, error) {
	if d == nil {
		return "", errors.New("report: no decision")
	}
	if maxBytes < 0 {
		return "", fmt.Errorf("report: negative size limit %d", maxBytes)
	}
	if strings.ContainsAny(marker, "\r\n") {
		return "", errors.New("report: the state marker must be one line")
	}
	tail := ""
	if marker != "" {
		tail = marker + "\n"
	}
	var out string
	fs := sorted(d.Findings) // once for every level
	for i, lim := range levels {
		w := &writer{d: d, o: o, lim: lim, max: maxBytes, trimmed: i > 0, sorted: fs}
		out = w.render() + tail
		if maxBytes == 0 || len(out) <= maxBytes {
			return out, nil
		}
	}
	return "", fmt.Errorf("report: the minimal report with its state marker takes %d bytes, over the limit of %d", len(out), maxBytes)
}

// writer renders one report within its limits.
type writer struct {
	b       strings.Builder
	d       *decide.Decision
	o       Options
	lim     limits
	max     int  // size limit of the whole report, 0 for none
	trimmed bool // a compacted rendering: say where the rest is
	sorted  []decide.Finding
}

func (w *writer) render() string {
	size := 8<<10 + 400*len(w.d.Findings) + 200*(len(w.d.Tasks)+len(w.d.History)+len(w.d.Failures))
	if w.max > 0 {
		size = min(size, w.max+1024)
	}
	w.b.Grow(size)
	// The lead: decision, why, next action.
	w.heading()
	w.movement()
	w.why()
	w.next()
	// The sections of the loop's template (DESIGN.md §5.1), by name.
	w.line("### Summary\n")
	w.meta()
	w.figures()
	w.line("### Analysis\n")
	analysis := w.b.Len()
	w.severityCounts()
	w.coverageFiles()
	w.findings()
	w.dimensions()
	w.checks()
	w.metrics()
	w.failures()
	w.fixed()
	if w.b.Len() == analysis {
		w.line("Nothing beyond the figures above.\n")
	}
	w.line("### Decision\n")
	w.decision()
	w.tasks()
	w.waysOn()
	w.history()
	w.reasoning()
	w.footer()
	return w.b.String()
}

// full reports whether the report already exceeds the size limit, so that
// long lists can stop early: such a rendering is discarded anyway.
func (w *writer) full() bool { return w.max > 0 && w.b.Len() > w.max }

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (w *writer) line(s string) {
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// text escapes one line of artifact text within the cell cap.
func (w *writer) text(s string) string { return escText(s, w.lim.msgRunes, false) }

// cut applies an item bound to n items.
func cut(n, bound int) int {
	if bound >= 0 && n > bound {
		return bound
	}
	return n
}

// more writes the line that says how many items were left out.
func (w *writer) more(n int, what string) {
	if n > 0 {
		w.printf("\n… and %d more %s (all of them are in the job summary)\n", n, what)
	}
}

// openDetails starts a folded part; summary is gcloop's own text.
func (w *writer) openDetails(summary string) {
	w.printf("<details><summary>%s</summary>\n\n", summary)
}

func (w *writer) closeDetails() { w.line("</details>\n") }

func (w *writer) loopName() string {
	if w.d.ID != "" {
		return w.d.ID
	}
	return string(w.d.Loop)
}

// heading is line one: the decision.
func (w *writer) heading() {
	d := w.d
	emoji := "❔"
	switch d.Outcome {
	case decide.Converge:
		emoji = "✅"
	case decide.Fix:
		emoji = "🔁"
	case decide.Escalate:
		emoji = "🛑"
	}
	title := w.o.Title
	if title == "" {
		name := w.loopName()
		if d.Loop != "" && name != string(d.Loop) {
			name += " (" + string(d.Loop) + ")"
		}
		verdict := d.Verdict
		if verdict == "" {
			verdict = string(d.Outcome)
		}
		title = "gcloop " + name + " — " + verdict
		switch {
		case d.Round > 0 && d.MaxRounds > 0:
			title += fmt.Sprintf(" · round %d of %d", d.Round, d.MaxRounds)
		case d.Round > 0:
			title += fmt.Sprintf(" · round %d", d.Round)
		}
	}
	w.printf("## %s %s%s\n\n", emoji, w.text(title), w.badges())
}

// badges renders the flags as inline code after the heading.
func (w *writer) badges() string {
	var s string
	for _, f := range w.flags() {
		s += " `" + f + "`"
	}
	return s
}

func (w *writer) flags() []string {
	var fs []string
	if w.d.Forced {
		fs = append(fs, "forced")
	}
	if w.d.Advisory {
		fs = append(fs, "advisory")
	}
	if w.d.Stalled {
		fs = append(fs, "stalled")
	}
	if w.d.Status == decide.StatusPartial {
		fs = append(fs, "partial")
	}
	return fs
}

// meta is the small line under the three: head, workflow run, loop id.
func (w *writer) meta() {
	var parts []string
	if w.d.SHA != "" {
		parts = append(parts, "head "+w.text(shortSHA(w.d.SHA)))
	}
	if u := safeURL(w.o.RunURL); u != "" {
		parts = append(parts, "[workflow run]("+u+")")
	}
	if len(parts) == 0 {
		return
	}
	w.printf("<sub>%s</sub>\n\n", strings.Join(parts, " · "))
}

// footer says where the rest went when the comment was compacted.
func (w *writer) footer() {
	if w.trimmed {
		w.line("<sub>Shortened to fit a GitHub comment: the full report is in the job summary of the workflow run.</sub>\n")
	}
}

// safeURL keeps a URL of gcloop's own configuration that cannot break
// the link syntax, "" otherwise.
func safeURL(u string) string {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") || strings.ContainsAny(u, " \t\n()<>[]`\"'") {
		return ""
	}
	return u
}

package decide

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// CommentLimit is the largest PR comment body gcloop writes, in bytes
// (GitHub refuses bodies over 65 536 characters; bytes are the stricter
// measure).
const CommentLimit = 65536

// ReportOptions shape the markdown report of a decision.
type ReportOptions struct {
	// BlobURL is the prefix of file links, e.g.
	// "https://github.com/o/r/blob/<sha>/". Empty: findings show a plain
	// path:line without links.
	BlobURL string
	// MaxBytes caps the report, marker included: 0 is unlimited (the job
	// summary); the PR comment uses CommentLimit.
	MaxBytes int
	// Marker is the hidden state marker line the report ends with; empty
	// for none.
	Marker string
	// Title overrides the heading text (the status emoji and the flag
	// badges stay).
	Title string
}

// repLimits bound the parts of a report; -1 means no bound.
type repLimits struct {
	fullRounds   int // newest history rounds shown in full
	chartRounds  int // newest rounds in the trend chart
	findings     int // findings listed
	msgRunes     int // rune cap of a finding message or table cell
	proseRunes   int // rune cap of the critic's prose
	items        int // reasons, notes, next steps, checks, dimensions, metrics, failures, files per task
	tasks        int // tasks shown
	taskFindings int // findings shown per task
}

// repLevels are the compaction steps (DESIGN §4): the first is the full
// report, each next one smaller; the last is the minimal report.
var repLevels = []repLimits{
	{-1, -1, -1, escInlineRunes, escBlockRunes, -1, -1, -1},
	{20, 100, 500, 500, escBlockRunes, 200, 100, 50},
	{10, 50, 200, 300, 2000, 100, 50, 20},
	{5, 30, 50, 200, 1000, 50, 20, 10},
	{4, 25, 30, 150, 700, 30, 15, 8},
	{3, 20, 20, 120, 500, 20, 10, 5},
	{1, 0, 5, 80, 300, 10, 5, 3},
	{1, 0, 0, 60, 200, 5, 3, 0},
}

// RenderMarkdown renders the report of a decision following the loop's
// template: heading, Summary, Analysis, Decision, Iteration history,
// Reasoning, Next action, then o.Marker as the last line. All text that
// comes from artifacts is escaped (EscapeInline, EscapeBlock). With
// o.MaxBytes > 0 the report is compacted step by step until it fits; it is
// an error when even the minimal report and the marker do not.
func RenderMarkdown(d *Decision, o ReportOptions) (string, error) {
	if d == nil {
		return "", errors.New("report: no decision")
	}
	if o.MaxBytes < 0 {
		return "", fmt.Errorf("report: negative size limit %d", o.MaxBytes)
	}
	if strings.ContainsAny(o.Marker, "\r\n") {
		return "", errors.New("report: the state marker must be one line")
	}
	tail := ""
	if o.Marker != "" {
		tail = o.Marker + "\n"
	}
	var out string
	for _, lim := range repLevels {
		out = repRender(d, o, lim) + tail
		if o.MaxBytes == 0 || len(out) <= o.MaxBytes {
			return out, nil
		}
	}
	return "", fmt.Errorf("report: the minimal report with its state marker takes %d bytes, over the limit of %d", len(out), o.MaxBytes)
}

// repRender renders the whole report within the limits.
func repRender(d *Decision, o ReportOptions, lim repLimits) string {
	r := &repWriter{d: d, o: o, lim: lim}
	r.heading()
	r.summary()
	r.analysis()
	r.decision()
	r.history()
	r.reasoning()
	r.next()
	return r.b.String()
}

type repWriter struct {
	b   strings.Builder
	d   *Decision
	o   ReportOptions
	lim repLimits
}

// full reports whether the report already exceeds the size limit, so that
// long lists can stop early: such a rendering is discarded anyway.
func (r *repWriter) full() bool { return r.o.MaxBytes > 0 && r.b.Len() > r.o.MaxBytes }

func (r *repWriter) printf(format string, args ...any) { fmt.Fprintf(&r.b, format, args...) }

func (r *repWriter) line(s string) {
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

// text escapes one line of artifact text within the cell cap.
func (r *repWriter) text(s string) string { return escText(s, r.lim.msgRunes, false) }

// cut applies an item bound to n items.
func repCut(n, bound int) int {
	if bound >= 0 && n > bound {
		return bound
	}
	return n
}

// more writes the line that says how many items were left out.
func (r *repWriter) more(n int, what string) {
	if n > 0 {
		r.printf("\n… and %d more %s (see the job summary)\n", n, what)
	}
}

func (r *repWriter) loopName() string {
	if r.d.ID != "" {
		return r.d.ID
	}
	return string(r.d.Loop)
}

func (r *repWriter) heading() {
	d := r.d
	emoji := "❔"
	switch d.Outcome {
	case Converge:
		emoji = "✅"
	case Fix:
		emoji = "🔁"
	case Escalate:
		emoji = "🛑"
	}
	title := r.o.Title
	if title == "" {
		name := r.loopName()
		if d.Loop != "" && name != string(d.Loop) {
			name += " (" + string(d.Loop) + ")"
		}
		title = "gcloop " + name + " — " + d.Verdict
		if d.Verdict == "" {
			title = "gcloop " + name + " — " + string(d.Outcome)
		}
	}
	r.printf("## %s %s%s\n\n", emoji, r.text(title), r.badges())
}

// badges renders the flags as inline code after the heading.
func (r *repWriter) badges() string {
	var s string
	for _, f := range r.flags() {
		s += " `" + f + "`"
	}
	return s
}

func (r *repWriter) flags() []string {
	var fs []string
	if r.d.Forced {
		fs = append(fs, "forced")
	}
	if r.d.Advisory {
		fs = append(fs, "advisory")
	}
	if r.d.Stalled {
		fs = append(fs, "stalled")
	}
	if r.d.Status == StatusPartial {
		fs = append(fs, "partial")
	}
	return fs
}

func (r *repWriter) summary() {
	d := r.d
	r.line("### Summary\n")
	verdict := r.text(d.Verdict)
	if verdict == "" {
		verdict = "—"
	}
	r.printf("- **Verdict:** %s · decision `%s`\n", verdict, repWord(string(d.Outcome)))
	switch {
	case d.Round > 0 && d.MaxRounds > 0:
		r.printf("- **Round:** %d of %d\n", d.Round, d.MaxRounds)
	case d.Round > 0:
		r.printf("- **Round:** %d\n", d.Round)
	}
	switch d.Loop {
	case Review, Audit:
		if d.Score != nil {
			r.printf("- **Score:** %s / 10", repNum(*d.Score, 1))
		} else {
			r.printf("- **Score:** unknown")
		}
		if d.Signal != "" {
			r.printf(" · signal %s", r.text(d.Signal))
		}
		r.line("")
	case Coverage:
		r.printf("- **Coverage:** %s", repPercent(d.Coverage))
		if d.Target != nil {
			r.printf(" (target %s)", repPercent(d.Target))
		}
		if d.Layer != "" {
			r.printf(" · layer %s", r.text(d.Layer))
		}
		r.line("")
		if d.PassRate != nil {
			r.printf("- **Pass rate:** %s\n", repPercent(repScale(d.PassRate, 100)))
		} else {
			r.line("- **Pass rate:** unknown")
		}
	case Validation:
		if d.Regressions != nil {
			r.printf("- **Regressions:** %d\n", *d.Regressions)
		} else {
			r.line("- **Regressions:** unknown")
		}
	case Critique:
		r.printf("- **Blocking findings:** %d (critical %d, high %d)\n", d.Counts.Blocking(), d.Counts.Critical, d.Counts.High)
	}
	if d.SHA != "" {
		r.printf("- **Head:** %s\n", r.text(repShort(d.SHA)))
	}
	if d.Status == StatusPartial {
		r.line("- **Status:** ⚠️ partial — the decision was cut short")
	}
	if d.Summary != "" {
		r.printf("\n%s\n", repRich(d.Summary, r.lim.msgRunes))
	}
	if p := escText(d.Prose, r.lim.proseRunes, true); p != "" {
		r.line("\n> **Critic's summary**")
		for _, l := range strings.Split(p, "\n") {
			if l == "" {
				r.line(">")
			} else {
				r.line("> " + l)
			}
		}
	}
	r.line("")
}

func (r *repWriter) analysis() {
	d := r.d
	c := d.Counts
	r.line("### Analysis\n")
	// Validation and coverage judge checks and tests: their severity table
	// only shows when some evidence had findings.
	if c.Total() > 0 || len(d.Findings) > 0 || d.Loop != Validation && d.Loop != Coverage {
		r.line("| critical | high | medium | low | total |")
		r.line("|---:|---:|---:|---:|---:|")
		r.printf("| %d | %d | %d | %d | %d |\n\n", c.Critical, c.High, c.Medium, c.Low, c.Total())
	}
	mark := r.b.Len()
	r.findings()
	r.dimensions()
	r.checks()
	r.metrics()
	r.failures()
	if r.b.Len() == mark && c.Total() == 0 && len(d.Findings) == 0 {
		r.line("No findings.\n")
	}
}

// repGroup is the findings of one file.
type repGroup struct {
	file  string
	worst Severity
	items []Finding
}

// repGroups groups findings by file: files ordered by their most severe
// finding, then by first appearance; findings within a file most severe
// first, then in input order.
func repGroups(fs []Finding) []*repGroup {
	var groups []*repGroup
	byFile := map[string]*repGroup{}
	for _, f := range fs {
		g := byFile[f.File]
		if g == nil {
			g = &repGroup{file: f.File, worst: repRank(f.Severity)}
			byFile[f.File] = g
			groups = append(groups, g)
		}
		g.items = append(g.items, f)
		if s := repRank(f.Severity); s < g.worst {
			g.worst = s
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].worst < groups[j].worst })
	for _, g := range groups {
		sort.SliceStable(g.items, func(i, j int) bool { return repRank(g.items[i].Severity) < repRank(g.items[j].Severity) })
	}
	return groups
}

// repRank orders severities with unknown ones last.
func repRank(s Severity) Severity {
	if s < Critical || s > Low {
		return Low + 1
	}
	return s
}

func (r *repWriter) findings() {
	fs := r.d.Findings
	if len(fs) == 0 {
		return
	}
	r.printf("#### Findings (%d)\n\n", len(fs))
	left := repCut(len(fs), r.lim.findings)
	shown := 0
	for _, g := range repGroups(fs) {
		if left == 0 {
			break
		}
		if g.file == "" {
			r.printf("**(no file)** · %d\n\n", len(g.items))
		} else {
			r.printf("**%s** · %d\n\n", r.link(g.file, 0, r.text(g.file)), len(g.items))
		}
		for _, f := range g.items {
			if r.full() {
				return
			}
			if left == 0 {
				break
			}
			left--
			shown++
			r.printf("- [%s] ", f.Severity)
			if f.Line > 0 {
				r.b.WriteString(r.link(f.File, f.Line, "L"+strconv.Itoa(f.Line)))
				r.b.WriteString(": ")
			}
			r.b.WriteString(r.text(f.Message))
			if f.Rule != "" {
				r.printf(" (%s)", r.text(f.Rule))
			}
			if f.Suggestion != "" {
				r.printf(" — suggestion: %s", r.text(f.Suggestion))
			}
			r.line("")
		}
		r.line("")
	}
	if shown < len(fs) {
		r.printf("… and %d more findings (see the job summary)\n\n", len(fs)-shown)
	}
}

// link renders label (already escaped) as a link to file at line (0: the
// file) when a blob URL is set and the path is linkable.
func (r *repWriter) link(file string, line int, label string) string {
	if r.o.BlobURL == "" || file == "" {
		return label
	}
	p, ok := escURLPath(file)
	if !ok {
		return label
	}
	u := r.o.BlobURL
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	u += p
	if line > 0 {
		u += "#L" + strconv.Itoa(line)
	}
	// The blob URL comes from gcloop's own configuration, but a stray
	// space or parenthesis would still break the link syntax.
	if strings.ContainsAny(u, " \t\n()<>") {
		return label
	}
	return "[" + label + "](" + u + ")"
}

func (r *repWriter) dimensions() {
	ds := r.d.Dimensions
	if len(ds) == 0 {
		return
	}
	n := repCut(len(ds), r.lim.items)
	r.line("#### Audit dimensions\n")
	r.line("| dimension | score |")
	r.line("|---|---:|")
	for _, dm := range ds[:n] {
		score := repNum(dm.Score, 1)
		if dm.Max != nil {
			score += " / " + repNum(*dm.Max, 1)
		}
		r.printf("| %s | %s |\n", repDash(r.text(dm.Name)), score)
	}
	r.more(len(ds)-n, "dimensions")
	r.line("")
}

func (r *repWriter) checks() {
	cs := r.d.Checks
	if len(cs) == 0 {
		return
	}
	n := repCut(len(cs), r.lim.items)
	r.line("#### Validation checks\n")
	r.line("| check | status | failed | total |")
	r.line("|---|---|---:|---:|")
	for _, c := range cs[:n] {
		total := "—"
		if c.Total != nil {
			total = strconv.Itoa(*c.Total)
		}
		r.printf("| %s | %s | %d | %s |\n", repDash(r.text(c.Name)), repDash(r.text(c.Status)), c.Failed, total)
	}
	r.more(len(cs)-n, "checks")
	r.line("")
}

func (r *repWriter) metrics() {
	ms := r.d.Metrics
	if len(ms) == 0 {
		return
	}
	n := repCut(len(ms), r.lim.items)
	r.line("#### Metrics\n")
	r.line("| metric | before | after | change |")
	r.line("|---|---:|---:|---:|")
	for _, m := range ms[:n] {
		unit := ""
		if m.Unit != "" {
			unit = " " + r.text(m.Unit)
		}
		val := func(p *float64) string {
			if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
				return "—"
			}
			return repNum(*p, 2) + unit
		}
		r.printf("| %s | %s | %s | %s |\n", repDash(r.text(m.Name)), val(m.Before), val(m.After), repChange(m.Before, m.After, unit))
	}
	r.more(len(ms)-n, "metrics")
	r.line("")
}

// repChange renders after − before and, when before is not zero, the
// relative change in percent.
func repChange(before, after *float64, unit string) string {
	if before == nil || after == nil {
		return "—"
	}
	b, a := *before, *after
	diff := a - b
	if math.IsNaN(diff) || math.IsInf(diff, 0) {
		return "—"
	}
	s := repSigned(diff, 2) + unit
	if b != 0 && !math.IsInf(b, 0) {
		if rel := diff / math.Abs(b) * 100; !math.IsInf(rel, 0) && !math.IsNaN(rel) {
			s += " (" + repSigned(rel, 1) + " %)"
		}
	}
	return s
}

func (r *repWriter) failures() {
	fs := r.d.Failures
	if len(fs) == 0 {
		return
	}
	r.printf("#### Failing tests (%d)\n\n", len(fs))
	// Counts per category, in order of first appearance.
	var cats []string
	per := map[string]int{}
	for _, f := range fs {
		c := f.Category
		if c == "" {
			c = "other"
		}
		if per[c] == 0 {
			cats = append(cats, c)
		}
		per[c]++
	}
	parts := make([]string, 0, len(cats))
	for _, c := range cats[:repCut(len(cats), r.lim.items)] {
		parts = append(parts, fmt.Sprintf("%s ×%d", r.text(c), per[c]))
	}
	r.printf("Categories: %s\n\n", strings.Join(parts, " · "))
	n := repCut(len(fs), r.lim.items)
	r.line("| test | file | category | message |")
	r.line("|---|---|---|---|")
	for _, f := range fs[:n] {
		if r.full() {
			return
		}
		file := repDash(r.text(f.File))
		if f.File != "" {
			file = r.link(f.File, 0, file)
		}
		r.printf("| %s | %s | %s | %s |\n", repDash(r.text(f.Name)), file, repDash(r.text(f.Category)), repDash(r.text(f.Message)))
	}
	r.more(len(fs)-n, "failing tests")
	r.line("")
}

func (r *repWriter) decision() {
	d := r.d
	r.line("### Decision\n")
	r.printf("**Decision:** `%s` · **verdict:** %s", repWord(string(d.Outcome)), r.text(d.Verdict))
	if fs := r.flags(); len(fs) > 0 {
		r.printf(" · **flags:** %s", strings.Join(fs, ", "))
	}
	r.line("\n")
	if len(d.Tasks) == 0 {
		if d.Outcome == Fix {
			r.line("No tasks: the generator's next round is the fix.\n")
		}
		return
	}
	n := repCut(len(d.Tasks), r.lim.tasks)
	r.printf("#### Tasks (%d)\n\n", len(d.Tasks))
	for _, t := range d.Tasks[:n] {
		if r.full() {
			return
		}
		r.printf("**%s**", r.text(t.ID))
		var meta []string
		if t.Type != "" {
			meta = append(meta, r.text(t.Type))
		}
		if t.Iteration > 0 {
			meta = append(meta, "round "+strconv.Itoa(t.Iteration))
		}
		if len(meta) > 0 {
			r.printf(" (%s)", strings.Join(meta, ", "))
		}
		if t.Title != "" {
			r.printf(" — %s", r.text(t.Title))
		}
		r.line("\n")
		if len(t.TargetFiles) > 0 {
			k := repCut(len(t.TargetFiles), r.lim.items)
			files := make([]string, 0, k+1)
			for _, f := range t.TargetFiles[:k] {
				files = append(files, r.link(f, 0, r.text(f)))
			}
			if k < len(t.TargetFiles) {
				files = append(files, fmt.Sprintf("… and %d more", len(t.TargetFiles)-k))
			}
			r.printf("- Target files: %s\n", strings.Join(files, ", "))
		}
		if len(t.DependsOn) > 0 {
			k := repCut(len(t.DependsOn), r.lim.items)
			ids := make([]string, 0, k)
			for _, id := range t.DependsOn[:k] {
				ids = append(ids, r.text(id))
			}
			r.printf("- Depends on: %s\n", strings.Join(ids, ", "))
		}
		if len(t.Findings) > 0 {
			k := repCut(len(t.Findings), r.lim.taskFindings)
			r.printf("- Findings (%d):\n", len(t.Findings))
			for _, f := range t.Findings[:k] {
				r.printf("  - %s\n", r.text(f))
			}
			if k < len(t.Findings) {
				r.printf("  - … and %d more (see the job summary)\n", len(t.Findings)-k)
			}
		}
		if t.Acceptance != "" {
			r.printf("- Acceptance: %s\n", r.text(t.Acceptance))
		}
		r.line("")
	}
	r.more(len(d.Tasks)-n, "tasks")
	if n < len(d.Tasks) {
		r.line("")
	}
}

func (r *repWriter) history() {
	d := r.d
	r.line("### Iteration history\n")
	h := d.History
	if len(h) == 0 {
		r.line("No rounds recorded yet.\n")
		return
	}
	series := chartSeriesOf(d.Loop)
	r.printf("| round | sha | decision | verdict | %s | c/h/m/l | tasks | issues | commit |\n", series.label)
	r.line("|---:|---|---|---|---:|---|---|---|---|")
	full := h
	if r.lim.fullRounds >= 0 && len(h) > r.lim.fullRounds {
		old := h[:len(h)-r.lim.fullRounds]
		full = h[len(h)-r.lim.fullRounds:]
		r.collapsed(old, series)
	}
	for _, rec := range full {
		if r.full() {
			return
		}
		val := "—"
		if v, ok := series.value(rec); ok {
			val = repNum(v, 2)
		}
		verdict := r.text(rec.Verdict)
		if rec.Stalled && !strings.Contains(rec.Verdict, "stalled") {
			verdict += " (stalled)"
		}
		c := rec.Counts
		r.printf("| %d | %s | %s | %s | %s | %d/%d/%d/%d | %s | %s | %s |\n",
			rec.N, repDash(r.text(repShort(rec.SHA))), repDash(r.text(string(rec.Decision))), repDash(verdict), val,
			c.Critical, c.High, c.Medium, c.Low, r.idList(rec.Tasks), r.issueList(rec.Issues), repDash(r.text(repShort(rec.Commit))))
	}
	r.line("")
	if r.lim.chartRounds != 0 {
		rounds := h
		if r.lim.chartRounds > 0 && len(rounds) > r.lim.chartRounds {
			rounds = rounds[len(rounds)-r.lim.chartRounds:]
		}
		if c := chartRender(d.Loop, d.ID, rounds); c != "" {
			r.line(c)
		}
	}
}

// collapsed writes one row summing up older rounds.
func (r *repWriter) collapsed(old []RoundRecord, series chartSeries) {
	first, last := old[0], old[len(old)-1]
	var order []Outcome
	per := map[Outcome]int{}
	tasks, issues := 0, 0
	var vals []float64
	for _, rec := range old {
		if per[rec.Decision] == 0 {
			order = append(order, rec.Decision)
		}
		per[rec.Decision]++
		tasks += len(rec.Tasks)
		issues += len(rec.Issues)
		if v, ok := series.value(rec); ok {
			vals = append(vals, v)
		}
	}
	var ds []string
	for _, o := range order {
		ds = append(ds, fmt.Sprintf("%s ×%d", r.text(string(o)), per[o]))
	}
	val := "—"
	if len(vals) > 0 {
		val = repNum(vals[0], 1) + " → " + repNum(vals[len(vals)-1], 1)
	}
	r.printf("| rounds %d–%d | … | %s | %d rounds compacted | %s | — | %d tasks | %d issues | — |\n",
		first.N, last.N, strings.Join(ds, ", "), len(old), val, tasks, issues)
}

// idList renders task ids of a history row, at most five.
func (r *repWriter) idList(ids []string) string {
	if len(ids) == 0 {
		return "—"
	}
	k := repCut(len(ids), 5)
	out := make([]string, 0, k+1)
	for _, id := range ids[:k] {
		out = append(out, escText(id, 40, false))
	}
	if k < len(ids) {
		out = append(out, fmt.Sprintf("+%d", len(ids)-k))
	}
	return strings.Join(out, ", ")
}

// issueList renders issue numbers of a history row, at most five.
func (r *repWriter) issueList(ns []int) string {
	if len(ns) == 0 {
		return "—"
	}
	k := repCut(len(ns), 5)
	out := make([]string, 0, k+1)
	for _, n := range ns[:k] {
		out = append(out, "#"+strconv.Itoa(n))
	}
	if k < len(ns) {
		out = append(out, fmt.Sprintf("+%d", len(ns)-k))
	}
	return strings.Join(out, ", ")
}

func (r *repWriter) reasoning() {
	d := r.d
	r.line("### Reasoning\n")
	if len(d.Reasons) == 0 {
		r.line("No reasons recorded.")
	}
	r.list(d.Reasons, "reasons")
	r.line("")
	if len(d.Notes) > 0 {
		r.line("**Notes**\n")
		r.list(d.Notes, "notes")
		r.line("")
	}
}

// list writes lead-written lines that may quote artifact text.
func (r *repWriter) list(items []string, what string) {
	n := repCut(len(items), r.lim.items)
	for _, s := range items[:n] {
		if r.full() {
			return
		}
		r.printf("- %s\n", repRich(s, r.lim.msgRunes))
	}
	r.more(len(items)-n, what)
}

func (r *repWriter) next() {
	d := r.d
	r.line("### Next action\n")
	steps := d.NextSteps
	if len(steps) == 0 {
		switch {
		case d.Outcome == Escalate:
			id := ""
			if ValidID(r.loopName()) {
				id = " " + r.loopName()
			}
			steps = []string{
				"`/gc retry" + id + "` — grant one more round",
				"`/gc approve" + id + "` — force-approve and converge",
				"`/gc abort" + id + "` — stop the loop",
			}
		case d.Outcome == Fix:
			steps = []string{"the generator's next round addresses this report; gcloop judges it on the next push"}
		case d.Forced || d.Stalled:
			steps = []string{"the loop stopped without meeting its goal: read the reasons and notes before merging"}
		default:
			steps = []string{"none: the loop is done"}
		}
	}
	if d.Outcome == Escalate {
		r.line("A maintainer (write access) decides how to go on, by commenting on this pull request:\n")
	}
	r.list(steps, "steps")
	r.line("")
}

// repRich escapes a line written by gcloop itself that may quote artifact
// text: text between backticks stays a code span when it is plainly safe
// (short, printable ASCII without `<`, `>`, `&`, `@`, `\`, `|`, `$` or the
// marker keyword); everything else is escaped like EscapeInline.
func repRich(s string, max int) string {
	rs := escClean(s, false, max)
	if max > 0 && len(rs) > max {
		rs = append(rs[:max-1:max-1], '…')
	}
	parts := strings.Split(strings.TrimSpace(string(rs)), "`")
	if len(parts)%2 == 0 { // an unpaired backtick: no code spans at all
		return escRunes([]rune(strings.Join(parts, "`")), true)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && repSafeCode(p) {
			b.WriteString("`" + p + "`")
			continue
		}
		if i%2 == 1 {
			p = "`" + p + "`"
		}
		b.WriteString(escRunes([]rune(p), i == 0))
	}
	return b.String()
}

// repSafeCode reports whether s may stand in a code span as is.
func repSafeCode(s string) bool {
	if s == "" || len(s) > 200 || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || strings.IndexByte("<>&@\\|$", c) >= 0 {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(s), "gcloop:state")
}

// repWord keeps a fixed vocabulary word for a code span, or "?" .
func repWord(s string) string {
	if s == "" {
		return "none"
	}
	if !repSafeCode(s) || strings.ContainsRune(s, '`') {
		return "?"
	}
	return s
}

// repDash stands in for an empty table cell.
func repDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// repShort shortens a commit sha to 7 characters.
func repShort(sha string) string {
	if len(sha) > 7 {
		n := 0
		for i := range sha {
			if n == 7 {
				return sha[:i]
			}
			n++
		}
	}
	return sha
}

// repNum formats v with at most prec decimals, trailing zeros dropped.
func repNum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// repSigned formats v with an explicit sign.
func repSigned(v float64, prec int) string {
	s := repNum(v, prec)
	if s != "0" && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

func repPercent(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return repNum(*p, 2) + " %"
}

func repScale(p *float64, k float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * k
	return &v
}

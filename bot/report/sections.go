package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// figures is the one-row table of the round's numbers, with the change
// since the previous round where there is one.
func (w *writer) figures() {
	d := w.d
	var head, cells []string
	add := func(h, c string) { head, cells = append(head, h), append(cells, c) }
	delta := func(get func(decide.RoundRecord) *float64, cur *float64, prec int) string {
		if cur == nil {
			return ""
		}
		if prev, _, ok := w.previous(get); ok {
			return " (" + signed(*cur-prev, prec) + ")"
		}
		return ""
	}
	c := d.Counts
	switch d.Loop {
	case decide.Review, decide.Audit:
		score := "unknown"
		if d.Score != nil {
			score = num(*d.Score, 1) + " / 10" + delta(func(r decide.RoundRecord) *float64 { return r.Score }, d.Score, 1)
		}
		add("score", score)
		if d.Threshold != nil {
			add("threshold", num(*d.Threshold, 1))
		}
		add("blocking", strconv.Itoa(c.Blocking()))
		add("findings", w.countCell())
	case decide.Critique:
		add("blocking", strconv.Itoa(c.Blocking()))
		add("findings", w.countCell())
	case decide.Validation:
		regs := "unknown"
		if d.Regressions != nil {
			v := float64(*d.Regressions)
			regs = strconv.Itoa(*d.Regressions) + delta(func(r decide.RoundRecord) *float64 {
				if r.Regressions == nil {
					return nil
				}
				x := float64(*r.Regressions)
				return &x
			}, &v, 0)
		}
		add("regressions", regs)
		if c.Total() > 0 {
			add("findings", w.countCell())
		}
	case decide.Coverage:
		add("coverage", percent(d.Coverage)+delta(func(r decide.RoundRecord) *float64 { return r.Coverage }, d.Coverage, 2))
		if d.Target != nil {
			add("target", percent(d.Target))
		}
		if d.PassRate != nil {
			add("pass rate", percent(scaled(d.PassRate, 100)))
		} else {
			add("pass rate", "unknown")
		}
		add("failing tests", strconv.Itoa(len(d.Failures)))
		if d.Layer != "" {
			add("layer", w.text(d.Layer))
		}
	default:
		add("findings", w.countCell())
	}
	if d.Round > 0 {
		r := strconv.Itoa(d.Round)
		if d.MaxRounds > 0 {
			r += " of " + strconv.Itoa(d.MaxRounds)
		}
		add("round", r)
	}
	w.line("| " + strings.Join(head, " | ") + " |")
	w.line("|" + strings.Repeat(":---:|", len(head)))
	w.line("| " + strings.Join(cells, " | ") + " |")
	w.line("")
	// The coverage summary line says what the lead and the figures say.
	if d.Summary != "" && d.Loop != decide.Coverage {
		w.printf("%s\n\n", rich(d.Summary, w.lim.msgRunes))
	}
}

// severityCounts opens the Analysis: the findings by severity. Loops
// that judge no findings (coverage, validation) say nothing here unless a
// finding came; their analysis is their own tables.
func (w *writer) severityCounts() {
	d := w.d
	c := d.Counts
	switch {
	case c.Total() > 0:
		w.printf("%s: %s\n\n", plural(c.Total(), "finding"), sevList(c.Critical, c.High, c.Medium, c.Low))
	case len(d.Findings) > 0:
		w.printf("%s, none of a known severity\n\n", plural(len(d.Findings), "finding"))
	case d.Loop == decide.Coverage || d.Loop == decide.Validation:
	default:
		w.line("No findings.\n")
	}
}

// decision says the decision and the verdict in words, and the tasks it
// hands on by id (the table follows).
func (w *writer) decision() {
	d := w.d
	verdict := d.Verdict
	if verdict == "" {
		verdict = strings.ToUpper(string(d.Outcome))
	}
	if verdict == "" {
		verdict = "UNDECIDED"
	}
	var words string
	switch d.Outcome {
	case decide.Fix:
		words = w.nextRound()
	case decide.Converge:
		words = "converged"
	case decide.Escalate:
		words = "escalated to a maintainer"
	default:
		words = "no decision"
	}
	var fs []string // the flags the verdict does not already say
	for _, f := range w.flags() {
		if !strings.Contains(strings.ToLower(verdict), f) {
			fs = append(fs, f)
		}
	}
	if len(fs) > 0 {
		words += " (" + strings.Join(fs, ", ") + ")"
	}
	if ts := w.d.Tasks; len(ts) > 0 {
		k := cut(len(ts), min(w.lim.tasks, 10))
		if w.lim.tasks < 0 {
			k = cut(len(ts), 10)
		}
		ids := make([]string, 0, k+1)
		for _, t := range ts[:k] {
			ids = append(ids, dash(w.text(t.ID)))
		}
		if k < len(ts) {
			ids = append(ids, fmt.Sprintf("+%d more", len(ts)-k))
		}
		words += "; " + pluralWord(len(ts), "task") + " " + strings.Join(ids, ", ")
	}
	w.printf("**%s** — %s\n\n", w.text(verdict), words)
}

// countCell renders the severity counts of all findings.
func (w *writer) countCell() string {
	c := w.d.Counts
	if c.Total() == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", c.Total(), sevList(c.Critical, c.High, c.Medium, c.Low))
}

// sevMark is the marker of a severity in finding tables.
func sevMark(s decide.Severity) string {
	switch s {
	case decide.Critical:
		return "🔴\u00a0critical"
	case decide.High:
		return "🟠\u00a0high"
	case decide.Medium:
		return "🟡\u00a0medium"
	case decide.Low:
		return "⚪\u00a0low"
	}
	return "unknown"
}

// rank orders severities with unknown ones last.
func rank(s decide.Severity) decide.Severity {
	if s < decide.Critical || s > decide.Low {
		return decide.Low + 1
	}
	return s
}

// sorted orders findings most severe first; within a severity, files in
// the order their most severe finding comes (then input order).
func sorted(fs []decide.Finding) []decide.Finding {
	out := append([]decide.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Severity) < rank(out[j].Severity) })
	first := map[string]int{}
	for i, f := range out {
		if _, ok := first[f.File]; !ok {
			first[f.File] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank(a.Severity) != rank(b.Severity) {
			return rank(a.Severity) < rank(b.Severity)
		}
		return first[a.File] < first[b.File]
	})
	return out
}

// findings lists every finding once: the blocking ones (critical, high)
// open, the others folded. Tasks and issues refer to them, never repeat
// them.
func (w *writer) findings() {
	fs := w.sorted
	if len(fs) == 0 {
		return
	}
	split := 0
	for split < len(fs) && (fs[split].Severity == decide.Critical || fs[split].Severity == decide.High) {
		split++
	}
	block, minor := fs[:split], fs[split:]
	budget := w.lim.findings
	if len(block) > 0 {
		w.printf("#### %s\n\n", capital(plural(len(block), "blocking finding")))
		budget = w.findingTable(block, budget, "blocking findings")
	}
	if len(minor) > 0 {
		c := decide.CountFindings(minor)
		what := "minor finding"
		if len(block) == 0 {
			what = "finding"
		}
		summary := fmt.Sprintf("%s (%s)", capital(plural(len(minor), what)), sevList(0, 0, c.Medium, c.Low))
		if unknown := len(minor) - c.Medium - c.Low; unknown > 0 {
			summary = fmt.Sprintf("%s (%d of unknown severity)", capital(plural(len(minor), what)), unknown)
		}
		w.openDetails(summary)
		w.findingTable(minor, budget, "findings")
		w.closeDetails()
	}
}

// findingTable writes findings as a table within budget rows (-1: all)
// and returns the budget left.
func (w *writer) findingTable(fs []decide.Finding, budget int, what string) int {
	n := cut(len(fs), budget)
	if n > 0 {
		w.line("| severity | where | finding |")
		w.line("|---|---|---|")
	}
	shown := 0
	for _, f := range fs[:n] {
		if w.full() {
			break
		}
		shown++
		where := "—"
		switch {
		case f.File != "" && f.Line > 0:
			where = w.link(f.File, f.Line, w.text(f.File)+":"+strconv.Itoa(f.Line))
		case f.File != "":
			where = w.link(f.File, 0, w.text(f.File))
		}
		msg := dash(w.text(f.Message))
		if f.Rule != "" {
			msg += " · " + w.text(f.Rule)
		}
		if f.Suggestion != "" {
			msg += " — *suggestion:* " + w.text(f.Suggestion)
		}
		w.printf("| %s | %s | %s |\n", sevMark(f.Severity), where, msg)
	}
	if n > 0 {
		w.line("")
	}
	if shown < len(fs) {
		w.printf("… and %d more %s (all of them are in the job summary)\n\n", len(fs)-shown, what)
	}
	if budget < 0 {
		return budget
	}
	return budget - shown
}

// capital upper-cases the first letter of gcloop's own words.
func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// link renders label (already escaped) as a link to file at line (0: the
// file) when a blob URL is set and the path is linkable.
func (w *writer) link(file string, line int, label string) string {
	if w.o.BlobURL == "" || file == "" {
		return label
	}
	p, ok := escURLPath(file)
	if !ok {
		return label
	}
	u := w.o.BlobURL
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

// tasks lists the follow-up tasks by id, files and acceptance; their
// findings are the ones listed above.
func (w *writer) tasks() {
	ts := w.d.Tasks
	if len(ts) == 0 {
		return
	}
	n := cut(len(ts), w.lim.tasks)
	w.printf("#### %s\n\n", capital(plural(len(ts), "task")))
	w.line("| task | on | acceptance |")
	w.line("|---|---|---|")
	for _, t := range ts[:n] {
		if w.full() {
			return
		}
		id := "**" + dash(w.text(t.ID)) + "**"
		if t.Type != "" {
			id += " " + w.text(t.Type)
		}
		var files string
		switch {
		case len(t.TargetFiles) > 0:
			k := cut(len(t.TargetFiles), w.lim.items)
			fs := make([]string, 0, k+1)
			for _, f := range t.TargetFiles[:k] {
				fs = append(fs, w.link(f, 0, w.text(f)))
			}
			if k < len(t.TargetFiles) {
				fs = append(fs, fmt.Sprintf("+%d more", len(t.TargetFiles)-k))
			}
			files = strings.Join(fs, ", ")
		case len(t.DependsOn) > 0:
			ids := make([]string, 0, len(t.DependsOn))
			for _, d := range t.DependsOn[:cut(len(t.DependsOn), w.lim.items)] {
				ids = append(ids, w.text(d))
			}
			files = "after " + strings.Join(ids, ", ")
		case t.Title != "":
			files = w.text(t.Title)
		}
		acc := w.text(t.Acceptance)
		if len(t.Findings) > 0 {
			acc = strings.TrimSpace(fmt.Sprintf("%s (%s)", acc, plural(len(t.Findings), "finding")))
		}
		w.printf("| %s | %s | %s |\n", id, dash(files), dash(acc))
	}
	w.more(len(ts)-n, "tasks")
	w.line("")
}

// table writes a titled table of count rows, at most the item limit of
// them, then how many more there are (noun): head is the header row, align
// the delimiter row, and row(i) writes row i. No rows, no table.
func (w *writer) table(title, head, align string, count int, noun string, row func(i int)) {
	if count == 0 {
		return
	}
	n := cut(count, w.lim.items)
	w.line(title + "\n")
	w.line(head)
	w.line(align)
	for i := range n {
		row(i)
	}
	w.more(count-n, noun)
	w.line("")
}

func (w *writer) dimensions() {
	ds := w.d.Dimensions
	w.table("#### Audit dimensions", "| dimension | score |", "|---|---:|", len(ds), "dimensions", func(i int) {
		score := num(ds[i].Score, 1)
		if ds[i].Max != nil {
			score += " / " + num(*ds[i].Max, 1)
		}
		w.printf("| %s | %s |\n", dash(w.text(ds[i].Name)), score)
	})
}

func (w *writer) checks() {
	cs := w.d.Checks
	w.table("#### Checks", "| check | status | failed | total |", "|---|---|---:|---:|", len(cs), "checks", func(i int) {
		c := cs[i]
		total := "—"
		if c.Total != nil {
			total = strconv.Itoa(*c.Total)
		}
		w.printf("| %s | %s | %d | %s |\n", dash(w.text(c.Name)), dash(w.text(c.Status)), c.Failed, total)
	})
}

func (w *writer) metrics() {
	ms := w.d.Metrics
	w.table("#### Metrics", "| metric | before | after | change |", "|---|---:|---:|---:|", len(ms), "metrics", func(i int) {
		m := ms[i]
		unit := ""
		if m.Unit != "" {
			unit = " " + w.text(m.Unit)
		}
		val := func(p *float64) string {
			if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
				return "—"
			}
			return num(*p, 2) + unit
		}
		w.printf("| %s | %s | %s | %s |\n", dash(w.text(m.Name)), val(m.Before), val(m.After), change(m.Before, m.After, unit))
	})
}

// change renders after − before and, when before is not zero, the
// relative change in percent.
func change(before, after *float64, unit string) string {
	if before == nil || after == nil {
		return "—"
	}
	b, a := *before, *after
	diff := a - b
	if math.IsNaN(diff) || math.IsInf(diff, 0) {
		return "—"
	}
	s := signed(diff, 2) + unit
	if b != 0 && !math.IsInf(b, 0) {
		if rel := diff / math.Abs(b) * 100; !math.IsInf(rel, 0) && !math.IsNaN(rel) {
			s += " (" + signed(rel, 1) + " %)"
		}
	}
	return s
}

// failures lists the failing tests with their categories; more than five
// are folded.
func (w *writer) failures() {
	fs := w.d.Failures
	if len(fs) == 0 {
		return
	}
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
	folded := len(fs) > 5
	parts := make([]string, 0, len(cats))
	for _, c := range cats[:cut(len(cats), w.lim.items)] {
		if folded {
			parts = append(parts, fmt.Sprintf("%s ×%d", htmlText(c, 60), per[c]))
		} else {
			parts = append(parts, fmt.Sprintf("%s ×%d", w.text(c), per[c]))
		}
	}
	if folded {
		w.openDetails(fmt.Sprintf("%s: %s", capital(plural(len(fs), "failing test")), strings.Join(parts, ", ")))
	} else {
		w.printf("#### %s\n\n%s\n\n", capital(plural(len(fs), "failing test")), strings.Join(parts, " · "))
	}
	n := cut(len(fs), w.lim.items)
	w.line("| test | file | category | message |")
	w.line("|---|---|---|---|")
	for _, f := range fs[:n] {
		if w.full() {
			break
		}
		file := dash(w.text(f.File))
		if f.File != "" {
			file = w.link(f.File, 0, file)
		}
		w.printf("| %s | %s | %s | %s |\n", dash(w.text(f.Name)), file, dash(w.text(f.Category)), dash(w.text(f.Message)))
	}
	w.more(len(fs)-n, "failing tests")
	w.line("")
	if folded {
		w.closeDetails()
	}
}

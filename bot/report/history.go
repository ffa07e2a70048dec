package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// history folds the round history, with its trend chart, into one
// <details> whose summary shows the trend as numbers and a sparkline.
func (w *writer) history() {
	d := w.d
	h := d.History
	if len(h) == 0 {
		return
	}
	series := chartSeriesOf(d.Loop)
	var vals []float64
	for _, rec := range h {
		if v, ok := series.value(rec); ok {
			vals = append(vals, v)
		}
	}
	summary := "Iteration history: " + plural(len(h), "round")
	if len(vals) > 0 {
		k := len(vals)
		pts := vals
		if k > 6 {
			pts = vals[k-6:]
		}
		strs := make([]string, 0, len(pts)+1)
		if k > len(pts) {
			strs = append(strs, "…")
		}
		for _, v := range pts {
			strs = append(strs, num(v, 2))
		}
		summary += fmt.Sprintf(" — %s %s", series.label, strings.Join(strs, " → "))
		if len(vals) > 1 {
			summary += " " + sparkline(vals, series)
		}
	}
	w.openDetails(summary)
	w.printf("| round | sha | decision | verdict | %s | c/h/m/l | tasks | issues | commit | time |\n", series.label)
	w.line("|---:|---|---|---|---:|---|---|---|---|---:|")
	full := h
	if w.lim.fullRounds >= 0 && len(h) > w.lim.fullRounds {
		old := h[:len(h)-w.lim.fullRounds]
		full = h[len(h)-w.lim.fullRounds:]
		w.collapsed(old, series)
	}
	for _, rec := range full {
		if w.full() {
			break
		}
		val := "—"
		if v, ok := series.value(rec); ok {
			val = num(v, 2)
		}
		verdict := w.text(rec.Verdict)
		if rec.Stalled && !strings.Contains(rec.Verdict, "stalled") {
			verdict += " (stalled)"
		}
		c := rec.Counts
		w.printf("| %d | %s | %s | %s | %s | %d/%d/%d/%d | %s | %s | %s | %s |\n",
			rec.N, dash(w.text(shortSHA(rec.SHA))), dash(w.text(string(rec.Decision))), dash(verdict), val,
			c.Critical, c.High, c.Medium, c.Low, w.idList(rec.Tasks), issueList(rec.Issues), dash(w.text(shortSHA(rec.Commit))), roundTime(rec))
	}
	w.line("")
	if t := loopTime(h); t != "" {
		w.line(t + "\n")
	}
	if w.lim.chartRounds != 0 {
		rounds := h
		if w.lim.chartRounds > 0 && len(rounds) > w.lim.chartRounds {
			rounds = rounds[len(rounds)-w.lim.chartRounds:]
		}
		if c := chartRender(d.Loop, d.ID, rounds); c != "" {
			w.line(c)
		}
	}
	w.closeDetails()
}

// sparkBlocks are the eight heights of a sparkline.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as block characters over the series' fixed
// range, or over the values' own range when it has none.
func sparkline(vals []float64, s chartSeries) string {
	lo, hi := s.min, s.max
	if hi < lo {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if len(vals) > 20 {
		vals = vals[len(vals)-20:]
	}
	out := make([]rune, 0, len(vals))
	for _, v := range vals {
		i := 0
		if hi > lo {
			i = int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1)))
		}
		out = append(out, sparkBlocks[max(0, min(i, len(sparkBlocks)-1))])
	}
	return string(out)
}

// collapsed writes one row summing up older rounds.
func (w *writer) collapsed(old []decide.RoundRecord, series chartSeries) {
	first, last := old[0], old[len(old)-1]
	var order []decide.Outcome
	per := map[decide.Outcome]int{}
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
		ds = append(ds, fmt.Sprintf("%s ×%d", w.text(string(o)), per[o]))
	}
	val := "—"
	if len(vals) > 0 {
		val = num(vals[0], 1) + " → " + num(vals[len(vals)-1], 1)
	}
	w.printf("| rounds %d–%d | … | %s | %d rounds compacted | %s | — | %d tasks | %d issues | — | — |\n",
		first.N, last.N, strings.Join(ds, ", "), len(old), val, tasks, issues)
}

// idList renders task ids of a history row, at most five.
func (w *writer) idList(ids []string) string {
	if len(ids) == 0 {
		return "—"
	}
	k := cut(len(ids), 5)
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
func issueList(ns []int) string {
	if len(ns) == 0 {
		return "—"
	}
	k := cut(len(ns), 5)
	out := make([]string, 0, k+1)
	for _, n := range ns[:k] {
		out = append(out, "#"+strconv.Itoa(n))
	}
	if k < len(ns) {
		out = append(out, fmt.Sprintf("+%d", len(ns)-k))
	}
	return strings.Join(out, ", ")
}

// reasoning folds the reasons, the notes and the critic's own summary.
func (w *writer) reasoning() {
	d := w.d
	prose := escText(d.Prose, w.lim.proseRunes, true)
	if len(d.Reasons) == 0 && len(d.Notes) == 0 && prose == "" {
		return
	}
	var parts []string
	if n := len(d.Reasons); n > 0 {
		parts = append(parts, plural(n, "reason"))
	}
	if n := len(d.Notes); n > 0 {
		parts = append(parts, plural(n, "note"))
	}
	if prose != "" {
		parts = append(parts, "the critic's summary")
	}
	w.openDetails("Reasoning: " + strings.Join(parts, ", "))
	if len(d.Reasons) > 0 {
		w.list(d.Reasons, "reasons")
		w.line("")
	}
	if len(d.Notes) > 0 {
		w.line("**Notes**\n")
		w.list(d.Notes, "notes")
		w.line("")
	}
	if prose != "" {
		w.line("**Critic's summary**\n")
		for _, l := range strings.Split(prose, "\n") {
			if l == "" {
				w.line(">")
			} else {
				w.line("> " + l)
			}
		}
		w.line("")
	}
	w.closeDetails()
}

// list writes lines written by gcloop that may quote artifact text.
func (w *writer) list(items []string, what string) {
	n := cut(len(items), w.lim.items)
	for _, s := range items[:n] {
		if w.full() {
			return
		}
		w.printf("- %s\n", rich(s, w.lim.msgRunes))
	}
	w.more(len(items)-n, what)
}

// waysOn lists what a maintainer can do about an escalation.
func (w *writer) waysOn() {
	d := w.d
	if d.Outcome != decide.Escalate || noneStep(d.NextSteps) != "" {
		return
	}
	var steps []string
	for _, s := range d.NextSteps {
		steps = append(steps, w.withID(s))
	}
	if len(steps) == 0 {
		id := w.idSuffix()
		steps = []string{
			"`/gc retry" + id + "` — grant one more round",
			"`/gc approve" + id + "` — force-approve and converge",
			"`/gc abort" + id + "` — stop the loop",
		}
	}
	w.line("#### How to go on\n")
	w.line("A maintainer (write access) decides, by commenting on this pull request:\n")
	w.list(steps, "steps")
	w.line("")
}

package report

// The sections after the findings: tasks, dimensions, checks, metrics and
// failures.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

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
	status := w.tracked()
	if status {
		w.line("| test | status | file | category | message |")
		w.line("|---|---|---|---|---|")
	} else {
		w.line("| test | file | category | message |")
		w.line("|---|---|---|---|")
	}
	for _, f := range fs[:n] {
		if w.full() {
			break
		}
		file := dash(w.text(f.File))
		if f.File != "" {
			file = w.link(f.File, 0, file)
		}
		name := dash(w.text(f.Name))
		if status {
			name += " | " + w.statusCell(w.d.TestStatus(f.Name))
		}
		w.printf("| %s | %s | %s | %s |\n", name, file, dash(w.text(f.Category)), dash(w.text(f.Message)))
	}
	w.more(len(fs)-n, "failing tests")
	w.line("")
	if folded {
		w.closeDetails()
	}
}

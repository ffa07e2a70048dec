package report

import (
	"math"
	"sort"

	"github.com/gcloop/gcloop/decide"
)

// fileRow is one file of the per-file coverage table.
type fileRow struct {
	path      string
	now, prev float64
	hasPrev   bool
	delta     float64
}

// fileChanges compares this round's per-file coverage with the previous
// round's: files whose coverage changed, worst change first, then new
// files, least covered first. Unchanged and removed files are left out.
func fileChanges(now, prev []decide.FileCoverage) []fileRow {
	before := make(map[string]decide.FileCoverage, len(prev))
	for _, f := range prev {
		before[f.Path] = f
	}
	var changed, added []fileRow
	for _, f := range now {
		r := fileRow{path: f.Path, now: f.Percent()}
		if p, ok := before[f.Path]; ok {
			r.prev, r.hasPrev = p.Percent(), true
			r.delta = r.now - r.prev
			if math.Abs(r.delta) < 0.005 {
				continue
			}
			changed = append(changed, r)
			continue
		}
		added = append(added, r)
	}
	sort.SliceStable(changed, func(i, j int) bool {
		if changed[i].delta != changed[j].delta {
			return changed[i].delta < changed[j].delta
		}
		return changed[i].path < changed[j].path
	})
	sort.SliceStable(added, func(i, j int) bool {
		if added[i].now != added[j].now {
			return added[i].now < added[j].now
		}
		return added[i].path < added[j].path
	})
	return append(changed, added...)
}

// lowest is this round's files, least covered first.
func lowest(now []decide.FileCoverage) []fileRow {
	rows := make([]fileRow, 0, len(now))
	for _, f := range now {
		rows = append(rows, fileRow{path: f.Path, now: f.Percent()})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].now != rows[j].now {
			return rows[i].now < rows[j].now
		}
		return rows[i].path < rows[j].path
	})
	return rows
}

// coverageFiles is the per-file table of a coverage round: the files whose
// coverage changed most since the previous round (worst first), or, in a
// round without an earlier one to compare with, the least covered files.
func (w *writer) coverageFiles() {
	d := w.d
	if d.Loop != decide.Coverage || len(d.Files) == 0 || w.lim.files == 0 {
		return
	}
	var rows []fileRow
	compare := d.PrevFiles != nil
	if compare {
		rows = fileChanges(d.Files, d.PrevFiles)
		if len(rows) == 0 {
			w.printf("No file's coverage changed since round %d (%s).\n\n", d.PrevFilesRound, plural(len(d.Files), "file"))
			return
		}
		w.printf("#### Coverage by file: %s changed since round %d\n\n", plural(len(rows), "file"), d.PrevFilesRound)
	} else {
		rows = lowest(d.Files)
		what := "least covered files"
		if d.Round > 1 {
			what += " (no per-file coverage of an earlier round to compare with)"
		}
		w.printf("#### Coverage by file: %s\n\n", what)
	}
	n := cut(len(rows), w.lim.files)
	if compare {
		w.line("| file | before | now | change |")
		w.line("|---|---:|---:|---:|")
	} else {
		w.line("| file | coverage |")
		w.line("|---|---:|")
	}
	for _, r := range rows[:n] {
		name := w.link(r.path, 0, w.text(r.path))
		switch {
		case !compare:
			w.printf("| %s | %s %% |\n", name, num(r.now, 2))
		case r.hasPrev:
			mark := "🔺"
			if r.delta < 0 {
				mark = "🔻"
			}
			w.printf("| %s | %s %% | %s %% | %s %s |\n", name, num(r.prev, 2), num(r.now, 2), mark, signed(r.delta, 2))
		default:
			w.printf("| %s | — | %s %% | new |\n", name, num(r.now, 2))
		}
	}
	if k := len(rows) - n; k > 0 {
		w.printf("\n… and %d more %s\n", k, pluralWord(k, "file"))
	}
	w.line("")
}

package evidence

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

// ReadTasksCSV reads the framework's master tasks.csv (DESIGN §3): a header
// row, then one row per task, each wave's agents filling the output columns.
// Three loops can speak in it:
//
//   - review: review_score (1–10) and gc_signal (CONVERGED|REVISION_NEEDED),
//     with the row's findings prose as ReviewFacts.Summary;
//   - critique: severity_summary ("CRITICAL:0 HIGH:2 MEDIUM:3 LOW:3"); an
//     unreadable summary sets CritiqueFacts.Unreadable (DESIGN §2.2);
//   - audit: audit_score (0–10), audit_signal, findings prose and
//     artifacts_produced (semicolon-separated).
//
// For each loop the row used is the last one whose loop columns are
// non-empty, preferring the highest wave when a wave column exists. A
// challenger row (non-empty severity_summary) also carries a gc_signal; it
// belongs to the critique, not to a review. The findings column is never
// parsed into findings. Bad numbers, unknown signals and ragged rows are
// errors naming the line and column.
func ReadTasksCSV(name string, r io.Reader) (*decide.Evidence, error) {
	br := bufio.NewReader(lnCapped(r))
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, parse.LineError(name, 1, "empty file: expected a tasks.csv header row")
		}
		return nil, csvError(name, err)
	}
	cols := csvColumns{}
	for i, h := range header {
		key := strings.ToLower(strings.TrimSpace(h))
		if _, dup := cols[key]; dup && csvLoopColumn(key) {
			return nil, parse.LineError(name, 1, "column %q appears twice in the header", key)
		}
		if _, dup := cols[key]; !dup {
			cols[key] = i
		}
	}
	hasReview := cols.has("review_score") || cols.has("gc_signal")
	hasCritique := cols.has("severity_summary")
	hasAudit := cols.has("audit_score") || cols.has("audit_signal")
	if !hasReview && !hasCritique && !hasAudit {
		return nil, parse.LineError(name, 1, "no review, critique or audit columns (want review_score/gc_signal, severity_summary or audit_score/audit_signal in the header)")
	}
	var best [3]*csvRow    // review, critique, audit
	var emptyAudit *csvRow // the last completed AUDIT row with neither score nor signal
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		row := &csvRow{rec: rec, line: func(i int) int { l, _ := cr.FieldPos(i); return l }}
		wave, err := row.wave(name, cols)
		if err != nil {
			return nil, err
		}
		row.waveN = wave
		critique := hasCritique && cols.get(rec, "severity_summary") != ""
		review := hasReview && (cols.get(rec, "review_score") != "" || (!critique && cols.get(rec, "gc_signal") != ""))
		audit := hasAudit && (cols.get(rec, "audit_score") != "" || cols.get(rec, "audit_signal") != "")
		if hasAudit && !audit && csvDoneAuditRow(rec, cols) && (emptyAudit == nil || wave >= emptyAudit.waveN) {
			emptyAudit = row.snapshot(cols)
		}
		for k, ok := range [3]bool{review, critique, audit} {
			if !ok {
				continue
			}
			if best[k] == nil || wave >= best[k].waveN {
				best[k] = row.snapshot(cols)
			}
		}
	}
	ev := &decide.Evidence{Sources: []string{name}}
	var notes lnNotes
	if b := best[0]; b != nil {
		rf := &decide.ReviewFacts{Summary: b.vals["findings"]}
		if s := b.vals["review_score"]; s != "" {
			v, err := lnParseScore(s)
			if err != nil {
				return nil, parse.LineError(name, b.lines["review_score"], "column review_score: %v", err)
			}
			if v < 1 || v > 10 {
				return nil, parse.LineError(name, b.lines["review_score"], "column review_score: %s out of range (want 1 to 10)", s)
			}
			rf.Score = &v
		}
		if !b.critique {
			sig, err := lnReviewSignal(b.vals["gc_signal"])
			if err != nil {
				return nil, parse.LineError(name, b.lines["gc_signal"], "column gc_signal: %v", err)
			}
			rf.Signal = sig
		}
		ev.Review = rf
	}
	if b := best[1]; b != nil {
		cf := &decide.CritiqueFacts{}
		if c, err := csvSeveritySummary(b.vals["severity_summary"]); err != nil {
			cf.Unreadable = fmt.Sprintf("severity_summary %q: %v", csvShort(b.vals["severity_summary"]), err)
			notes.addf("%s:%d: column severity_summary unreadable (%v); critique converges with a warning", name, b.lines["severity_summary"], err)
		} else {
			cf.Summary = &c
		}
		if s := b.vals["gc_signal"]; s != "" {
			if _, err := lnReviewSignal(s); err != nil {
				notes.addf("%s:%d: column gc_signal of the challenger row: %v (ignored)", name, b.lines["gc_signal"], err)
			}
		}
		ev.Critique = cf
	}
	if best[2] == nil && emptyAudit != nil {
		// The audit ran but filled neither column: its evidence is an
		// anomaly, counted as fix_required (DESIGN §2.3), not "no audit".
		best[2] = emptyAudit
		notes.addf("%s:%d: the audit row %s is completed with audit_score and audit_signal empty", name, emptyAudit.lines["id"], csvShort(emptyAudit.vals["id"]))
	}
	if b := best[2]; b != nil {
		af := &decide.AuditFacts{Summary: b.vals["findings"]}
		if s := b.vals["audit_score"]; s != "" {
			v, err := lnParseScore(s)
			if err != nil {
				return nil, parse.LineError(name, b.lines["audit_score"], "column audit_score: %v", err)
			}
			if v < 0 || v > 10 {
				return nil, parse.LineError(name, b.lines["audit_score"], "column audit_score: %s out of range (want 0 to 10)", s)
			}
			af.Score = &v
		}
		sig, err := lnAuditSignal(b.vals["audit_signal"])
		if err != nil {
			return nil, parse.LineError(name, b.lines["audit_signal"], "column audit_signal: %v", err)
		}
		af.Signal = sig
		for _, a := range strings.Split(b.vals["artifacts_produced"], ";") {
			if a = strings.TrimSpace(a); a != "" && len(af.Artifacts) < 1000 {
				af.Artifacts = append(af.Artifacts, a)
			}
		}
		ev.Audit = af
	}
	if ev.Review == nil && ev.Critique == nil && ev.Audit == nil {
		notes.addf("%s: no row has review, critique or audit values yet", name)
	}
	ev.Notes = notes.done(name)
	return ev, nil
}

// csvColumns maps lower-case header names to column indexes.
type csvColumns map[string]int

func (c csvColumns) has(k string) bool { _, ok := c[k]; return ok }

func (c csvColumns) get(rec []string, k string) string {
	i, ok := c[k]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func csvLoopColumn(k string) bool {
	switch k {
	case "review_score", "gc_signal", "severity_summary", "audit_score", "audit_signal", "findings", "artifacts_produced", "wave":
		return true
	}
	return false
}

// csvRow is one record while reading; snapshot copies what a loop needs.
type csvRow struct {
	rec      []string
	line     func(int) int
	waveN    int
	vals     map[string]string
	lines    map[string]int
	critique bool
}

func (r *csvRow) wave(name string, cols csvColumns) (int, error) {
	s := cols.get(r.rec, "wave")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, parse.LineError(name, r.line(cols["wave"]), "column wave: %q is not a wave number", csvShort(s))
	}
	return n, nil
}

func (r *csvRow) snapshot(cols csvColumns) *csvRow {
	out := &csvRow{waveN: r.waveN, vals: map[string]string{}, lines: map[string]int{}}
	for _, k := range []string{"id", "review_score", "gc_signal", "severity_summary", "audit_score", "audit_signal", "findings", "artifacts_produced"} {
		if i, ok := cols[k]; ok && i < len(r.rec) {
			out.vals[k] = strings.TrimSpace(r.rec[i])
			out.lines[k] = r.line(i)
		}
	}
	out.critique = out.vals["severity_summary"] != ""
	return out
}

// csvError converts an encoding/csv error into a ParseError.
func csvError(name string, err error) error {
	if errors.Is(err, lines.ErrTooLarge) {
		return lnTooLarge(name)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return parse.LineError(name, pe.Line, "row has a different number of fields than the header")
		}
		return parse.LineError(name, pe.Line, "column %d: %v", pe.Column, pe.Err)
	}
	return lnFileError(name, "read error: %v", err)
}

// csvSeveritySummary parses "CRITICAL:0 HIGH:2 MEDIUM:3 LOW:3" (any order,
// any case, separated by spaces, commas, semicolons or pipes; ':' or '=').
// Severities not named count zero.
func csvSeveritySummary(s string) (decide.Counts, error) {
	var c decide.Counts
	t := strings.NewReplacer("{", " ", "}", " ", `"`, " ", "'", " ", ",", " ", ";", " ", "|", " ", "=", ":", "\t", " ").Replace(s)
	t = csvColonSpace().ReplaceAllString(t, ":")
	seen := map[decide.Severity]bool{}
	fields := strings.Fields(t)
	if len(fields) == 0 {
		return c, fmt.Errorf("empty")
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			return c, fmt.Errorf("%q is not SEVERITY:COUNT", csvShort(f))
		}
		var sev decide.Severity
		switch strings.ToLower(k) {
		case "critical":
			sev = decide.Critical
		case "high":
			sev = decide.High
		case "medium":
			sev = decide.Medium
		case "low":
			sev = decide.Low
		default:
			return c, fmt.Errorf("unknown severity %q", csvShort(k))
		}
		if seen[sev] {
			return c, fmt.Errorf("%s counted twice", sev)
		}
		seen[sev] = true
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<30 {
			return c, fmt.Errorf("count %q for %s is not a non-negative integer", csvShort(v), sev)
		}
		switch sev {
		case decide.Critical:
			c.Critical = n
		case decide.High:
			c.High = n
		case decide.Medium:
			c.Medium = n
		case decide.Low:
			c.Low = n
		}
	}
	return c, nil
}

// csvColonSpace matches a colon with the blanks around it.
var csvColonSpace = lazyre.New(`\s*:\s*`)

// csvShort shortens a value for messages.
func csvShort(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// isTasksCSV reports whether head starts with a tasks.csv header row that
// names a review, critique or audit column.
func isTasksCSV(head []byte) bool {
	h := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	line, _, _ := bytes.Cut(h, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !bytes.Contains(line, []byte(",")) {
		return false
	}
	loop, id := false, false
	for _, f := range bytes.Split(line, []byte(",")) {
		k := strings.ToLower(strings.Trim(strings.TrimSpace(string(f)), `"`))
		switch k {
		case "review_score", "gc_signal", "severity_summary", "audit_score", "audit_signal":
			loop = true
		case "id", "task_id", "title", "status", "findings", "wave", "role":
			id = true
		}
	}
	return loop && id
}

// csvDoneAuditRow reports whether a row is the audit task's own (its id
// starts with AUDIT, as the framework names audit tasks) and is done: its
// status is completed, or the file has no status column.
func csvDoneAuditRow(rec []string, cols csvColumns) bool {
	if !strings.HasPrefix(strings.ToUpper(cols.get(rec, "id")), "AUDIT") {
		return false
	}
	if !cols.has("status") {
		return true
	}
	switch strings.ToLower(cols.get(rec, "status")) {
	case "completed", "complete", "done":
		return true
	}
	return false
}

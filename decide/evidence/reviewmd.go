package evidence

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// ReadReviewMarkdown reads the reviewer's report (review-NNN.md). It knows
// the framework's layout —
//
//	# Code Review — Round 2
//	**Quality Score**: 6.5/10
//	### 1. [HIGH] Token expiry not validated
//	**File**: src/auth/jwt.ts:42
//	**Dimension**: security
//	**Description**: ...
//	**Suggestion**: ...
//	## Signal
//	REVISION_NEEDED — quality below threshold
//
// — and its common variants: "Score: 6/10", "## Review Score: 6/10", an
// "| **Overall** | **6.5/10** |" table row, "**Signal**: CONVERGED", list
// findings such as "- **[HIGH]** title (src/a.ts:42)", and plain
// "File: path:line" lines. The report's own words APPROVED and CRITICAL (and
// the message types review_passed, review_revision, review_critical) are read
// as CONVERGED and REVISION_NEEDED, with a note. Fenced code blocks are
// ignored. An unknown word in a finding's brackets, an unknown signal or a
// score outside 1–10 is an error naming the line.
func ReadReviewMarkdown(name string, r io.Reader) (*decide.Evidence, error) {
	p := &rmParser{name: name, keep: &keeper{}, stated: map[decide.Severity]rmStated{}}
	if err := lnEachLine(name, r, p.line); err != nil {
		return nil, err
	}
	return p.finish()
}

type rmStated struct {
	n, line int
}

type rmParser struct {
	name    string
	keep    *keeper
	notes   lnNotes
	fence   lnFence
	cur     *decide.Finding
	curLine int
	// pendingTitle is the current finding's headline, its message when no
	// description follows.
	pendingTitle string

	score      *float64
	scoreLine  int
	tableScore *float64
	tableLine  int

	signal       string
	signalLine   int
	signalNext   bool // a "## Signal" heading waits for its value
	signalHeadAt int

	stated  map[decide.Severity]rmStated
	counted decide.Counts
	any     bool
}

func (p *rmParser) line(n int, raw string) error {
	t := strings.TrimSpace(raw)
	if p.fence.skip(t) {
		return nil
	}
	if t == "" {
		return nil
	}
	sev, title, ok, err := lnBracketFinding(t)
	if err != nil {
		return parse.LineError(p.name, n, "%v", err)
	}
	if ok {
		p.flush()
		p.signalNext = false
		p.start(n, sev, title)
		return nil
	}
	lvl, htext := lnHeading(t)
	if lvl > 0 {
		p.flush()
		p.signalNext = false
		return p.heading(n, htext)
	}
	if p.signalNext {
		p.signalNext = false
		if err := p.setSignal(n, t); err != nil {
			return err
		}
		return nil
	}
	if cells, isRow := lnTableCells(t); isRow {
		return p.tableRow(n, cells)
	}
	label, value, isLabel := lnLabel(t)
	if p.cur != nil {
		if isLabel && p.field(label, value) {
			return nil
		}
		if !isLabel && p.cur.Message == "" {
			if _, item, isItem := lnListItem(t); isItem {
				t = item
			}
			p.cur.Message = lnClean(t)
			return nil
		}
	}
	if isLabel {
		return p.label(n, label, value)
	}
	return nil
}

func (p *rmParser) start(n int, sev decide.Severity, title string) {
	f := decide.Finding{Severity: sev, Source: fmt.Sprintf("%s:%d", p.name, n)}
	if file, line, s, e, ok := lnFindRef(title); ok {
		f.File, f.Line = file, line
		title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(title[:s]+title[e:]), "(—–-:"))
		title = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(title), "()"))
	}
	p.cur = &f
	p.curLine = n
	p.pendingTitle = title
}

// flush ends the current finding.
func (p *rmParser) flush() {
	if p.cur == nil {
		return
	}
	f := *p.cur
	if f.Message == "" {
		f.Message = p.pendingTitle
	}
	p.keep.push(f)
	p.counted.Add(f.Severity)
	p.any = true
	p.cur = nil
	p.pendingTitle = ""
}

// field reads a label line inside a finding; it reports whether the label
// was a finding field.
func (p *rmParser) field(label, value string) bool {
	switch label {
	case "file", "location", "where", "path", "file line", "file/line":
		if file, line, ok := lnSplitFileLine(value); ok {
			if ref, rl, _, _, found := lnFindRef(value); found && file != ref {
				file, line = ref, rl
			}
			p.cur.File, p.cur.Line = file, line
			if strings.EqualFold(file, "n/a") || file == "-" || strings.EqualFold(file, "none") {
				p.cur.File, p.cur.Line = "", 0
			}
		}
	case "line", "line(s)", "lines":
		if n, err := strconv.Atoi(lnFirstWord(value)); err == nil && n >= 0 && n <= 1<<30 {
			p.cur.Line = n
		}
	case "dimension", "category":
		p.cur.Rule = value
	case "description", "issue", "problem", "what", "details":
		p.cur.Message = value
	case "suggestion", "fix", "recommendation", "remediation", "suggested fix":
		p.cur.Suggestion = value
	default:
		return false
	}
	return true
}

func (p *rmParser) heading(n int, text string) error {
	if label, value, ok := lnLabel(text); ok {
		if value == "" && rmSignalLabel(label) {
			p.signalNext = true
			p.signalHeadAt = n
			return nil
		}
		return p.label(n, label, value)
	}
	if rmSignalLabel(strings.ToLower(lnClean(text))) {
		p.signalNext = true
		p.signalHeadAt = n
	}
	return nil
}

func rmSignalLabel(l string) bool {
	switch l {
	case "signal", "gc signal", "review signal", "verdict", "gc_signal":
		return true
	}
	return false
}

func (p *rmParser) label(n int, label, value string) error {
	switch {
	case rmScoreLabel(label):
		v, ok, err := p.parseScore(n, value)
		if err != nil || !ok {
			return err
		}
		if p.score == nil {
			p.score, p.scoreLine = &v, n
		} else if *p.score != v {
			p.notes.addf("%s:%d: score %g differs from the score %g on line %d; line %d wins", p.name, n, v, *p.score, p.scoreLine, p.scoreLine)
		}
		p.any = true
	case rmSignalLabel(label):
		if value == "" {
			p.signalNext = true
			return nil
		}
		return p.setSignal(n, value)
	default:
		if sev, ok := rmCountLabel(label); ok {
			if c, err := strconv.Atoi(lnFirstWord(value)); err == nil && c >= 0 {
				if _, seen := p.stated[sev]; !seen {
					p.stated[sev] = rmStated{n: c, line: n}
				}
			}
		}
	}
	return nil
}

func rmScoreLabel(l string) bool {
	switch l {
	case "score", "quality score", "review score", "overall score", "final score", "overall quality score", "review score (1 10)":
		return true
	}
	return false
}

func rmCountLabel(l string) (decide.Severity, bool) {
	w, ok := strings.CutSuffix(l, " issues")
	if !ok {
		w, ok = strings.CutSuffix(l, " findings")
	}
	if !ok {
		return 0, false
	}
	switch w {
	case "critical", "high", "medium", "low":
		s, _ := decide.ParseSeverity(w)
		return s, true
	}
	return 0, false
}

// parseScore reads a review score; ok is false when the value holds no
// number and is not meant to (an empty value).
func (p *rmParser) parseScore(n int, value string) (float64, bool, error) {
	if strings.TrimSpace(value) == "" {
		return 0, false, nil
	}
	v, denom, ok, err := lnScoreText(value)
	if err != nil {
		return 0, false, parse.LineError(p.name, n, "review score %v", err)
	}
	if !ok {
		return 0, false, parse.LineError(p.name, n, "review score %q: expected a number such as 7/10", value)
	}
	v, scaled, err := lnScaleScore(v, denom)
	if err != nil {
		return 0, false, parse.LineError(p.name, n, "review %v", err)
	}
	if scaled {
		p.notes.addf("%s:%d: review score %q read on the 10-point scale as %g", p.name, n, value, v)
	}
	if v < 1 || v > 10 {
		return 0, false, parse.LineError(p.name, n, "review score %g out of range (want 1 to 10)", v)
	}
	return v, true, nil
}

func (p *rmParser) tableRow(n int, cells []string) error {
	if len(cells) < 2 {
		return nil
	}
	switch strings.ToLower(lnClean(cells[0])) {
	case "overall", "total", "overall score", "weighted", "weighted score", "weighted total":
	default:
		return nil
	}
	v, ok, err := p.parseScore(n, cells[1])
	if err != nil || !ok {
		return err
	}
	if p.tableScore == nil {
		p.tableScore, p.tableLine = &v, n
	}
	p.any = true
	return nil
}

func (p *rmParser) setSignal(n int, value string) error {
	w := strings.ToUpper(lnFirstWord(value))
	if w == "REVISION" && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(value), "*_`<")[len("REVISION"):])), "NEEDED") {
		w = "REVISION_NEEDED"
	}
	var sig string
	switch w {
	case "CONVERGED", "REVISION_NEEDED":
		sig = w
	case "APPROVED", "REVIEW_PASSED":
		sig = "CONVERGED"
		p.notes.addf("%s:%d: signal %s read as CONVERGED", p.name, n, w)
	case "CRITICAL", "REVIEW_CRITICAL", "REVIEW_REVISION":
		sig = "REVISION_NEEDED"
		p.notes.addf("%s:%d: signal %s read as REVISION_NEEDED", p.name, n, w)
	default:
		shown := clipValue(value)
		return parse.LineError(p.name, n, "unknown review signal %q (want CONVERGED or REVISION_NEEDED; APPROVED or CRITICAL)", shown)
	}
	p.any = true
	return keepSignal(p.name, n, "signal", sig, &p.signal, &p.signalLine)
}

func (p *rmParser) finish() (*decide.Evidence, error) {
	p.flush()
	if p.signalNext {
		return nil, parse.LineError(p.name, p.signalHeadAt, "signal heading without a value (want CONVERGED or REVISION_NEEDED on the next line)")
	}
	if !p.any {
		return nil, lnFileError(p.name, "no review score, signal or [SEVERITY] finding found: not a review report")
	}
	facts := &decide.ReviewFacts{Signal: p.signal}
	switch {
	case p.score != nil:
		facts.Score = p.score
		if p.tableScore != nil && *p.tableScore != *p.score {
			p.notes.addf("%s:%d: overall row %g differs from the score %g on line %d; line %d wins", p.name, p.tableLine, *p.tableScore, *p.score, p.scoreLine, p.scoreLine)
		}
	case p.tableScore != nil:
		facts.Score = p.tableScore
	}
	for _, sev := range []decide.Severity{decide.Critical, decide.High, decide.Medium, decide.Low} {
		st, ok := p.stated[sev]
		if !ok {
			continue
		}
		got := rmCount(p.counted, sev)
		if st.n != got {
			p.notes.addf("%s:%d: report states %d %s issues but lists %d", p.name, st.line, st.n, sev, got)
		}
	}
	return &decide.Evidence{
		Sources:  []string{p.name},
		Findings: p.keep.findings(),
		Review:   facts,
		Omitted:  p.keep.omitted,
		Notes:    p.notes.done(p.name),
	}, nil
}

func rmCount(c decide.Counts, s decide.Severity) int {
	switch s {
	case decide.Critical:
		return c.Critical
	case decide.High:
		return c.High
	case decide.Medium:
		return c.Medium
	}
	return c.Low
}

// isReviewMarkdown reports whether head looks like a reviewer's report: a
// markdown file with a code-review heading, a review or quality score, a
// signal section or a [SEVERITY] finding — and not an audit report.
func isReviewMarkdown(head []byte) bool {
	if isAuditMarkdown(head) {
		return false
	}
	s := strings.TrimPrefix(string(head), "\ufeff")
	if t := strings.TrimSpace(s); t == "" || t[0] == '{' || t[0] == '<' || t[0] == '[' {
		return false
	}
	hits := 0
	for _, raw := range strings.Split(s, "\n") {
		t := strings.TrimSpace(raw)
		if _, _, ok, err := lnBracketFinding(t); ok || err != nil {
			hits++
		}
		if lvl, h := lnHeading(t); lvl > 0 {
			lh := strings.ToLower(h)
			if strings.Contains(lh, "code review") || strings.Contains(lh, "review report") || rmSignalLabel(lh) {
				hits++
			}
			t = h
		}
		if l, _, ok := lnLabel(t); ok && (l == "quality score" || l == "review score" || l == "gc signal") {
			hits++
		}
	}
	return hits >= 1
}

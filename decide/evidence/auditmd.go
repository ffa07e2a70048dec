package evidence

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
	"github.com/gcloop/gcloop/internal/parse"
)

// ReadAuditMarkdown reads a design/quality audit report (DESIGN §3.3):
//
//	# Design Audit Report: AUDIT-001
//	## Overall Score: 7.4/10
//	## Dimension Scores
//	- Accessibility: 6/10 (25%)
//	## Issues Found
//	### Critical (1)
//	- `src/Button.tsx:42` — focus ring removed
//	### High (0)
//	(none)
//	## Verdict: fix_required
//
// Dimension scores come as list items or table rows under a heading that
// mentions dimensions or scores; an "Overall" row stands in for a missing
// overall score. Issues are the top-level list items of the severity
// sections ("### Critical (n)", "### 🔴 High Priority", …) and list items
// headed "[SEVERITY]"; their first "path:line" reference gives file and
// line. When a section's stated count (n) differs from the items listed, a
// note says so. Scores on a 100-point scale are divided by ten (noted);
// scores outside 0–10, unknown verdicts and unknown bracketed severities are
// errors naming the line.
func ReadAuditMarkdown(name string, r io.Reader) (*decide.Evidence, error) {
	p := &amParser{name: name, keep: &keeper{}}
	if err := lnEachLine(name, r, p.line); err != nil {
		return nil, err
	}
	return p.finish()
}

// amSection is the severity section being read.
type amSection struct {
	sev    decide.Severity
	title  string
	line   int
	stated int // -1 when the heading gives no count
	items  int
}

type amParser struct {
	name  string
	keep  *keeper
	notes lnNotes
	fence lnFence

	sec      *amSection
	dimSec   bool // inside a dimension-scores section
	scoreCol int  // score column of the dimension table, -1 unknown
	last     *decide.Finding

	score      *float64
	scoreLine  int
	tableScore *float64
	dims       []decide.Dimension

	signal      string
	signalLine  int
	verdictNext bool
	verdictAt   int
	any         bool
}

// amSevHeading matches a severity section heading after leading emoji and
// punctuation are cut: "critical (2)", "high priority issues", "low:".
var amSevHeading = lazyre.New(`^(critical|high|medium|low)(?:\s+(?:issues?|priority|severity|findings?|risks?)){0,2}\s*(?:\(([^)]*)\))?\s*(?:[:\-–—].*)?$`)

func (p *amParser) line(n int, raw string) error {
	t := strings.TrimSpace(raw)
	if p.fence.skip(t) || t == "" {
		return nil
	}
	if lvl, h := lnHeading(t); lvl > 0 {
		p.endSection()
		p.verdictNext = false
		return p.heading(n, h)
	}
	if p.verdictNext {
		p.verdictNext = false
		return p.setSignal(n, t)
	}
	if cells, ok := lnTableCells(t); ok {
		return p.tableRow(n, cells)
	}
	indent, item, isItem := lnListItem(raw)
	if isItem {
		return p.item(n, indent, item, t)
	}
	if label, value, ok := lnLabel(t); ok {
		return p.label(n, label, value, false)
	}
	return nil
}

func (p *amParser) heading(n int, h string) error {
	p.dimSec = false
	p.scoreCol = -1
	if label, value, ok := lnLabel(h); ok {
		if value == "" && amVerdictLabel(label) {
			p.verdictNext, p.verdictAt = true, n
			return nil
		}
		if amScoreLabel(label) || amVerdictLabel(label) {
			return p.label(n, label, value, true)
		}
	}
	plain := strings.ToLower(lnClean(h))
	if amVerdictLabel(plain) {
		p.verdictNext, p.verdictAt = true, n
		return nil
	}
	cut := strings.TrimLeftFunc(plain, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	if m := amSevHeading().FindStringSubmatch(cut); m != nil {
		sev, _ := decide.ParseSeverity(m[1])
		stated := -1
		if c, err := strconv.Atoi(strings.TrimSpace(m[2])); err == nil && c >= 0 {
			stated = c
		}
		p.sec = &amSection{sev: sev, title: h, line: n, stated: stated}
		p.any = true
		return nil
	}
	if strings.Contains(plain, "dimension") || strings.Contains(plain, "score") {
		p.dimSec = true
	}
	return nil
}

// endSection closes the severity section and checks its stated count.
func (p *amParser) endSection() {
	p.flushLast()
	if p.sec == nil {
		return
	}
	if p.sec.stated >= 0 && p.sec.stated != p.sec.items {
		p.notes.addf("%s:%d: section %q states %d issues but lists %d", p.name, p.sec.line, p.sec.title, p.sec.stated, p.sec.items)
	}
	p.sec = nil
}

func (p *amParser) flushLast() {
	if p.last != nil {
		p.keep.push(*p.last)
		p.last = nil
	}
}

func amScoreLabel(l string) bool {
	switch l {
	case "overall score", "audit score", "overall", "weighted score", "total score", "final score", "overall audit score", "audit score (0 10)":
		return true
	}
	return false
}

func amVerdictLabel(l string) bool {
	switch l {
	case "verdict", "audit signal", "signal", "final verdict", "audit verdict":
		return true
	}
	return false
}

func (p *amParser) label(n int, label, value string, heading bool) error {
	switch {
	case amScoreLabel(label):
		v, max, ok, err := p.parseScore(n, value, "audit score")
		if err != nil || !ok {
			return err
		}
		_ = max
		if p.score == nil {
			p.score, p.scoreLine = &v, n
		} else if *p.score != v {
			p.notes.addf("%s:%d: audit score %g differs from the score %g on line %d; line %d wins", p.name, n, v, *p.score, p.scoreLine, p.scoreLine)
		}
		p.any = true
	case amVerdictLabel(label):
		if value == "" {
			p.verdictNext, p.verdictAt = true, n
			return nil
		}
		return p.setSignal(n, value)
	case p.dimSec && !heading:
		return p.dimension(n, label, value)
	}
	return nil
}

// parseScore reads a score on the 0–10 scale; ok is false for an empty
// value. max is the denominator on the 0–10 scale, or 0.
func (p *amParser) parseScore(n int, value, what string) (v, max float64, ok bool, err error) {
	if strings.TrimSpace(value) == "" {
		return 0, 0, false, nil
	}
	v, denom, isNum, err := lnScoreText(value)
	if err != nil {
		return 0, 0, false, parse.LineError(p.name, n, "%s %v", what, err)
	}
	if !isNum {
		return 0, 0, false, parse.LineError(p.name, n, "%s %q: expected a number such as 8/10", what, value)
	}
	v, scaled, err := lnScaleScore(v, denom)
	if err != nil {
		return 0, 0, false, parse.LineError(p.name, n, "%s: %v", what, err)
	}
	if scaled {
		p.notes.addf("%s:%d: %s %q read on the 10-point scale as %g", p.name, n, what, value, v)
	}
	if v < 0 || v > 10 {
		return 0, 0, false, parse.LineError(p.name, n, "%s %g out of range (want 0 to 10)", what, v)
	}
	if denom != 0 {
		max = 10
	}
	return v, max, true, nil
}

// dimension reads "Name: 7/10 (25%)" in a dimension section; lines whose
// value is not a score are ignored.
func (p *amParser) dimension(n int, name, value string) error {
	if _, _, isNum, _ := lnScoreText(value); !isNum {
		return nil
	}
	if amScoreLabel(name) {
		return p.label(n, name, value, false)
	}
	v, max, ok, err := p.parseScore(n, value, fmt.Sprintf("dimension %q score", name))
	if err != nil || !ok {
		return err
	}
	p.addDim(name, v, max)
	return nil
}

func (p *amParser) addDim(name string, v, max float64) {
	d := decide.Dimension{Name: amTitle(name), Score: v}
	if max > 0 {
		m := max
		d.Max = &m
	}
	if len(p.dims) < 64 {
		p.dims = append(p.dims, d)
	}
	p.any = true
}

// amTitle restores a label's capitalization for display: "accessibility"
// → "Accessibility".
func amTitle(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (p *amParser) tableRow(n int, cells []string) error {
	if lnTableSeparator(cells) || len(cells) < 2 {
		return nil
	}
	name := lnClean(cells[0])
	lname := strings.ToLower(name)
	if p.scoreCol < 0 {
		for i, c := range cells {
			if strings.Contains(strings.ToLower(lnClean(c)), "score") && i > 0 {
				p.scoreCol = i
				return nil // the header row
			}
		}
	}
	col := 1
	if p.scoreCol > 0 && p.scoreCol < len(cells) {
		col = p.scoreCol
	}
	if _, _, isNum, _ := lnScoreText(cells[col]); !isNum {
		return nil
	}
	switch lname {
	case "overall", "total", "overall score", "weighted", "weighted score", "weighted total":
		v, _, ok, err := p.parseScore(n, cells[col], "overall score")
		if err != nil || !ok {
			return err
		}
		if p.tableScore == nil {
			p.tableScore = &v
		}
		p.any = true
		return nil
	}
	if !p.dimSec || name == "" {
		return nil
	}
	v, max, ok, err := p.parseScore(n, cells[col], fmt.Sprintf("dimension %q score", name))
	if err != nil || !ok {
		return err
	}
	p.addDim(name, v, max)
	return nil
}

// item reads a list item: an issue in a severity section, a "[SEVERITY]"
// issue anywhere, a dimension score, or a verdict/score label.
func (p *amParser) item(n, indent int, text, t string) error {
	sev, title, bracket, err := lnBracketFinding(t)
	if err != nil {
		return parse.LineError(p.name, n, "%v", err)
	}
	if p.sec != nil && indent < 2 {
		if bracket {
			text = title
		} else {
			sev = p.sec.sev
		}
		if amNone(text) {
			return nil
		}
		p.sec.items++
		p.addIssue(n, sev, text)
		return nil
	}
	if bracket && indent < 2 {
		p.addIssue(n, sev, title)
		return nil
	}
	if p.last != nil && indent >= 2 && p.last.File == "" {
		if file, line, _, _, ok := lnFindRef(text); ok {
			p.last.File, p.last.Line = file, line
		}
		return nil
	}
	if label, value, ok := lnLabel(text); ok {
		return p.label(n, label, value, false)
	}
	return nil
}

func amNone(s string) bool {
	switch strings.ToLower(strings.Trim(lnClean(s), "()._ ")) {
	case "none", "n/a", "no issues", "no issues found", "nothing":
		return true
	}
	return false
}

func (p *amParser) addIssue(n int, sev decide.Severity, text string) {
	p.flushLast()
	msg := strings.TrimSpace(text)
	f := decide.Finding{Severity: sev, Source: fmt.Sprintf("%s:%d", p.name, n)}
	if file, line, s, e, ok := lnFindRef(msg); ok {
		f.File, f.Line = file, line
		switch {
		case strings.Trim(msg[:s], "*_` ") == "":
			// "`path:12` — text": the reference leads; keep the text.
			if rest := strings.TrimSpace(strings.TrimLeft(msg[e:], "` :—–-*_")); rest != "" {
				msg = rest
			}
		case strings.Trim(msg[e:], "*_` .") == "":
			// "text — `path:12`": the reference trails; keep the text,
			// without the dash and the code span's backticks.
			if rest := strings.TrimSpace(strings.TrimRight(msg[:s], "` :—–-*_(")); rest != "" {
				msg = rest
			}
		}
	}
	f.Message = lnClean(msg)
	p.last = &f
	p.any = true
}

func (p *amParser) setSignal(n int, value string) error {
	w := lnFirstWord(value)
	sig, err := lnAuditSignal(w)
	if err != nil || sig == "" {
		shown := clipValue(value)
		return parse.LineError(p.name, n, "unknown audit verdict %q (want audit_passed, audit_result or fix_required)", shown)
	}
	p.any = true
	return keepSignal(p.name, n, "verdict", sig, &p.signal, &p.signalLine)
}

func (p *amParser) finish() (*decide.Evidence, error) {
	p.endSection()
	if p.verdictNext {
		return nil, parse.LineError(p.name, p.verdictAt, "verdict heading without a value (want audit_passed, audit_result or fix_required on the next line)")
	}
	if !p.any {
		return nil, lnFileError(p.name, "no overall score, verdict, dimension scores or severity sections found: not an audit report")
	}
	facts := &decide.AuditFacts{Signal: p.signal, Dimensions: p.dims}
	switch {
	case p.score != nil:
		facts.Score = p.score
	case p.tableScore != nil:
		facts.Score = p.tableScore
	}
	return &decide.Evidence{
		Sources:  []string{p.name},
		Findings: p.keep.findings(),
		Audit:    facts,
		Omitted:  p.keep.omitted,
		Notes:    p.notes.done(p.name),
	}, nil
}

// isAuditMarkdown reports whether head looks like an audit report: an
// "Overall Score" heading, an audit verdict, or an audit heading with
// counted severity sections.
func isAuditMarkdown(head []byte) bool {
	s := strings.TrimPrefix(string(head), "\ufeff")
	if t := strings.TrimSpace(s); t == "" || t[0] == '{' || t[0] == '<' {
		return false
	}
	auditTitle, counted := false, false
	for _, raw := range strings.Split(s, "\n") {
		t := strings.TrimSpace(raw)
		lvl, h := lnHeading(t)
		if lvl > 0 {
			lh := strings.ToLower(h)
			if strings.Contains(lh, "audit") {
				auditTitle = true
			}
			cut := strings.TrimLeftFunc(strings.ToLower(lnClean(h)), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
			if m := amSevHeading().FindStringSubmatch(cut); m != nil && m[2] != "" {
				if _, err := strconv.Atoi(strings.TrimSpace(m[2])); err == nil {
					counted = true
				}
			}
			if l, _, ok := lnLabel(h); ok && l == "overall score" {
				return true
			}
			t = h
		}
		if l, v, ok := lnLabel(t); ok && amVerdictLabel(l) {
			if sig, err := lnAuditSignal(lnFirstWord(v)); err == nil && sig != "" {
				return true
			}
		}
	}
	return auditTitle && counted
}

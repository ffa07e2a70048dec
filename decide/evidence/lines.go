// Package evidence reads critic evidence files — review results, reviewer
// and audit reports, the framework's tasks.csv and discoveries.ndjson, SARIF,
// checkstyle and validation reports — into decide.Evidence. Every reader
// takes an io.Reader and a display name, streams with bounded memory, and
// reports bad input as a one-line *decide.ParseError naming the file and the
// line or byte offset.
package evidence

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/gcloop/gcloop/decide"
)

// Limits shared by the readers of this file set.
const (
	// lnMaxFile caps the bytes read from one evidence file.
	lnMaxFile = 64 << 20
	// lnMaxLine caps one line of a line-oriented file.
	lnMaxLine = 1 << 20
	// lnMaxNotes caps the notes one file adds; the rest are summarized.
	lnMaxNotes = 50
)

// errLnTooLarge is returned by lnCapReader past its limit.
var errLnTooLarge = errors.New("file too large")

// lnCapReader fails with errLnTooLarge once more than max bytes were read.
type lnCapReader struct {
	r   io.Reader
	n   int64
	max int64
}

func (c *lnCapReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, errLnTooLarge
	}
	if room := c.max + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n, errLnTooLarge
	}
	return n, err
}

// lnTooLarge is the error for a file over lnMaxFile.
func lnTooLarge(name string) *decide.ParseError {
	return decide.OffsetError(name, lnMaxFile, "file exceeds the %d MiB limit for evidence files", lnMaxFile>>20)
}

// lnReader yields the lines of a text file with line numbers, without the
// line terminator and without a leading UTF-8 BOM. A line longer than max is
// reported as too long and never buffered whole.
type lnReader struct {
	br   *bufio.Reader
	max  int
	line int   // number of the line last returned
	off  int64 // byte offset of the next line
	buf  []byte
}

func newLnReader(r io.Reader, maxLine int) *lnReader {
	return &lnReader{br: bufio.NewReaderSize(&lnCapReader{r: r, max: lnMaxFile}, 64<<10), max: maxLine}
}

// next returns the next line. tooLong is set (and line is nil) when the line
// exceeded the cap; err is io.EOF after the last line, errLnTooLarge past
// the file cap, or the reader's error.
func (l *lnReader) next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	read := false
	for {
		chunk, e := l.br.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
		}
		l.off += int64(len(chunk))
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+2 { // allow for "\r\n"
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, false, e
		}
		if !read && e == io.EOF {
			return nil, false, io.EOF
		}
		break
	}
	l.line++
	if tooLong {
		return nil, true, nil
	}
	b := bytes.TrimSuffix(l.buf, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) > l.max {
		return nil, true, nil
	}
	if l.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	return b, false, nil
}

// fail turns an error of next other than io.EOF into the reader's error:
// the file cap's, else a read error at the line being read.
func (l *lnReader) fail(name string, err error) error {
	if errors.Is(err, errLnTooLarge) {
		return lnTooLarge(name)
	}
	return decide.LineError(name, l.line+1, "read error: %v", err)
}

// lnEachLine calls fn with each line of a text report and its number. A
// line longer than lnMaxLine is an error, as are a file over lnMaxFile and
// a failing reader; an error of fn ends the reading and is returned.
func lnEachLine(name string, r io.Reader, fn func(n int, line string) error) error {
	lr := newLnReader(r, lnMaxLine)
	for {
		b, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return lr.fail(name, err)
		}
		if tooLong {
			return decide.LineError(name, lr.line, "line longer than %d bytes", lnMaxLine)
		}
		if err := fn(lr.line, string(b)); err != nil {
			return err
		}
	}
}

// lnFence tracks the fenced code blocks (``` or ~~~) of a Markdown file.
type lnFence struct {
	open string // the fence of the block being read; "" outside blocks
}

// skip reports whether the trimmed line t opens, closes or lies inside a
// fenced code block.
func (f *lnFence) skip(t string) bool {
	if f.open != "" {
		if strings.HasPrefix(t, f.open) {
			f.open = ""
		}
		return true
	}
	for _, fence := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, fence) {
			f.open = fence
			return true
		}
	}
	return false
}

// lnNotes collects notes up to lnMaxNotes and counts the rest.
type lnNotes struct {
	list  []string
	extra int
}

func (n *lnNotes) addf(format string, args ...any) {
	if len(n.list) >= lnMaxNotes {
		n.extra++
		return
	}
	n.list = append(n.list, fmt.Sprintf(format, args...))
}

func (n *lnNotes) done(name string) []string {
	if n.extra > 0 {
		n.list = append(n.list, fmt.Sprintf("%s: %d more notes not shown", name, n.extra))
	}
	return n.list
}

// lnSplitFileLine splits "path:42", "path:42:7" or "path:42-50" into path and
// line. A value without a trailing line number is all path (line 0); ok is
// false for an empty value or a line number out of range.
func lnSplitFileLine(s string) (file string, line int, ok bool) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`"))
	if s == "" {
		return "", 0, false
	}
	rest := s
	// Strip ":col" or "-end" after the line number: look at the last two
	// colon-separated parts.
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return s, 0, true
	}
	tail := rest[i+1:]
	if j := strings.IndexByte(tail, '-'); j > 0 {
		tail = tail[:j]
	}
	if !lnDigits(tail) {
		return s, 0, true
	}
	head := rest[:i]
	if k := strings.LastIndexByte(head, ':'); k >= 0 && lnDigits(head[k+1:]) && k > 0 {
		// "path:42:7": the line is the middle part.
		tail, head = head[k+1:], head[:k]
	}
	if head == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(tail)
	if err != nil || n < 0 || n > 1<<30 {
		return "", 0, false
	}
	return head, n, true
}

func lnDigits(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lnParseScore reads a finite decimal number: "7", "7.5", "7,5" is refused.
func lnParseScore(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 32 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	for _, r := range t {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return 0, fmt.Errorf("%q is not a number", s)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}

// lnReviewSignal normalizes a gc_signal value; "" means absent.
func lnReviewSignal(s string) (string, error) {
	w := strings.ToUpper(strings.TrimSpace(s))
	w = strings.NewReplacer(" ", "_", "-", "_").Replace(w)
	switch w {
	case "":
		return "", nil
	case "CONVERGED", "REVISION_NEEDED":
		return w, nil
	}
	return "", fmt.Errorf("unknown gc_signal %q (want CONVERGED or REVISION_NEEDED)", s)
}

// lnAuditSignal normalizes an audit_signal value; "" means absent.
func lnAuditSignal(s string) (string, error) {
	w := strings.ToLower(strings.TrimSpace(s))
	w = strings.NewReplacer(" ", "_", "-", "_").Replace(w)
	switch w {
	case "":
		return "", nil
	case "audit_passed", "audit_result", "fix_required":
		return w, nil
	}
	return "", fmt.Errorf("unknown audit_signal %q (want audit_passed, audit_result or fix_required)", s)
}

// lnClean trims a markdown value: spaces, emphasis and code marks.
func lnClean(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimSpace(strings.Trim(s, "*_`"))
		if t == s {
			return s
		}
		s = t
	}
}

// lnIsLetters reports whether s is non-empty and all letters.
func lnIsLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// Markdown helpers shared by the review and audit report readers.

// lnHeading returns the level and text of an ATX heading ("## Text"), or 0.
func lnHeading(s string) (int, string) {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, ""
	}
	t := strings.TrimSpace(s[n:])
	t = strings.TrimSpace(strings.TrimRight(t, "#"))
	return n, t
}

// lnListItem strips a list marker ("- ", "* ", "+ ", "1. ", "1) ") and
// reports the indentation of the marker; ok is false for other lines.
func lnListItem(line string) (indent int, text string, ok bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		if line[i] == '\t' {
			indent += 4
		} else {
			indent++
		}
		i++
	}
	s := line[i:]
	switch {
	case len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'):
		return indent, strings.TrimSpace(s[2:]), true
	case len(s) >= 1 && (s == "-" || s == "*"):
		return indent, "", true
	}
	j := 0
	for j < len(s) && j < 9 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && (s[j+1] == ' ' || s[j+1] == '\t') {
		return indent, strings.TrimSpace(s[j+2:]), true
	}
	return 0, "", false
}

// lnLabel splits "**Label**: value", "**Label:** value" or "Label: value"
// (after an optional list marker) into a lower-case label with single
// spaces and the value with emphasis trimmed.
func lnLabel(s string) (label, value string, ok bool) {
	if _, t, isItem := lnListItem(s); isItem {
		s = t
	}
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, ":：")
	if i <= 0 || i > 60 {
		return "", "", false
	}
	raw := s[:i]
	rest := s[i:]
	if strings.HasPrefix(rest, "：") {
		rest = rest[len("："):]
	} else {
		rest = rest[1:]
	}
	l := strings.TrimSpace(strings.Trim(strings.TrimSpace(raw), "*_`"))
	if l == "" {
		return "", "", false
	}
	for _, r := range l {
		if !(unicode.IsLetter(r) || r == ' ' || r == '_' || r == '-' || r == '/' || r == '(' || r == ')') {
			return "", "", false
		}
	}
	l = strings.ToLower(strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(l)), " "))
	return l, lnClean(rest), true
}

// lnScoreText reads "7.5/10", "7.5 / 10", "**7.5**/10", "7.5" and returns the
// number and the denominator (0 when absent). ok is false when value does
// not start with a number.
func lnScoreText(value string) (v, denom float64, ok bool, err error) {
	s := strings.TrimSpace(strings.NewReplacer("*", "", "`", "", "_", "").Replace(value))
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || (end == 0 && (s[end] == '-' || s[end] == '+'))) {
		end++
	}
	if end == 0 || (end == 1 && (s[0] == '-' || s[0] == '+' || s[0] == '.')) {
		return 0, 0, false, nil
	}
	v, err = lnParseScore(s[:end])
	if err != nil {
		return 0, 0, true, err
	}
	rest := strings.TrimSpace(s[end:])
	if strings.HasPrefix(rest, "/") {
		rest = strings.TrimSpace(rest[1:])
		e := 0
		for e < len(rest) && (rest[e] >= '0' && rest[e] <= '9' || rest[e] == '.') {
			e++
		}
		if e == 0 {
			return 0, 0, true, fmt.Errorf("%q: expected a number after '/'", value)
		}
		denom, err = lnParseScore(rest[:e])
		if err != nil || denom <= 0 {
			return 0, 0, true, fmt.Errorf("%q: bad denominator", value)
		}
	} else if strings.HasPrefix(rest, "%") {
		denom = 100
	}
	return v, denom, true, nil
}

// lnScaleScore maps a score with denominator to the 0–10 scale: /10 and no
// denominator as is, /100 (or %) divided by ten (scaled reports it); other
// denominators are errors.
func lnScaleScore(v, denom float64) (out float64, scaled bool, err error) {
	switch denom {
	case 0, 10:
		return v, false, nil
	case 100:
		return v / 10, true, nil
	}
	return 0, false, fmt.Errorf("score %g/%g is not on a 10- or 100-point scale", v, denom)
}

// lnBracketFinding recognizes a finding headline: a heading or list item
// (with optional numbering and bold) that starts with "[WORD]" followed by
// a title. ok is false for other lines; err is set when WORD is not a
// severity.
func lnBracketFinding(s string) (sev decide.Severity, title string, ok bool, err error) {
	t := strings.TrimSpace(s)
	for {
		if lvl, h := lnHeading(t); lvl > 0 {
			t = h
			continue
		}
		if _, x, isItem := lnListItem(t); isItem && x != t {
			t = x
			continue
		}
		break
	}
	t = strings.TrimLeft(t, "*_")
	if !strings.HasPrefix(t, "[") {
		return 0, "", false, nil
	}
	end := strings.IndexByte(t, ']')
	if end < 0 || end > 32 {
		return 0, "", false, nil
	}
	word := t[1:end]
	rest := strings.TrimLeft(t[end+1:], "*_")
	if strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, ":") && strings.HasPrefix(strings.TrimSpace(rest[1:]), "http") {
		return 0, "", false, nil // a link or reference
	}
	if len(word) < 2 || !lnIsLetters(word) {
		return 0, "", false, nil
	}
	sev, err = decide.ParseSeverity(word)
	if err != nil {
		return 0, "", false, fmt.Errorf("unknown severity [%s] (want CRITICAL, HIGH, MEDIUM or LOW)", word)
	}
	title = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(rest), ":—–-"))
	title = lnClean(title)
	return sev, title, true, nil
}

// lnFindRef finds the first artifact reference "path.ext:42" (optionally in
// backticks) in s. It returns the reference's span so callers can cut it.
func lnFindRef(s string) (file string, line int, start, end int, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' {
			continue
		}
		// digits after the colon
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 || j-i-1 > 9 {
			continue
		}
		// path before the colon: letters, digits, and ./_-\@ with a dot
		k := i
		for k > 0 && lnPathByte(s[k-1]) {
			k--
		}
		p := s[k:i]
		dot := strings.LastIndexByte(p, '.')
		if dot <= 0 || dot == len(p)-1 || !strings.ContainsFunc(p[dot+1:], unicode.IsLetter) {
			continue // no file extension: "3.1:1" is a ratio, not a path
		}
		n, err := strconv.Atoi(s[i+1 : j])
		if err != nil {
			continue
		}
		// ":42-50" or ":42:7" stays part of the reference span
		for j < len(s) && (s[j] == '-' || s[j] == ':') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
			j++
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		}
		start, end = k, j
		if start > 0 && s[start-1] == '`' && end < len(s) && s[end] == '`' {
			start--
			end++
		}
		return p, n, start, end, true
	}
	return "", 0, 0, 0, false
}

func lnPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '/' || c == '_' || c == '-' || c == '\\' || c == '@' || c == '+'
}

// lnTableCells splits a markdown table row "| a | b |" into trimmed cells;
// ok is false for lines that are not table rows.
func lnTableCells(s string) ([]string, bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "|") {
		return nil, false
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|")
	cells := strings.Split(t, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells, true
}

// lnTableSeparator reports whether cells form a "|---|:--:|" row.
func lnTableSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return len(cells) > 0
}

// lnFileError is an error about the whole file.
func lnFileError(name, format string, args ...any) *decide.ParseError {
	return &decide.ParseError{File: name, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// lnFirstWord returns the leading run of letters, digits, '_' and '-' of s
// after emphasis and code marks.
func lnFirstWord(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "*_`<\"'")
	end := 0
	for end < len(s) {
		c := s[end]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			break
		}
		end++
	}
	return strings.TrimRight(s[:end], "_-")
}

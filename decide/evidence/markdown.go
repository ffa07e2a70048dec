package evidence

// Markdown structure in reviewer and audit reports: fences, headings, list items, labels, tables, words.

import (
	"strings"
	"unicode"

	"github.com/gcloop/gcloop/internal/parse"
)

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

// clipValue is a value quoted in an error, trimmed and cut at 60 bytes.
func clipValue(value string) string {
	shown := strings.TrimSpace(value)
	if len(shown) > 60 {
		shown = shown[:60] + "…"
	}
	return shown
}

// keepSignal records sig, read on line n, as a report's signal (or
// verdict: what) unless one was read before; one that contradicts it is
// an error naming both lines.
func keepSignal(name string, n int, what, sig string, have *string, haveLine *int) error {
	if *have != "" && *have != sig {
		return parse.LineError(name, n, "%s %s contradicts %s %s on line %d", what, sig, what, *have, *haveLine)
	}
	if *have == "" {
		*have, *haveLine = sig, n
	}
	return nil
}

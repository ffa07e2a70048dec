package evidence

// File references: "path:line" and paths found in prose.

import (
	"strconv"
	"strings"
	"unicode"
)

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

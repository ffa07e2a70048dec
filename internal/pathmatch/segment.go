package pathmatch

import (
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Segment translates one glob segment of a pattern (no "/") into
// doublestar's syntax; ok is false when it is malformed: a class not
// closed, an unknown POSIX class, or a trailing "\".
//
// The glob syntax is Git's: "*" any run of characters, "?" one character,
// "[...]" a class ("!" or "^" negates, "a-z" ranges, "\" escapes, a "]"
// first is literal, "[:alpha:]" and the other POSIX classes), "\" escapes;
// "**" inside a segment is a plain "*". Braces are literal, as in Git:
// doublestar's "{a,b}" alternatives are escaped away.
func Segment(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) {
				return "", false
			}
			i++
			b.WriteByte('\\')
			b.WriteByte(p[i])
		case '*':
			for i+1 < len(p) && p[i+1] == '*' {
				i++
			}
			b.WriteByte('*')
		case '{', '}', ',':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '[':
			n, ok := class(&b, p[i:])
			if !ok {
				return "", false
			}
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// MatchSegment reports whether the glob segment p (Git's syntax, see
// Segment) matches the name s, which holds no "/". A malformed p matches
// nothing.
func MatchSegment(p, s string) bool {
	d, ok := Segment(p)
	return ok && match(d, s)
}

// match is doublestar's Match, a malformed pattern matching nothing.
func match(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return err == nil && ok
}

// posixClasses are the members of Git's "[:name:]" classes: pairs of
// bytes, each the first and the last of a range.
var posixClasses = map[string]string{
	"alnum":  "09AZaz",
	"alpha":  "AZaz",
	"blank":  "  \t\t",
	"cntrl":  "\x00\x1f\x7f\x7f",
	"digit":  "09",
	"graph":  "!~",
	"lower":  "az",
	"print":  " ~",
	"punct":  "!/:@[`{~",
	"space":  "\t\r  ",
	"upper":  "AZ",
	"xdigit": "09AFaf",
}

// class writes the class at the start of p (p[0] == '[') in doublestar's
// syntax and returns its length in p; ok is false when it is not closed or
// names an unknown POSIX class. Every ASCII member is escaped, so that "]",
// "\", "-", "!" and "^" mean themselves.
func class(b *strings.Builder, p string) (n int, ok bool) {
	i := 1
	b.WriteByte('[')
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		b.WriteByte('^')
		i++
	}
	for first := true; ; first = false {
		if i >= len(p) {
			return 0, false
		}
		c := p[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return i + 1, true
		case c == '[' && i+1 < len(p) && p[i+1] == ':':
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return 0, false
			}
			ranges, known := posixClasses[p[i+2:i+2+end]]
			if !known {
				return 0, false
			}
			for j := 0; j < len(ranges); j += 2 {
				escape(b, ranges[j:j+1])
				b.WriteByte('-')
				escape(b, ranges[j+1:j+2])
			}
			i += 2 + end + 2
			continue
		}
		lo, next, ok := member(p, i)
		if !ok {
			return 0, false
		}
		escape(b, lo)
		i = next
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, next, ok := member(p, i+1)
			if !ok {
				return 0, false
			}
			b.WriteByte('-')
			escape(b, hi)
			i = next
		}
	}
}

// member reads one member of a class at p[i], "\\" escaping it, and
// returns it (a character, of one or more bytes) and the index after it.
func member(p string, i int) (c string, next int, ok bool) {
	if p[i] == '\\' {
		i++
		if i >= len(p) {
			return "", 0, false
		}
	}
	_, n := utf8.DecodeRuneInString(p[i:])
	return p[i : i+n], i + n, true
}

// escape writes a class member so that it means itself: an ASCII one
// behind "\\", any other as it is.
func escape(b *strings.Builder, c string) {
	if c[0] < utf8.RuneSelf {
		b.WriteByte('\\')
	}
	b.WriteString(c)
}

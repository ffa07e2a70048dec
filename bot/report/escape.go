package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escaping of artifact text for the markdown report (DESIGN §5.1, §10).
//
// Artifacts can come from a fork's run, so every string read from them is
// hostile. The escaped text renders as exactly the characters it holds (no
// formatting of its own) and cannot:
//   - inject HTML, or a `<!-- gcloop:state … -->` marker: `<`, `>` and `&`
//     become entities, and the colon of "gcloop:state" becomes `&#58;`;
//   - ping anyone: every `@` is followed by a zero-width space (U+200B).
//     An entity (`&#64;`) would not do, since GitHub finds mentions in the
//     rendered text, after entities are decoded; a code span would, but
//     code spans cannot hold backticks reliably and look odd mid-sentence;
//   - create cross-references (`#123`, `owner/repo#123`) that show up in
//     other issues' timelines: a `#` before a digit also gets U+200B;
//   - break a table or open a block: `|`, backticks, `\`, `*`, `_`, `~`,
//     `[`, `]` and `$` (GitHub math) are backslash-escaped everywhere, and
//     a line cannot start a heading, list, quote or setext underline;
//   - link anywhere: `[..](..)` and `![..](..)` are defanged by the escaped
//     brackets, and the colon of `javascript:`, `vbscript:` and `data:`
//     becomes `&#58;` so no renderer sees a scheme;
//   - reorder or hide text: control characters, bidirectional overrides and
//     isolates, and byte-order marks are removed; invalid UTF-8 becomes
//     U+FFFD.
//
// The result is capped in length (in runes, never cutting a character or an
// entity) with an ellipsis.

// Rune caps of escaped text.
const (
	escInlineRunes = 1000
	escBlockRunes  = 4000
)

const escZWSP = "\u200b"

// EscapeInline makes artifact text safe for one line of markdown: a table
// cell, a list item or a heading. Newlines and tabs become spaces, the text
// is trimmed and capped at 1000 runes.
func EscapeInline(s string) string { return escText(s, escInlineRunes, false) }

// EscapeBlock makes multi-line artifact prose safe for markdown, like
// EscapeInline but keeping line breaks (each line is escaped as if it
// started a block). It is capped at 4000 runes.
func EscapeBlock(s string) string { return escText(s, escBlockRunes, true) }

// escText cleans s (see escClean), caps it at max runes and escapes it.
func escText(s string, max int, block bool) string {
	rs := escClean(s, block, max)
	if max > 0 && len(rs) > max {
		rs = append(rs[:max-1:max-1], '…')
	}
	if block {
		rs = escTrimLines(rs)
	} else {
		rs = []rune(strings.TrimSpace(string(rs)))
	}
	return escRunes(rs, true)
}

// escRunes escapes cleaned text; lineStart tells whether it begins a line.
func escRunes(rs []rune, lineStart bool) string {
	colons := escSchemeColons(rs)
	var b strings.Builder
	b.Grow(len(rs) + len(rs)/4)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if lineStart {
			lineStart = false
			if n := escLineStart(&b, rs[i:]); n > 0 {
				i += n - 1
				continue
			}
		}
		switch r {
		case '\n':
			b.WriteByte('\n')
			lineStart = true
		case '\\', '`', '*', '_', '~', '[', ']', '|', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			escCommon(&b, rs, i, colons)
		}
	}
	return b.String()
}

// escCommon writes rs[i] as both Markdown and gcloop's own HTML need it:
// `<`, `>` and `&` as entities, mentions, issue references and the
// scheme colons of colons broken, anything else as it is.
func escCommon(b *strings.Builder, rs []rune, i int, colons map[int]bool) {
	switch r := rs[i]; r {
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	case '&':
		b.WriteString("&amp;")
	case '@':
		b.WriteString("@" + escZWSP)
	case '#':
		b.WriteByte('#')
		if i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
			b.WriteString(escZWSP)
		}
	case ':':
		if colons[i] {
			b.WriteString("&#58;")
		} else {
			b.WriteByte(':')
		}
	default:
		b.WriteRune(r)
	}
}

// escLineStart writes the start of a line that would open a block
// (heading, list item, setext underline, ordered list) in escaped form and
// returns the number of runes it consumed, 0 when the line starts plainly.
// Quotes, code fences, tables and HTML blocks need nothing here: `>`, `<`,
// backticks, `~` and `|` are escaped wherever they are.
func escLineStart(b *strings.Builder, rs []rune) int {
	switch rs[0] {
	case '#':
		b.WriteString(`\#`)
		if len(rs) > 1 && rs[1] >= '0' && rs[1] <= '9' {
			b.WriteString(escZWSP)
		}
		return 1
	case '-', '+', '=':
		b.WriteByte('\\')
		b.WriteRune(rs[0])
		return 1
	}
	// "1." or "1)" starts an ordered list: escape the delimiter.
	n := 0
	for n < len(rs) && n < 10 && rs[n] >= '0' && rs[n] <= '9' {
		n++
	}
	if n == 0 || n == len(rs) || rs[n] != '.' && rs[n] != ')' {
		return 0
	}
	for _, d := range rs[:n] {
		b.WriteRune(d)
	}
	b.WriteByte('\\')
	b.WriteRune(rs[n])
	return n + 1
}

// escClean drops control and invisible formatting characters, turns
// invalid UTF-8 into U+FFFD and normalizes line breaks: in block mode
// CRLF, CR, U+2028 and U+2029 become "\n"; otherwise every line break
// and tab becomes a space.
//
// With max > 0 it stops after max+1 runes: enough to tell that the text
// is longer than the cap.
func escClean(s string, block bool, max int) []rune {
	size := len(s)
	if max > 0 && size > 4*(max+1) {
		size = 4 * (max + 1)
	}
	out := make([]rune, 0, size)
	for i := 0; i < len(s) && (max <= 0 || len(out) <= max); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			r = '\n'
		case r == '\u2028', r == '\u2029':
			r = '\n'
		case r == '\t':
			r = ' '
		}
		if r == '\n' {
			if !block {
				r = ' '
			}
			out = append(out, r)
			continue
		}
		if escDropped(r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// escDropped reports whether r is removed from artifact text: C0 and C1
// controls, DEL, bidirectional marks, embeddings, overrides and isolates,
// the byte-order mark and other format characters except the zero-width
// joiner (emoji sequences) and non-joiner (some scripts).
func escDropped(r rune) bool {
	switch {
	case r < 0x7f:
		return r < 0x20
	case r == 0x200c, r == 0x200d:
		return false
	case r < 0xa0:
		return true
	case unicode.Is(unicode.Cf, r):
		return true // U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF, …
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation
		return true
	}
	return false
}

// escTrimLines removes leading spaces of every line (an indented line
// would become a code block) and trailing spaces of the whole text.
func escTrimLines(rs []rune) []rune {
	out := rs[:0:0]
	start := true
	for _, r := range rs {
		if start && (r == ' ' || unicode.IsSpace(r) && r != '\n') {
			continue
		}
		start = r == '\n'
		out = append(out, r)
	}
	return []rune(strings.TrimRightFunc(string(out), unicode.IsSpace))
}

// escSchemeWords are words whose following colon is written as an entity:
// the state marker's keyword and URL schemes that run script or carry
// content.
var escSchemeWords = []string{"gcloop", "javascript", "vbscript", "data"}

// escSchemeColons marks the colons (by rune index) that follow one of
// escSchemeWords, compared ASCII-case-insensitively.
func escSchemeColons(rs []rune) map[int]bool {
	var marks map[int]bool
	for i, r := range rs {
		if r != ':' {
			continue
		}
		for _, w := range escSchemeWords {
			if i < len(w) || !escFoldEqual(rs[i-len(w):i], w) {
				continue
			}
			if marks == nil {
				marks = map[int]bool{}
			}
			marks[i] = true
		}
	}
	return marks
}

// escFoldEqual compares runes with an ASCII lower-case word.
func escFoldEqual(rs []rune, w string) bool {
	for i, r := range rs {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r != rune(w[i]) {
			return false
		}
	}
	return true
}

// escURLPath percent-encodes a repository-relative path for a link URL,
// segment by segment, keeping only unreserved characters. It returns false
// for paths that must not be linked: empty, absolute, with empty, "." or
// ".." segments (a browser resolves those, also when percent-encoded, and
// the link would leave the repository), or with a backslash.
func escURLPath(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, '\\') {
		return "", false
	}
	var b strings.Builder
	for i, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
		if i > 0 {
			b.WriteByte('/')
		}
		for j := 0; j < len(seg); j++ {
			c := seg[j]
			switch {
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
				c == '-', c == '.', c == '_', c == '~':
				b.WriteByte(c)
			default:
				const hex = "0123456789ABCDEF"
				b.WriteByte('%')
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			}
		}
	}
	return b.String(), true
}

// htmlText makes short artifact text safe inside gcloop's own HTML (a
// <summary>), where Markdown is not read: it is cleaned and capped like
// EscapeInline, `<`, `>`, `&` and `"` become entities, and mentions,
// references and the marker keyword are broken the same way.
func htmlText(s string, max int) string {
	rs := escClean(s, false, max)
	if max > 0 && len(rs) > max {
		rs = append(rs[:max-1:max-1], '…')
	}
	rs = []rune(strings.TrimSpace(string(rs)))
	colons := escSchemeColons(rs)
	var b strings.Builder
	for i, r := range rs {
		if r == '"' {
			b.WriteString("&quot;")
			continue
		}
		escCommon(&b, rs, i, colons)
	}
	return b.String()
}

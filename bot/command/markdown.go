package command

import "strings"

// A small CommonMark block scanner: just enough structure to tell, line by
// line, whether a line renders as paragraph text outside any block quote
// and outside code, HTML comments and raw-text HTML blocks. It follows the
// spec's container matching (block quotes, list items), lazy
// continuation, fence rules and interruption rules; it does not build a
// tree. Tabs are expanded before a line reaches it.

// leaf is the kind of the open leaf block.
type leaf int

const (
	leafNone     leaf = iota
	leafPara          // a paragraph (lazy continuation and interruption rules apply)
	leafFence         // a fenced code block
	leafIndented      // an indented code block
	leafHTML          // an HTML comment block or a <pre>/<script>/<style>/<textarea> block
)

// container is an open block quote or list item.
type container struct {
	quote bool
	// indent is a list item's content indentation, in columns past the
	// content of its parent.
	indent int
}

type scanner struct {
	stack     []container
	leaf      leaf
	fenceChar byte
	fenceLen  int
	htmlEnd   string // the lower-case text that ends the open HTML block
	inComment bool   // an inline HTML comment of the paragraph is open
}

// class says where a line sits.
type class struct {
	text        bool // paragraph text: a command may start the line
	quoted      bool // inside a block quote
	hiddenStart bool // the line starts inside an HTML comment
}

// line classifies the next line. closes reports whether an HTML comment
// left open on this line is closed later in the paragraph.
func (s *scanner) line(line string, closes func() bool) class {
	rest, matched := line, 0
	for matched < len(s.stack) {
		c := s.stack[matched]
		if c.quote {
			r, ok := quoteMarker(rest)
			if !ok {
				break
			}
			rest = r
		} else if !isBlank(rest) {
			if leadingSpaces(rest) < c.indent {
				break
			}
			rest = rest[c.indent:]
		}
		matched++
	}
	if matched < len(s.stack) {
		if s.leaf == leafPara && !isBlank(rest) && !s.interrupts(rest) {
			return s.paragraph(rest, closes, s.quoted()) // lazy continuation
		}
		s.stack = s.stack[:matched]
		s.closeLeaf()
	}

	switch s.leaf {
	case leafFence:
		if isClosingFence(rest, s.fenceChar, s.fenceLen) {
			s.leaf = leafNone
		}
		return class{quoted: s.quoted()}
	case leafHTML:
		if strings.Contains(strings.ToLower(rest), s.htmlEnd) {
			s.leaf = leafNone
		}
		return class{quoted: s.quoted()}
	case leafIndented:
		if isBlank(rest) || leadingSpaces(rest) >= 4 {
			return class{quoted: s.quoted()}
		}
		s.leaf = leafNone
	}

	// Open new containers.
	for {
		ind := leadingSpaces(rest)
		if ind >= 4 {
			break
		}
		after := rest[ind:]
		if strings.HasPrefix(after, ">") {
			s.closeLeaf()
			s.stack = append(s.stack, container{quote: true})
			rest, _ = quoteMarker(after)
			continue
		}
		if isThematicBreak(after) {
			break
		}
		if n, content, ok := listItem(after, s.leaf == leafPara); ok {
			s.closeLeaf()
			s.stack = append(s.stack, container{indent: ind + n})
			rest = content
			continue
		}
		break
	}

	quoted := s.quoted()
	if isBlank(rest) {
		s.closeLeaf()
		return class{quoted: quoted}
	}
	ind := leadingSpaces(rest)
	if ind >= 4 {
		if s.leaf == leafPara {
			return s.paragraph(rest, closes, quoted) // indented code cannot interrupt a paragraph
		}
		s.closeLeaf()
		s.leaf = leafIndented
		return class{quoted: quoted}
	}
	after := rest[ind:]
	if ch, n, ok := openingFence(after); ok {
		s.closeLeaf()
		s.leaf, s.fenceChar, s.fenceLen = leafFence, ch, n
		return class{quoted: quoted}
	}
	if end, from, ok := htmlBlockStart(after); ok {
		s.closeLeaf()
		if !strings.Contains(strings.ToLower(after[from:]), end) {
			s.leaf, s.htmlEnd = leafHTML, end
		}
		return class{quoted: quoted}
	}
	if isATXHeading(after) || isThematicBreak(after) || (s.leaf == leafPara && isSetextEquals(after)) {
		s.closeLeaf()
		return class{quoted: quoted}
	}
	return s.paragraph(rest, closes, quoted)
}

// paragraph takes a line of paragraph text.
func (s *scanner) paragraph(rest string, closes func() bool, quoted bool) class {
	if s.leaf != leafPara {
		s.leaf, s.inComment = leafPara, false
	}
	c := class{text: true, quoted: quoted, hiddenStart: s.inComment}
	s.inComment = scanInline(rest, s.inComment, closes)
	return c
}

func (s *scanner) closeLeaf() { s.leaf, s.inComment = leafNone, false }

// quoted reports whether a block quote is open.
func (s *scanner) quoted() bool {
	for _, c := range s.stack {
		if c.quote {
			return true
		}
	}
	return false
}

// interrupts reports whether a line that did not match the open
// containers starts a block, so that it cannot continue a paragraph lazily.
func (s *scanner) interrupts(rest string) bool {
	ind := leadingSpaces(rest)
	if ind >= 4 {
		return false
	}
	after := rest[ind:]
	if strings.HasPrefix(after, ">") || isThematicBreak(after) || isATXHeading(after) {
		return true
	}
	if _, _, ok := listItem(after, true); ok {
		return true
	}
	if _, _, ok := openingFence(after); ok {
		return true
	}
	_, _, ok := htmlBlockStart(after)
	return ok
}

// quoteMarker strips a block quote marker (up to 3 spaces, `>`, one
// optional space) from the start of s.
func quoteMarker(s string) (string, bool) {
	ind := leadingSpaces(s)
	if ind > 3 || ind >= len(s) || s[ind] != '>' {
		return s, false
	}
	return strings.TrimPrefix(s[ind+1:], " "), true
}

// listItem reads a list marker at the start of s (indentation already
// removed). n is the item's content indentation from the marker's column
// and content the rest of the line. inPara applies the rules for
// interrupting a paragraph: the item must not be empty and an ordered one
// must start at 1.
func listItem(s string, inPara bool) (n int, content string, ok bool) {
	k := 0
	ordered, one := false, false
	switch {
	case s == "":
		return 0, "", false
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		k = 1
	default:
		for k < len(s) && k < 10 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == 0 || k > 9 || k >= len(s) || (s[k] != '.' && s[k] != ')') {
			return 0, "", false
		}
		ordered, one = true, strings.TrimLeft(s[:k], "0") == "1"
		k++
	}
	if k < len(s) && s[k] != ' ' {
		return 0, "", false
	}
	if isBlank(s[k:]) {
		if inPara {
			return 0, "", false
		}
		return k + 1, "", true
	}
	if inPara && ordered && !one {
		return 0, "", false
	}
	sp := leadingSpaces(s[k:])
	if sp >= 5 {
		return k + 1, s[k+1:], true
	}
	return k + sp, s[k+sp:], true
}

// openingFence reads the opening of a fenced code block: three or more
// backticks (then an info string without backticks) or tildes.
func openingFence(s string) (ch byte, n int, ok bool) {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return 0, 0, false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0, false
	}
	return ch, n, true
}

// isClosingFence reports whether s closes a fence of n characters ch:
// up to 3 spaces, at least n of ch, then only spaces.
func isClosingFence(s string, ch byte, n int) bool {
	ind := leadingSpaces(s)
	if ind > 3 {
		return false
	}
	s = s[ind:]
	m := 0
	for m < len(s) && s[m] == ch {
		m++
	}
	return m >= n && isBlank(s[m:])
}

// rawTextTags are the HTML blocks whose lines are not paragraph text
// (CommonMark HTML block type 1).
var rawTextTags = []string{"pre", "script", "style", "textarea"}

// htmlBlockStart reads the start of an HTML comment block or a raw-text
// HTML block; end is the lower-case text that closes it, searched from
// byte from of s (so that `<!-->` closes itself).
func htmlBlockStart(s string) (end string, from int, ok bool) {
	if strings.HasPrefix(s, "<!--") {
		return "-->", 2, true
	}
	if !strings.HasPrefix(s, "<") {
		return "", 0, false
	}
	head := strings.ToLower(s[1:min(len(s), 12)])
	for _, tag := range rawTextTags {
		if !strings.HasPrefix(head, tag) {
			continue
		}
		next := s[1+len(tag):]
		if next == "" || next[0] == ' ' || next[0] == '>' {
			return "</" + tag + ">", 1, true
		}
	}
	return "", 0, false
}

// isATXHeading reports whether s is an ATX heading line.
func isATXHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ')
}

// isThematicBreak reports whether s is a thematic break: three or more of
// the same `*`, `-` or `_`, spaces allowed between.
func isThematicBreak(s string) bool {
	var ch byte
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
		case ch == 0 && (c == '*' || c == '-' || c == '_'):
			ch, n = c, 1
		case c == ch:
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// isSetextEquals reports whether s underlines a paragraph with `=`.
func isSetextEquals(s string) bool {
	t := strings.TrimRight(s, " ")
	return t != "" && strings.Trim(t, "=") == ""
}

// scanInline follows HTML comments through one line of paragraph text,
// skipping code spans and backslash escapes, and returns whether a comment
// is open at its end. A `<!--` left open counts only if closes says a
// later line of the paragraph closes it; otherwise it is literal text.
func scanInline(s string, inComment bool, closes func() bool) bool {
	for i := 0; i < len(s); {
		if inComment {
			j := strings.Index(s[i:], "-->")
			if j < 0 {
				return true
			}
			i, inComment = i+j+3, false
			continue
		}
		switch s[i] {
		case '\\':
			i += 2
		case '`':
			n := runLen(s, i, '`')
			if end := closingTicks(s, i+n, n); end >= 0 {
				i = end + n
			} else {
				i += n
			}
		case '<':
			if !strings.HasPrefix(s[i:], "<!--") {
				i++
				continue
			}
			if j := strings.Index(s[i+2:], "-->"); j >= 0 {
				i = i + 2 + j + 3
				continue
			}
			if closes() {
				return true
			}
			i += 4
		default:
			i++
		}
	}
	return inComment
}

// runLen counts the bytes ch from s[i].
func runLen(s string, i int, ch byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == ch {
		n++
	}
	return n
}

// closingTicks finds, from byte i, a run of exactly n backticks; -1 if none.
func closingTicks(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		m := runLen(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// leadingSpaces counts the spaces that start s.
func leadingSpaces(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// isBlank reports whether s holds only spaces and tabs.
func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

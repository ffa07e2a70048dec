package guard

import "sort"

// spans pairs the brackets of a file's code — outside strings, character
// literals and comments — so a test body's extent is found in one pass.
type spans struct {
	n     int
	opens map[byte][]bracket // per opening bracket, in file order
}

// bracket is one opening bracket and the line of its closing one (the
// last line of the file when it never closes).
type bracket struct {
	line, col, end int
}

// newSpans scans lines of a brace language (Go, JS/TS, JVM, Rust, C#).
func newSpans(lang string, lines []string) spans {
	s := spans{n: len(lines), opens: map[byte][]bracket{}}
	stacks := map[byte][]int{}
	closer := map[byte]byte{'}': '{', ')': '('}
	var quote byte // the open string's delimiter, 0 outside strings
	block := false // inside /* */
	for li, l := range lines {
		if quote != '`' {
			quote = 0 // other strings end at the end of their line
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case block:
				if c == '*' && i+1 < len(l) && l[i+1] == '/' {
					block = false
					i++
				}
			case quote != 0:
				if c == '\\' && quote != '`' || c == '\\' && lang == langJS {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '/' && i+1 < len(l) && l[i+1] == '/':
				i = len(l)
			case c == '/' && i+1 < len(l) && l[i+1] == '*':
				block = true
				i++
			case c == '"' || c == '`':
				quote = c
			case c == '\'':
				if lang != langRust {
					quote = c
				} else if i+2 < len(l) && l[i+1] == '\\' {
					quote = c // an escaped character literal
				} else if i+2 < len(l) && l[i+2] == '\'' {
					i += 2 // a character literal; otherwise a lifetime
				}
			case c == '{' || c == '(':
				stacks[c] = append(stacks[c], len(s.opens[c]))
				s.opens[c] = append(s.opens[c], bracket{line: li, col: i, end: len(lines) - 1})
			case c == '}' || c == ')':
				o := closer[c]
				if st := stacks[o]; len(st) > 0 {
					s.opens[o][st[len(st)-1]].end = li
					stacks[o] = st[:len(st)-1]
				}
			}
		}
	}
	return s
}

// after returns the line of the first opening bracket open at or after
// line li, column col, and the line that closes it; -1, -1 when none.
func (s spans) after(li, col int, open byte) (int, int) {
	bs := s.opens[open]
	k := sort.Search(len(bs), func(k int) bool {
		return bs[k].line > li || bs[k].line == li && bs[k].col >= col
	})
	if k == len(bs) {
		return -1, -1
	}
	return bs[k].line, bs[k].end
}

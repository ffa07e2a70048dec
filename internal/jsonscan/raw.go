package jsonscan

import (
	"bytes"
	"errors"
)

// Reading the elements of a long array on several cores: CutElems copies
// the elements out of the stream, cut by their structure alone (brackets
// and strings, not validated); each is then read in full by a Span scanner
// on any goroutine. An element that a Span scanner cannot read, or that
// CutElems cannot cut, is read again by the stream scanner itself: Rewind
// puts the bytes copied since that element back in front of its unread
// bytes, and ArrayFrom reads on from there as Array would have. So the
// results and errors are always those of the stream scanner.

// ErrSpanEnd is the error of a Span scanner that needs a byte past its
// span: the span must be read by the stream scanner instead.
var ErrSpanEnd = errors.New("jsonscan: read past the end of a span")

// spanEnd is the reader of a Span scanner: it is never read (the sticky
// error comes first); it only makes the scanner one that streams, so a
// number longer than MaxNumber is refused as the stream scanner refuses it.
type spanEnd struct{}

func (spanEnd) Read([]byte) (int, error) { return 0, ErrSpanEnd }

// Span returns a scanner of b, the bytes of the file name from offset
// base on, read in place (neither copied nor written to). It reads as a
// stream scanner of that file does, with the same offsets in its errors,
// up to the end of b; needing a byte past it is the error ErrSpanEnd.
func Span(name string, b []byte, base int64) *Scanner {
	return &Scanner{name: name, r: spanEnd{}, buf: b, end: len(b), base: base, rerr: ErrSpanEnd}
}

// ResetSpan makes s, a scanner made by Span, a scanner of b from offset
// base on, as Span(s.Name(), b, base) but keeping its scratch buffers.
func (s *Scanner) ResetSpan(b []byte, base int64) {
	// Nothing else of a span scanner changes as it reads: its reader and
	// sticky error stay, and the scratch buffers are overwritten on use.
	s.buf, s.pos, s.end, s.base = b, 0, len(b), base
}

// Rest reports whether bytes of the span are left unread.
func (s *Scanner) Rest() bool { return s.pos < s.end }

// RawSpan is where one element lies in the bytes CutElems copied.
type RawSpan struct{ Start, End int }

// CutStatus says why CutElems returned.
type CutStatus int

const (
	// CutMore: at least min bytes were copied; the array may go on.
	CutMore CutStatus = iota
	// CutEnd: the array's closing ']' came (it was consumed and copied).
	CutEnd
	// CutStop: the next element could not be cut: not an object, nested
	// deeper than cutMaxDepth, longer than maxElem bytes, or the input
	// ended or failed before it did. The stream scanner must read from
	// that element on (Rewind, ArrayFrom); its bytes consumed are in dst.
	CutStop
)

// cutMaxDepth is the nesting CutElems follows within an element.
const cutMaxDepth = 64

// CutElems consumes the next elements of an array being read — its '['
// consumed, first true when no element came yet — appending every byte it
// consumes to dst (verbatim: the separators and white space too) and the
// place of each element in dst to spans, until dst has at least min bytes
// more, the array ends or an element cannot be cut. Only objects are cut.
// An element ends where its braces and brackets outside strings balance;
// nothing is validated (an element that is not valid JSON is found when
// it is read, and read again by the stream scanner). After CutMore and
// CutEnd the bytes copied end where the last element or the ']' does;
// after CutStop they end anywhere.
func (s *Scanner) CutElems(dst []byte, spans []RawSpan, first bool, min, maxElem int) ([]byte, []RawSpan, CutStatus) {
	goal := len(dst) + min
	for {
		// The separator: white space, ',' (but before the first element),
		// white space, then '{' — or ']' to end the array.
		c, ok := s.cutByte(&dst)
		if !ok {
			return dst, spans, CutStop
		}
		if c == ']' {
			dst = append(dst, c)
			s.pos++
			return dst, spans, CutEnd
		}
		if !first {
			if c != ',' {
				return dst, spans, CutStop
			}
			dst = append(dst, c)
			s.pos++
			if c, ok = s.cutByte(&dst); !ok {
				return dst, spans, CutStop
			}
		}
		if c != '{' {
			return dst, spans, CutStop
		}
		start := len(dst)
		var end bool
		if dst, end = s.cutObject(dst, start+maxElem); !end {
			return dst, spans, CutStop
		}
		spans = append(spans, RawSpan{start, len(dst)})
		first = false
		if len(dst) >= goal {
			return dst, spans, CutMore
		}
	}
}

// cutByte skips white space, copying it to dst, and returns the next byte
// without consuming it; ok is false at the end of the input or a failed
// read.
func (s *Scanner) cutByte(dst *[]byte) (byte, bool) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				*dst = append(*dst, c)
				s.pos++
			default:
				return c, true
			}
		}
		if s.fill() != nil {
			return 0, false
		}
	}
}

// cutObject consumes the object that starts at the next byte, copying it
// to dst, until its braces and brackets balance; end is false when it
// could not: nested deeper than cutMaxDepth, dst past limit bytes, the end
// of the input or a failed read (the bytes consumed are in dst).
func (s *Scanner) cutObject(dst []byte, limit int) (_ []byte, end bool) {
	var st cutState
	for {
		b := s.buf[:s.end]
		i, done := st.scan(b, s.pos)
		dst = append(dst, b[s.pos:i]...)
		s.pos = i
		switch {
		case done:
			return dst, st.depth == 0
		case len(dst) > limit || s.fill() != nil:
			return dst, false
		}
	}
}

// cutState is where cutObject is within an object: the nesting and
// whether in a string.
type cutState struct {
	depth int
	inStr bool
}

// cutClass marks the bytes cutState.scan stops at between strings: 1 for
// '"', 2 for '{' and '[', 3 for '}' and ']'.
var cutClass = func() (t [256]uint8) {
	t['"'] = 1
	t['{'], t['['] = 2, 2
	t['}'], t[']'] = 3, 3
	return t
}()

// scan goes through b from i and returns where it stopped: done at the end
// of the object (the byte after its closing brace, depth 0) or where it
// nests deeper than cutMaxDepth (at that bracket); otherwise where the
// bytes left cannot be decided on without more (the end of b, or an
// escape's backslash at its last byte), and the caller refills. Where it
// stops within a string, a byte starts there (not one escaped).
//
// Within a string it looks for the next quote with bytes.IndexByte (a
// SIMD loop; a word-at-a-time loop in Go took more instructions on the
// strings of a SARIF log) and counts the backslashes right before it: an
// odd run escapes it. Between
// strings, where JSON has only a few bytes (":", "},{"), it goes one byte
// at a time.
func (st *cutState) scan(b []byte, i int) (int, bool) {
	depth, inStr := st.depth, st.inStr
	for {
		if inStr {
			// Within a string, from the start of a byte or escape at i,
			// to its closing quote.
			from := i
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				// All of b is within the string: stop at a backslash
				// whose escaped byte is not in b.
				n := len(b)
				if backslashes(b, from, n)%2 == 1 {
					n--
				}
				st.depth, st.inStr = depth, true
				return n, false
			}
			j += i
			i = j + 1
			if backslashes(b, from, j)%2 == 1 {
				continue // an escaped quote
			}
			inStr = false
		}
	between:
		for ; i < len(b); i++ {
			switch cutClass[b[i]] {
			case 0:
			case 1:
				i++
				inStr = true
				break between
			case 2:
				if depth++; depth > cutMaxDepth {
					st.depth = depth
					return i, true
				}
			default:
				if depth--; depth == 0 {
					st.depth = 0
					return i + 1, true
				}
			}
		}
		if !inStr {
			st.depth, st.inStr = depth, false
			return i, false
		}
	}
}

// backslashes counts the backslashes right before b[j], back to b[from]
// at most.
func backslashes(b []byte, from, j int) int {
	n := 0
	for j > from && b[j-1] == '\\' {
		j--
		n++
	}
	return n
}

// Rewind makes the scanner read on from file offset base, as if it had
// not consumed the bytes from there: prefix holds them (the file's bytes
// from base up to the next unread byte, in order; they must not change
// until read). The end of the input and read errors come as they would
// have.
func (s *Scanner) Rewind(prefix [][]byte, base int64) {
	pend := make([][]byte, 0, len(prefix)+1+len(s.pend))
	for _, p := range prefix {
		if len(p) > 0 {
			pend = append(pend, p)
		}
	}
	if s.pos < s.end {
		pend = append(pend, append([]byte(nil), s.buf[s.pos:s.end]...))
	}
	s.pend = append(pend, s.pend...)
	s.pos, s.end, s.base = 0, 0, base
}

// fillPending moves bytes handed back by Rewind into the buffer after the
// unread bytes (compacted already); it reports whether it moved any.
func (s *Scanner) fillPending() bool {
	for len(s.pend) > 0 {
		n := copy(s.buf[s.end:], s.pend[0])
		s.end += n
		if s.pend[0] = s.pend[0][n:]; len(s.pend[0]) == 0 {
			s.pend = s.pend[1:]
		}
		if n > 0 {
			return true
		}
		if s.end == len(s.buf) {
			return false
		}
	}
	return false
}

// OpenArray consumes the '[' of an array, for ArrayFrom or CutElems. what
// and field name the value in the error when something other than an array
// comes.
func (s *Scanner) OpenArray(what, field string) error { return s.open(what, field, '[') }

// ArrayFrom reads on an array whose '[' and first i elements were
// consumed (first: no element was), as Array does from there, calling fn
// for each element with its index.
func (s *Scanner) ArrayFrom(i int, first bool, fn func(i int) error) error {
	for ; ; i++ {
		ok, err := s.elem(&first)
		if err != nil || !ok {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

package jsonscan

import (
	"bytes"
	"errors"
	"slices"
)

// Reading the elements of a long array on several cores: the stream
// scanner hands out the array's bytes as they are (ReadRaw), cut into
// parts at places that look like the start of an element (ElemStart);
// each part is read by a Span scanner on any goroutine, element after
// element, from its start. A part's start is only trusted once the part
// before it was read to exactly there (the first part starts right after
// the '['), so a place that only looked like an element's start costs
// time, never a wrong result. Whatever a Span scanner cannot read is read
// again by the stream scanner: Rewind puts the bytes handed out since
// then back in front of its unread bytes, and ArrayFrom reads on from
// there as Array would have. So the results and errors are always those
// of the stream scanner.

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

// Rest is the number of bytes of the span left unread.
func (s *Scanner) Rest() int { return s.end - s.pos }

// ReadRaw consumes up to n bytes as they are, appending them to dst. At
// the end of the input it returns the bytes it had with io.EOF, and with
// the error of a failed read.
func (s *Scanner) ReadRaw(dst []byte, n int) ([]byte, error) {
	for n > 0 {
		if s.pos == s.end && len(s.pend) == 0 && s.rerr == nil && n >= len(s.buf) {
			// Nothing buffered: read straight into dst, not through
			// the buffer.
			s.base += int64(s.end)
			s.pos, s.end = 0, 0
			if cap(dst)-len(dst) < len(s.buf) {
				dst = slices.Grow(dst, len(s.buf))
			}
			k, err := s.read(dst[len(dst):min(cap(dst), len(dst)+n)], s.base)
			if err != nil {
				return dst, err
			}
			dst = dst[:len(dst)+k]
			s.base += int64(k)
			n -= k
			continue
		}
		if s.pos == s.end {
			if err := s.fill(); err != nil {
				return dst, err
			}
		}
		k := min(n, s.end-s.pos)
		dst = append(dst, s.buf[s.pos:s.pos+k]...)
		s.pos += k
		n -= k
	}
	return dst, nil
}

// ElemPrefix returns the bytes an array's elements are guessed to start
// with, from b, the bytes right after the array's '[': the first
// element's '{' up to the end of its first key ("{\"ruleId\""), with the
// white space between; ok is false when they are not whole in b or are
// not plain (an escape, a control character).
func ElemPrefix(b []byte) (prefix []byte, ok bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	start := i
	if i == len(b) || b[i] != '{' {
		return nil, false
	}
	for i++; i < len(b) && isSpace(b[i]); i++ {
	}
	if i == len(b) || b[i] != '"' {
		return nil, false
	}
	for i++; i < len(b) && i-start < 64; i++ {
		switch c := b[i]; {
		case c == '"':
			return b[start : i+1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// ElemStart returns the first place in b from i on that looks like the
// start of an array element after the first: prefix (from ElemPrefix),
// with only white space, a ',', white space and a '}' before it (the end
// of the element before). It returns -1 when there is none. A place it
// returns may lie within a string or a nested array all the same: the
// caller trusts it only once the bytes before it were read to there.
func ElemStart(b, prefix []byte, i int) int {
	for i < len(b) {
		j := bytes.Index(b[i:], prefix)
		if j < 0 {
			return -1
		}
		j += i
		k := j - 1
		for k >= 0 && isSpace(b[k]) {
			k--
		}
		if k >= 0 && b[k] == ',' {
			for k--; k >= 0 && isSpace(b[k]); k-- {
			}
			if k >= 0 && b[k] == '}' {
				return j
			}
		}
		i = j + 1
	}
	return -1
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

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

// OpenArray consumes the '[' of an array, for ArrayFrom or ReadRaw. what
// and field name the value in the error when something other than an
// array comes.
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

// Sep says what ElemSep found.
type Sep int

const (
	// SepElem: another element starts next.
	SepElem Sep = iota
	// SepClose: the array's ']' came (consumed).
	SepClose
	// SepSpanEnd: after a ',' and white space the span ended: the next
	// element starts where the next span does.
	SepSpanEnd
	// SepStop: anything else (the span ended elsewhere, an error the
	// stream scanner must report): read from before it with the stream
	// scanner.
	SepStop
)

// ElemSep reads, as the stream scanner's Array does, what comes before an
// array's next element: white space, a ',' unless first, white space —
// or the closing ']'. It is for Span scanners: where it returns SepStop
// the position is undefined.
func (s *Scanner) ElemSep(first bool) Sep {
	c, err := s.Next()
	if err != nil {
		return SepStop
	}
	if c == ']' {
		s.pos++
		return SepClose
	}
	if !first {
		if c != ',' {
			return SepStop
		}
		s.pos++
		if c, err = s.Next(); err != nil {
			if errors.Is(err, ErrSpanEnd) && s.pos == s.end {
				return SepSpanEnd
			}
			return SepStop
		}
		if c == ']' || c == '}' || c == ',' || c == ':' {
			return SepStop
		}
	}
	return SepElem
}

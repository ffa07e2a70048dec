package coverage

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/decide"
)

// MaxLineLen is the longest line the line-oriented readers (Go profiles,
// LCOV) accept. A longer line is an error naming it; it is never buffered
// whole.
const MaxLineLen = 1 << 20

// lineScanner splits a stream into lines without allocating per line. It
// owns one buffer, 64 KiB at first and grown up to MaxLineLen plus a little
// slack only when a line needs it, refilled in place; a line is a sub-slice of that buffer, valid until the next call.
// It is faster than bufio.Scanner on hot paths because the common case of
// next is one bytes.IndexByte over data already in the buffer.
type lineScanner struct {
	r    io.Reader
	name string
	buf  []byte
	pos  int // start of unread data in buf
	end  int // end of valid data in buf
	eof  bool
	err  error // read error other than io.EOF
	line int   // number of the line last returned, 1-based
}

func newLineScanner(name string, r io.Reader) *lineScanner {
	return &lineScanner{r: r, name: name, buf: make([]byte, 64<<10)}
}

// next returns the next line without its "\n" or "\r\n". ok is false at
// the end of the input or on an error; err tells them apart.
func (s *lineScanner) next() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			if i > MaxLineLen {
				s.line++
				s.err = decide.LineError(s.name, s.line, "line longer than %d bytes", MaxLineLen)
				return nil, false
			}
			line = s.buf[s.pos : s.pos+i]
			s.pos += i + 1
			s.line++
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true
		}
		if s.end-s.pos > MaxLineLen {
			s.line++
			s.err = decide.LineError(s.name, s.line, "line longer than %d bytes", MaxLineLen)
			return nil, false
		}
		if s.eof {
			if s.pos < s.end { // last line without "\n"
				line = s.buf[s.pos:s.end]
				s.pos = s.end
				s.line++
				if n := len(line); n > 0 && line[n-1] == '\r' {
					line = line[:n-1]
				}
				return line, true
			}
			return nil, false
		}
		if s.err != nil {
			return nil, false
		}
		s.fill()
	}
}

// window returns the buffered, unread input, for fast paths that parse
// whole lines in place; they must consume with advance and leave anything
// unusual (a line not complete in the window, a malformed line) to next.
func (s *lineScanner) window() []byte { return s.buf[s.pos:s.end] }

// advance consumes one line of n bytes including its "\n".
func (s *lineScanner) advance(n int) {
	s.pos += n
	s.line++
}

// fill moves the unread tail to the front of the buffer and reads more.
func (s *lineScanner) fill() {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) { // a line longer than the buffer, but not yet too long
		nb := make([]byte, min(2*len(s.buf), MaxLineLen+4096))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if errors.Is(err, io.EOF) {
			s.eof = true
			return
		}
		if err != nil {
			s.err = &decide.ParseError{File: s.name, Line: s.line + 1, Offset: -1, Msg: "read failed", Err: err}
			return
		}
		if n > 0 {
			return
		}
	}
}

// errorf returns a ParseError at the line last returned.
func (s *lineScanner) errorf(format string, args ...any) *decide.ParseError {
	return decide.LineError(s.name, s.line, format, args...)
}

// parseUint reads a decimal number of at most 18 digits (so it cannot
// overflow int64) from the start of b, returning it and the rest of b.
// ok is false when b does not start with a digit or the number is longer.
func parseUint(b []byte) (v int64, rest []byte, ok bool) {
	i := 0
	for i < len(b) && i < 19 {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		v = v*10 + int64(c)
		i++
	}
	if i == 0 || i > 18 {
		return 0, b, false
	}
	return v, b[i:], true
}

// quoteSnippet renders the start of a bad line for an error message.
func quoteSnippet(b []byte) string {
	const max = 60
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// Package lines reads line-oriented input fast and within limits: a line
// scanner that splits a stream without allocating per line, and a reader
// that caps the bytes read from a file. Both coverage readers (Go profiles,
// LCOV) and the evidence readers (markdown, discoveries) use them.
//
// It imports nothing of this module: errors are plain values (*Error,
// ErrTooLarge) that the callers turn into their own.
package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// initialBuf is the scanner's first buffer size; it grows only for a line
// that does not fit.
const initialBuf = 64 << 10

// Error is what stopped a Scanner: a line longer than the limit, or a
// failing reader.
type Error struct {
	Line    int   // the line it is about, 1-based
	TooLong bool  // the line is longer than Max bytes
	Max     int   // the limit, when TooLong
	Err     error // the reader's error, when not TooLong
}

func (e *Error) Error() string {
	if e.TooLong {
		return fmt.Sprintf("line %d: line longer than %d bytes", e.Line, e.Max)
	}
	return fmt.Sprintf("line %d: read failed: %v", e.Line, e.Err)
}

// Unwrap returns the reader's error.
func (e *Error) Unwrap() error { return e.Err }

// Scanner splits a stream into lines without allocating per line. It owns
// one buffer, 64 KiB at first and grown up to the line limit plus a little
// slack only when a line needs it, refilled in place; a line is a
// sub-slice of that buffer, valid until the next call. It is faster than
// bufio.Scanner on hot paths because the common case of Next is one
// bytes.IndexByte over data already in the buffer, and parsers may read
// whole lines in place from Window.
type Scanner struct {
	r    io.Reader
	buf  []byte
	pos  int // start of unread data in buf
	end  int // end of valid data in buf
	max  int // longest line accepted, without its "\n" or "\r\n"
	eof  bool
	err  *Error
	line int // number of the line last returned
}

// NewScanner returns a scanner of r whose lines may be up to max bytes
// long (not counting "\n" or "\r\n"). Lines are numbered from 1.
func NewScanner(r io.Reader, max int) *Scanner {
	return &Scanner{r: r, buf: make([]byte, min(initialBuf, max+4096)), max: max}
}

// NewBytesScanner returns a scanner of data, held whole; its first line is
// numbered base+1.
func NewBytesScanner(data []byte, base, max int) *Scanner {
	return &Scanner{buf: data, end: len(data), eof: true, line: base, max: max}
}

// SetLine numbers the line Next returns next n+1.
func (s *Scanner) SetLine(n int) { s.line = n }

// Line is the number of the line last returned (or stopped at).
func (s *Scanner) Line() int { return s.line }

// Err returns what stopped the scanner: nil at the end of the input, else
// an *Error.
func (s *Scanner) Err() error {
	if s.err == nil {
		return nil
	}
	return s.err
}

// Next returns the next line without its "\n" or "\r\n". ok is false at
// the end of the input and when a line is too long or the reader fails;
// Err tells them apart.
func (s *Scanner) Next() (line []byte, ok bool) {
	if s.err != nil {
		return nil, false
	}
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			line = trimCR(s.buf[s.pos : s.pos+i])
			if len(line) > s.max {
				return nil, s.tooLong()
			}
			s.pos += i + 1
			s.line++
			return line, true
		}
		if s.end-s.pos > s.max+1 { // even without a final "\r", too long
			return nil, s.tooLong()
		}
		if s.eof {
			if s.pos < s.end { // last line without "\n"
				line = trimCR(s.buf[s.pos:s.end])
				if len(line) > s.max {
					return nil, s.tooLong()
				}
				s.pos = s.end
				s.line++
				return line, true
			}
			return nil, false
		}
		if !s.fill() {
			return nil, false
		}
	}
}

func (s *Scanner) tooLong() bool {
	s.line++
	s.err = &Error{Line: s.line, TooLong: true, Max: s.max}
	return false
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// SkipLong, after Next stopped at a line that is too long, discards that
// line without buffering it whole and reports true: Next goes on with the
// line after it. Otherwise it does nothing and reports false.
func (s *Scanner) SkipLong() bool {
	if s.err == nil || !s.err.TooLong {
		return false
	}
	s.err = nil
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			s.pos += i + 1
			return true
		}
		s.pos = s.end
		if s.eof {
			return true
		}
		if !s.fill() {
			s.err.Line = s.line // the failure is within the long line
			return true
		}
	}
}

// Window returns the buffered, unread input, for fast paths that parse
// whole lines in place; they consume them with Consume and leave anything
// unusual (a line not complete in the window, a malformed line) to Next.
func (s *Scanner) Window() []byte { return s.buf[s.pos:s.end] }

// Consume consumes n bytes of the window holding lines whole lines (their
// "\n" included).
func (s *Scanner) Consume(n, lines int) {
	s.pos += n
	s.line += lines
}

// fill moves the unread tail to the front of the buffer and reads more. It
// reports false when the reader failed (s.err is set).
func (s *Scanner) fill() bool {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) { // a line longer than the buffer, but not yet too long
		nb := make([]byte, min(2*len(s.buf), s.max+4096))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if errors.Is(err, io.EOF) {
			s.eof = true
			return true
		}
		if err != nil {
			s.err = &Error{Line: s.line + 1, Err: err}
			return false
		}
		if n > 0 {
			return true
		}
	}
	return true
}

// Package jsonscan is a streaming JSON scanner over a fixed buffer, for
// readers of huge JSON logs (SARIF, validation reports): values are read
// one at a time, values a reader does not need are skipped without being
// held, and strings are unescaped up to a caller's limit while the rest is
// consumed, so no token, however long, grows memory. It accepts exactly
// what encoding/json accepts (RFC 8259, plus a leading UTF-8 byte order
// mark), and its errors are parse.Errors naming the file and byte
// offset.
package jsonscan

import (
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/internal/parse"
)

// Limits of the scanner.
const (
	// MaxNumber caps the length of a number.
	MaxNumber = 1 << 10
	// MaxDepth caps the nesting of JSON values.
	MaxDepth = 512
)

// New returns a scanner of the JSON in r, named name in errors, reading
// through a buffer of size bytes (no token needs to fit in it whole).
func New(name string, r io.Reader, size int) *Scanner {
	return &Scanner{name: name, r: r, buf: make([]byte, size)}
}

// Name is the file name errors carry.
func (s *Scanner) Name() string { return s.name }

// Scanner is a streaming JSON scanner over a fixed buffer. Strings are
// unescaped into a scratch buffer up to a caller's limit while the rest is
// consumed, so no token, however long, grows memory. It accepts exactly
// RFC 8259 JSON (plus a leading UTF-8 byte order mark).
type Scanner struct {
	name string
	r    io.Reader
	buf  []byte
	pos  int   // next unread byte in buf
	end  int   // end of valid bytes in buf
	base int64 // file offset of buf[0]
	rerr error // sticky read error
	sb   []byte
	nb   []byte
	kb   []byte // a key kept apart from buf
	// pend holds bytes handed back by Rewind, read before r.
	pend [][]byte
	// maxDepth caps the nesting Skip enters; 0 means MaxDepth.
	maxDepth int
}

// Off is the file offset of the next unread byte.
func (s *Scanner) Off() int64 { return s.base + int64(s.pos) }

// Errorf returns a ParseError at offset off.
func (s *Scanner) Errorf(off int64, format string, args ...any) *parse.Error {
	return parse.OffsetError(s.name, off, format, args...)
}

// fill reads more input after the unread bytes. It returns io.EOF at the end
// of the input and a ParseError for a failing reader.
func (s *Scanner) fill() error {
	if s.rerr != nil && len(s.pend) == 0 {
		return s.rerr
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.fillPending() {
		return nil
	}
	if s.rerr != nil {
		return s.rerr
	}
	n, err := s.read(s.buf[s.end:], s.base+int64(s.end))
	s.end += n
	return err
}

// read reads into p, whose first byte is at file offset off, from r: at
// least one byte, or the sticky error (io.EOF at the end of the input).
// Bytes read come with a nil error; the error comes on the next call.
func (s *Scanner) read(p []byte, off int64) (int, error) {
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(p)
		if err != nil {
			if errors.Is(err, io.EOF) {
				s.rerr = io.EOF
			} else {
				s.rerr = &parse.Error{File: s.name, Offset: off + int64(n), Msg: "read failed", Err: err}
			}
			if n > 0 {
				return n, nil
			}
			return 0, s.rerr
		}
		if n > 0 {
			return n, nil
		}
	}
	s.rerr = &parse.Error{File: s.name, Offset: off, Msg: "read failed", Err: io.ErrNoProgress}
	return 0, s.rerr
}

// eof turns io.EOF into the error for a truncated document.
func (s *Scanner) eof(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		return s.Errorf(s.Off(), "unexpected end of file, expected the rest of the JSON document")
	}
	return err
}

// ensure makes n unread bytes available (n ≤ len(buf)).
func (s *Scanner) ensure(n int) error {
	for s.end-s.pos < n {
		if err := s.fill(); err != nil {
			return s.eof(err)
		}
	}
	return nil
}

// Peek skips whitespace and returns the next byte without consuming it;
// io.EOF at the end of the input.
func (s *Scanner) Peek() (byte, error) {
	if s.pos < s.end { // fast path: no white space
		if c := s.buf[s.pos]; c > ' ' {
			return c, nil
		}
	}
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// BeginDoc starts a document that must be one JSON object: it skips white
// space and a UTF-8 byte order mark and checks that '{' comes next, without
// consuming it. noun names the document in errors ("SARIF log").
func (s *Scanner) BeginDoc(noun string) error {
	c, err := s.Peek()
	if errors.Is(err, io.EOF) {
		return s.Errorf(0, "empty file, expected a %s (a JSON object)", noun)
	} else if err != nil {
		return err
	}
	if c == 0xEF { // a UTF-8 byte order mark
		if s.ensure(3) == nil && string(s.buf[s.pos:s.pos+3]) == "\uFEFF" {
			s.pos += 3
		}
		if c, err = s.Next(); err != nil {
			return err
		}
	}
	if c != '{' {
		return s.Errorf(s.Off(), "expected a %s (a JSON object), found %s", noun, Kind(c))
	}
	return nil
}

// EndDoc checks that nothing but white space follows the document begun
// with BeginDoc.
func (s *Scanner) EndDoc(noun string) error {
	if _, err := s.Peek(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return s.Errorf(s.Off(), "unexpected data after the %s", noun)
	}
	return nil
}

// Next is Peek for a place where a value or delimiter must follow.
func (s *Scanner) Next() (byte, error) {
	if c, ok := s.peek1(); ok { // fast path: no white space
		return c, nil
	}
	return s.nextSlow()
}

// peek1 returns the next byte when it is in the buffer and not white
// space (ok); small enough to be inlined where Next is hot.
func (s *Scanner) peek1() (c byte, ok bool) {
	if s.pos < s.end {
		if c = s.buf[s.pos]; c > ' ' {
			return c, true
		}
	}
	return 0, false
}

// nextSlow is Next past white space or at the end of the buffer.
func (s *Scanner) nextSlow() (byte, error) {
	c, err := s.Peek()
	if err != nil {
		return c, s.eof(err)
	}
	return c, nil
}

// Kind names the JSON value starting with c.
func Kind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return fmt.Sprintf("%q", c)
}

// open consumes the opening delimiter of an object ('{') or array ('[').
func (s *Scanner) open(what, field string, d byte) error {
	c, ok := s.peek1() // Next, with its fast path inlined
	if !ok {
		var err error
		if c, err = s.nextSlow(); err != nil {
			return err
		}
	}
	if c != d {
		return s.Errorf(s.Off(), "%s%s: expected %s, found %s", what, field, Kind(d), Kind(c))
	}
	s.pos++
	return nil
}

// member advances to the next member of an object opened with open and
// returns its key (valid until the next call; at most keyLimit bytes of
// it, 0 when the caller does not need it); ok is false after the closing
// brace. first must start true.
func (s *Scanner) member(first *bool, keyLimit int) (key []byte, ok bool, err error) {
	// Next, with its fast path inlined here and below.
	c, ok := s.peek1()
	if !ok {
		if c, err = s.nextSlow(); err != nil {
			return nil, false, err
		}
	}
	if c == '}' {
		s.pos++
		return nil, false, nil
	}
	if !*first {
		if c != ',' {
			return nil, false, s.Errorf(s.Off(), "invalid JSON: expected ',' or '}' after an object member, found %s", Kind(c))
		}
		s.pos++
		if c, ok = s.peek1(); !ok {
			if c, err = s.nextSlow(); err != nil {
				return nil, false, err
			}
		}
	}
	*first = false
	if c != '"' {
		return nil, false, s.Errorf(s.Off(), "invalid JSON: expected a string as object key, found %s", Kind(c))
	}
	// Fast path: a key of plain ASCII bytes followed at once by ':', all
	// in the buffer, is returned in place (str's fast path, without a
	// second look for the colon).
	buf := s.buf[:s.end]
	if i := asciiRun(buf, s.pos+1); i+1 < len(buf) && buf[i] == '"' && buf[i+1] == ':' {
		key = buf[s.pos+1 : i]
		s.pos = i + 2
		if len(key) > keyLimit {
			key = key[:max(keyLimit, 0)]
		}
		return key, true, nil
	}
	key, _, err = s.str(keyLimit)
	if err != nil {
		return nil, false, err
	}
	if len(key) > 0 && (s.pos == s.end || s.buf[s.pos] != ':') {
		// Reading on may refill the buffer the key may lie in.
		s.kb = append(s.kb[:0], key...)
		key = s.kb
	}
	if c, ok = s.peek1(); !ok {
		if c, err = s.nextSlow(); err != nil {
			return nil, false, err
		}
	}
	if c != ':' {
		return nil, false, s.Errorf(s.Off(), "invalid JSON: expected ':' after object key, found %s", Kind(c))
	}
	s.pos++
	return key, true, nil
}

// elem advances to the next element of an array opened with open; ok is
// false after the closing bracket. first must start true.
func (s *Scanner) elem(first *bool) (ok bool, err error) {
	c, err := s.Next()
	if err != nil {
		return false, err
	}
	if c == ']' {
		s.pos++
		return false, nil
	}
	if !*first {
		if c != ',' {
			return false, s.Errorf(s.Off(), "invalid JSON: expected ',' or ']' after an array element, found %s", Kind(c))
		}
		s.pos++
		if c, err = s.Next(); err != nil {
			return false, err
		}
		if c == ']' || c == '}' || c == ',' || c == ':' {
			return false, s.Errorf(s.Off(), "invalid JSON: expected a value after ',', found %q", c)
		}
	}
	*first = false
	return true, nil
}

// Object consumes an object, calling fn for each member with its key (valid
// only during the call); fn must consume the member's value. what and field
// name the value in the error when something other than an object comes.
func (s *Scanner) Object(what, field string, fn func(key []byte) error) error {
	if err := s.open(what, field, '{'); err != nil {
		return err
	}
	for first := true; ; {
		key, ok, err := s.member(&first, 256)
		if err != nil || !ok {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
	}
}

// Array consumes an array, calling fn for each element with its index; fn
// must consume the element. what and field name the value in the error
// when something other than an array comes.
func (s *Scanner) Array(what, field string, fn func(i int) error) error {
	if err := s.open(what, field, '['); err != nil {
		return err
	}
	for i, first := 0, true; ; i++ {
		ok, err := s.elem(&first)
		if err != nil || !ok {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

// Null consumes a null if one comes next and reports whether it did.
func (s *Scanner) Null() (bool, error) {
	if c, ok := s.peek1(); ok && c != 'n' { // Next's fast path, inlined
		return false, nil
	}
	c, err := s.Next()
	if err != nil || c != 'n' {
		return false, err
	}
	_, err = s.Literal()
	return true, err
}

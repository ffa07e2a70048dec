// Package jsonscan is a streaming JSON scanner over a fixed buffer, for
// readers of huge JSON logs (SARIF, validation reports): values are read
// one at a time, values a reader does not need are skipped without being
// held, and strings are unescaped up to a caller's limit while the rest is
// consumed, so no token, however long, grows memory. It accepts exactly
// what encoding/json accepts (RFC 8259, plus a leading UTF-8 byte order
// mark), and its errors are decide.ParseErrors naming the file and byte
// offset.
package jsonscan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
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
}

// Off is the file offset of the next unread byte.
func (s *Scanner) Off() int64 { return s.base + int64(s.pos) }

// Errorf returns a ParseError at offset off.
func (s *Scanner) Errorf(off int64, format string, args ...any) *decide.ParseError {
	return decide.OffsetError(s.name, off, format, args...)
}

// fill reads more input after the unread bytes. It returns io.EOF at the end
// of the input and a ParseError for a failing reader.
func (s *Scanner) fill() error {
	if s.rerr != nil {
		return s.rerr
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos, s.end = 0, n
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				s.rerr = io.EOF
			} else {
				s.rerr = &decide.ParseError{File: s.name, Offset: s.base + int64(s.end), Msg: "read failed", Err: err}
			}
			if n > 0 {
				return nil
			}
			return s.rerr
		}
		if n > 0 {
			return nil
		}
	}
	s.rerr = &decide.ParseError{File: s.name, Offset: s.Off(), Msg: "read failed", Err: io.ErrNoProgress}
	return s.rerr
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
	if s.pos < s.end { // fast path: no white space
		if c := s.buf[s.pos]; c > ' ' {
			return c, nil
		}
	}
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
	c, err := s.Next()
	if err != nil {
		return err
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
	c, err := s.Next()
	if err != nil {
		return nil, false, err
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
		if c, err = s.Next(); err != nil {
			return nil, false, err
		}
	}
	*first = false
	if c != '"' {
		return nil, false, s.Errorf(s.Off(), "invalid JSON: expected a string as object key, found %s", Kind(c))
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
	if c, err = s.Next(); err != nil {
		return nil, false, err
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
	c, err := s.Next()
	if err != nil || c != 'n' {
		return false, err
	}
	_, err = s.Literal()
	return true, err
}

// plain marks the bytes a string can hold without escape handling.
var plain = func() (t [256]bool) {
	for i := 0x20; i < 256; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// plainRun skips plain bytes of b from i eight at a time and returns where
// it stopped: at the first byte that is '"', '\\' or below 0x20, or a few
// bytes before the end of b (the caller goes on byte by byte). In each
// mask below the lowest flagged byte is a true match (borrows only run
// upwards from a match), so no match is ever skipped.
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ 0x2222222222222222 // '"' becomes 0
		e := x ^ 0x5c5c5c5c5c5c5c5c // '\\' becomes 0
		m := ((q - ones) &^ q) | ((e - ones) &^ e) | ((x - 0x2020202020202020) &^ x)
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// asciiRun is plainRun that also stops at a byte of 0x80 or above.
func asciiRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ 0x2222222222222222 // '"' becomes 0
		e := x ^ 0x5c5c5c5c5c5c5c5c // '\\' becomes 0
		m := ((q - ones) &^ q) | ((e - ones) &^ e) | ((x - 0x2020202020202020) &^ x) | x
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// plainASCII marks the bytes below 0x80 a string can hold without escape
// handling.
var plainASCII = func() (t [256]bool) {
	for i := 0x20; i < 0x80; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// isASCII reports whether b has no byte of 0x80 or above, eight bytes at
// a time.
func isASCII(b []byte) bool {
	var or uint64
	for len(b) >= 8 {
		or |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// str consumes a string (the opening quote next) and returns its unescaped
// bytes, at most limit of them (valid until the next call, and not to be
// modified: they may be the scanner's buffer); cut reports
// that more were dropped. Invalid UTF-8 and lone surrogates become U+FFFD,
// as encoding/json does.
func (s *Scanner) str(limit int) (b []byte, cut bool, err error) {
	// Fast path: a string of plain ASCII bytes, whole in the buffer, is
	// returned in place: no copy, no UTF-8 check.
	i := asciiRun(s.buf[:s.end], s.pos+1)
	for i < s.end && plainASCII[s.buf[i]] {
		i++
	}
	if i < s.end && s.buf[i] == '"' {
		b = s.buf[s.pos+1 : i]
		s.pos = i + 1
		if len(b) > limit {
			b, cut = b[:max(limit, 0)], true
		}
		return b, cut, nil
	}
	return s.strSlow(limit)
}

// strSlow is str for strings with escapes, bytes of 0x80 or above, or not
// whole in the buffer: they are unescaped into a scratch buffer.
func (s *Scanner) strSlow(limit int) (b []byte, cut bool, err error) {
	start := s.Off()
	s.pos++ // the opening quote
	s.sb = s.sb[:0]
	high := false // a byte of 0x80 or above was kept: check the UTF-8
	for {
		i := plainRun(s.buf[:s.end], s.pos)
		for i < s.end && plain[s.buf[i]] {
			i++
		}
		if room := limit - len(s.sb); room > 0 {
			chunk := s.buf[s.pos:i]
			if len(chunk) > room {
				for room > 0 && !utf8.RuneStart(chunk[room]) {
					room--
				}
				chunk, cut = chunk[:room], true
			}
			high = high || !isASCII(chunk)
			s.sb = append(s.sb, chunk...)
		} else if i > s.pos {
			cut = true
		}
		s.pos = i
		if i == s.end {
			if err := s.fill(); err != nil {
				if errors.Is(err, io.EOF) {
					return nil, false, s.Errorf(start, "invalid JSON: string not terminated")
				}
				return nil, false, err
			}
			continue
		}
		switch c := s.buf[i]; {
		case c == '"':
			s.pos++
			if high && !utf8.Valid(s.sb) {
				s.sb = validUTF8(s.sb)
			}
			return s.sb, cut, nil
		case c < 0x20:
			return nil, false, s.Errorf(s.Off(), "invalid JSON: control character %#x in string", c)
		}
		r, err := s.escape()
		if err != nil {
			return nil, false, err
		}
		if len(s.sb)+utf8.UTFMax <= limit {
			s.sb = utf8.AppendRune(s.sb, r)
		} else {
			cut = true
		}
	}
}

// validUTF8 returns b with each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, as encoding/json does (strings.ToValidUTF8
// would replace a run of them by one).
func validUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+2*utf8.UTFMax)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// escape consumes one backslash escape and returns the rune it stands for.
func (s *Scanner) escape() (rune, error) {
	if err := s.ensure(2); err != nil {
		return 0, err
	}
	at := s.Off()
	e := s.buf[s.pos+1]
	s.pos += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := s.hex4(at)
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate followed by \uDC00–\uDFFF is one rune.
			if s.ensure(6) == nil && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
				save := s.pos
				s.pos += 2
				r2, err := s.hex4(at)
				if err != nil {
					return 0, err
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					return d, nil
				}
				s.pos = save
			}
			return utf8.RuneError, nil
		}
		return r, nil
	}
	return 0, s.Errorf(at, "invalid JSON: invalid escape %q in string", "\\"+string(rune(e)))
}

func (s *Scanner) hex4(at int64) (rune, error) {
	if err := s.ensure(4); err != nil {
		return 0, err
	}
	var r rune
	for _, c := range s.buf[s.pos : s.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, s.Errorf(at, "invalid JSON: invalid \\u escape in string")
		}
		r = r<<4 | rune(c)
	}
	s.pos += 4
	return r, nil
}

// Number consumes a number and returns its text (valid until the next
// call, and not to be modified: it may be the scanner's buffer).
func (s *Scanner) Number() ([]byte, error) {
	start := s.Off()
	// Fast path: the number ends within the buffer and is read in place.
	i := s.pos
	for i < s.end && numByte[s.buf[i]] {
		i++
	}
	if i < s.end && i-s.pos <= MaxNumber {
		b := s.buf[s.pos:i]
		s.pos = i
		return s.checkNumber(b, start)
	}
	s.nb = s.nb[:0]
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !numByte[c] {
				return s.checkNumber(s.nb, start)
			}
			if len(s.nb) >= MaxNumber {
				return nil, s.Errorf(start, "number longer than %d bytes", MaxNumber)
			}
			s.nb = append(s.nb, c)
			s.pos++
		}
		if err := s.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				return s.checkNumber(s.nb, start)
			}
			return nil, err
		}
	}
}

// numByte marks the bytes a JSON number is made of.
var numByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789-+.eE") {
		t[c] = true
	}
	return t
}()

// checkNumber validates the JSON number grammar of b, read from start.
func (s *Scanner) checkNumber(b []byte, start int64) ([]byte, error) {
	i := 0
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, s.Errorf(start, "invalid JSON: invalid number %q", Cap(string(b), 40))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, s.Errorf(start, "invalid JSON: invalid number %q", Cap(string(b), 40))
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, s.Errorf(start, "invalid JSON: invalid number %q", Cap(string(b), 40))
		}
	}
	if i != len(b) {
		return nil, s.Errorf(start, "invalid JSON: invalid number %q", Cap(string(b), 40))
	}
	return b, nil
}

// Literal consumes true, false or null.
func (s *Scanner) Literal() (string, error) {
	at := s.Off()
	for _, w := range [...]string{"true", "false", "null"} {
		if s.buf[s.pos] != w[0] {
			continue
		}
		if err := s.ensure(len(w)); err != nil {
			return "", err
		}
		if string(s.buf[s.pos:s.pos+len(w)]) == w {
			s.pos += len(w)
			return w, nil
		}
		break
	}
	return "", s.Errorf(at, "invalid JSON: invalid character %q looking for a value", s.buf[s.pos])
}

// Skip consumes one value of any kind.
func (s *Scanner) Skip(depth int) error {
	c, err := s.Next()
	if err != nil {
		return err
	}
	switch {
	case c == '{', c == '[':
		if depth >= MaxDepth {
			return s.Errorf(s.Off(), "JSON nested deeper than %d levels", MaxDepth)
		}
		s.pos++
		first := true
		for {
			var ok bool
			if c == '{' {
				_, ok, err = s.member(&first, 0)
			} else {
				ok, err = s.elem(&first)
			}
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := s.Skip(depth + 1); err != nil {
				return err
			}
		}
	case c == '"':
		_, _, err := s.str(0)
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.Number()
		return err
	}
	_, err = s.Literal()
	return err
}

// StringVal reads a string value of at most limit bytes (longer ones are
// cut with "…"); null reads as "".
func (s *Scanner) StringVal(what, field string, limit int) (string, error) {
	c, err := s.Next()
	if err != nil {
		return "", err
	}
	switch c {
	case '"':
		b, cut, err := s.str(limit)
		if err != nil {
			return "", err
		}
		if cut {
			return Cap(string(b)+"…", limit), nil
		}
		return string(b), nil
	case 'n':
		_, err := s.Literal()
		return "", err
	}
	return "", s.Errorf(s.Off(), "%s%s: expected a string, found %s", what, field, Kind(c))
}

// IntVal reads an integer value; ok is false for null.
func (s *Scanner) IntVal(what, field string) (n int, ok bool, err error) {
	c, err := s.Next()
	if err != nil {
		return 0, false, err
	}
	at := s.Off()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		b, err := s.Number()
		if err != nil {
			return 0, false, err
		}
		v, err := strconv.ParseInt(string(b), 10, 32)
		if err != nil {
			return 0, false, s.Errorf(at, "%s%s: %s is not an integer in range", what, field, Cap(string(b), 40))
		}
		return int(v), true, nil
	case c == 'n':
		_, err := s.Literal()
		return 0, false, err
	}
	return 0, false, s.Errorf(at, "%s%s: expected an integer, found %s", what, field, Kind(c))
}

// Cap cuts s to at most max bytes, ending in "…" when cut, without
// splitting a UTF-8 sequence; the result never shares memory with a long s.
func Cap(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]) + "…"
}

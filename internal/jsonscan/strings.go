package jsonscan

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

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
	if i < 0 || i > len(b) {
		return i
	}
	// rest shrinks by eight: one bounds check a word, none in the load.
	for rest := b[i:]; len(rest) >= 8; rest = rest[8:] {
		x := binary.LittleEndian.Uint64(rest)
		q := x ^ 0x2222222222222222 // '"' becomes 0
		e := x ^ 0x5c5c5c5c5c5c5c5c // '\\' becomes 0
		m := ((q - ones) &^ q) | ((e - ones) &^ e) | ((x - 0x2020202020202020) &^ x)
		if m &= highs; m != 0 {
			return len(b) - len(rest) + bits.TrailingZeros64(m)>>3
		}
	}
	return len(b) - (len(b)-i)%8
}

// asciiRun is plainRun that also stops at a byte of 0x80 or above.
func asciiRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if i < 0 || i > len(b) {
		return i
	}
	for rest := b[i:]; len(rest) >= 8; rest = rest[8:] {
		x := binary.LittleEndian.Uint64(rest)
		q := x ^ 0x2222222222222222 // '"' becomes 0
		e := x ^ 0x5c5c5c5c5c5c5c5c // '\\' becomes 0
		// Below 0x80, adding 0x60 sets the high bit from 0x20 up: a
		// byte without it is a control character. A byte of 0x80 or
		// above is flagged by x itself (its carry only reaches higher
		// bytes, so the lowest flagged byte is still a true match).
		m := ((q - ones) &^ q) | ((e - ones) &^ e) | ^(x + 0x6060606060606060) | x
		if m &= highs; m != 0 {
			return len(b) - len(rest) + bits.TrailingZeros64(m)>>3
		}
	}
	return len(b) - (len(b)-i)%8
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
	buf := s.buf[:s.end]
	i := asciiRun(buf, s.pos+1)
	if i >= len(buf) || buf[i] != '"' {
		// asciiRun stops a few bytes short of the end of the buffer.
		for i < len(buf) && plainASCII[buf[i]] {
			i++
		}
		if i >= len(buf) || buf[i] != '"' {
			return s.strSlow(limit)
		}
	}
	b = buf[s.pos+1 : i]
	s.pos = i + 1
	if len(b) > limit {
		b, cut = b[:max(limit, 0)], true
	}
	return b, cut, nil
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

package jsonscan

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Number consumes a number and returns its text (valid until the next
// call, and not to be modified: it may be the scanner's buffer).
func (s *Scanner) Number() ([]byte, error) {
	start := s.Off()
	// Fast path: the number ends within the buffer and is read in place.
	i := s.pos
	for i < s.end && numByte[s.buf[i]] {
		i++
	}
	if i < s.end && (i-s.pos <= MaxNumber || s.r == nil) { // FromBytes: in memory already
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
		if limit := s.depthLimit(); depth >= limit {
			return s.Errorf(s.Off(), "JSON nested deeper than %d levels", limit)
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
	return s.StringValOf(what, field, limit, nil)
}

// StringValOf is StringVal that turns a string read whole into a Go
// string with of (of(b) must equal string(b); b is valid only during the
// call), so a caller can hand out one copy of strings that repeat. A nil
// of is string(b).
func (s *Scanner) StringValOf(what, field string, limit int, of func(b []byte) string) (string, error) {
	c, ok := s.peek1() // Next, with its fast path inlined
	if !ok {
		var err error
		if c, err = s.nextSlow(); err != nil {
			return "", err
		}
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
		if of != nil {
			return of(b), nil
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
		if n, ok := smallInt(b); ok {
			return n, true, nil
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

// smallInt reads a number of one to nine digits (as strconv.ParseInt
// would, and always within 32 bits); ok is false for anything else.
func smallInt(b []byte) (n int, ok bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
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

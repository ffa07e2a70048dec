package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a payload (encoding/json allows 10000).
const maxDepth = 10000

// scanner validates a JSON document in one pass and lets its caller pick
// the few members it needs, skipping the rest without building values:
// the receiver reads a handful of fields of a payload of many kilobytes.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// errorf is a syntax error at the scanner's offset.
func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{s.i}, args...)...)
}

func (s *scanner) ws() {
	for s.i < len(s.b) && s.b[s.i] <= ' ' {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// plain marks the bytes a string holds as they are: not the closing
// quote, not an escape, not a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// peek is the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end checks that nothing but white space follows the document.
func (s *scanner) end() error {
	if s.peek() != 0 {
		return s.errorf("invalid character %q after the top-level value", s.b[s.i])
	}
	return nil
}

// null consumes a null and reports true, or consumes nothing.
func (s *scanner) null() bool {
	if s.peek() == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// object scans an object, calling member for each key with the scanner
// at the member's value; member must consume the value (skip does).
func (s *scanner) object(member func(key []byte) error) error {
	if s.peek() != '{' {
		return s.errorf("want an object")
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		return s.errorf("nesting deeper than %d", maxDepth)
	}
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.errorf("want a member name")
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.errorf("want ':' after a member name")
		}
		s.i++
		if err := member(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errorf("want ',' or '}' in an object")
		}
	}
}

// array scans an array, calling elem with the scanner at each element and
// its index; elem must consume the element.
func (s *scanner) array(elem func(i int) error) error {
	if s.peek() != '[' {
		return s.errorf("want an array")
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		return s.errorf("nesting deeper than %d", maxDepth)
	}
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := elem(n); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errorf("want ',' or ']' in an array")
		}
	}
}

// skip scans any value.
func (s *scanner) skip() error {
	switch c := s.peek(); c {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(func(int) error { return s.skip() })
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 0:
		return s.errorf("unexpected end of JSON input")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, err := s.number()
			return err
		}
		return s.errorf("invalid character %q looking for a value", c)
	}
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return s.errorf("invalid literal")
	}
	s.i += len(lit)
	return nil
}

// number scans a number and returns its text.
func (s *scanner) number() ([]byte, error) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, s.errorf("invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, s.errorf("invalid number: no digits after '.'")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, s.errorf("invalid number: no digits in the exponent")
		}
	}
	return s.b[start:s.i], nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// str scans a string and returns its raw content (between the quotes) and
// whether it has escapes.
func (s *scanner) str() ([]byte, bool, error) {
	s.i++ // the opening quote
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		for s.i < len(s.b) && plain[s.b[s.i]] {
			s.i++
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			s.i++
			if s.i >= len(s.b) {
				return nil, false, s.errorf("unexpected end of JSON input in a string")
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if s.i+5 > len(s.b) {
					return nil, false, s.errorf("unexpected end of JSON input in a \\u escape")
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !isHex(h) {
						return nil, false, s.errorf("invalid \\u escape")
					}
				}
				s.i += 5
			default:
				return nil, false, s.errorf("invalid escape in a string")
			}
		case c < 0x20:
			return nil, false, s.errorf("invalid control character in a string")
		default:
			s.i++
		}
	}
	return nil, false, s.errorf("unexpected end of JSON input in a string")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// key scans a member name and returns it unescaped.
func (s *scanner) key() ([]byte, error) {
	raw, escaped, err := s.str()
	if err != nil || !escaped {
		return raw, err
	}
	var k string
	if err := json.Unmarshal(s.b[s.i-len(raw)-2:s.i], &k); err != nil {
		return nil, s.errorf("member name: %v", err)
	}
	return []byte(k), nil
}

// errType is a member of the wrong type: encoding/json refuses the
// payload, and so does the receiver.
var errType = errors.New("a member of the wrong type")

// typeError is a member of the wrong type at offset at.
func typeError(at int, want string) error {
	return fmt.Errorf("offset %d: %w: want %s", at, errType, want)
}

// text scans a string or null into *dst (null leaves it).
func (s *scanner) text(dst *string) error {
	c := s.peek()
	at := s.i
	switch c {
	case 'n':
		return s.literal("null")
	case '"':
		raw, escaped, err := s.str()
		if err != nil {
			return err
		}
		if !escaped && utf8.Valid(raw) {
			*dst = string(raw)
			return nil
		}
		return json.Unmarshal(s.b[s.i-len(raw)-2:s.i], dst)
	}
	if err := s.skip(); err != nil {
		return err
	}
	return typeError(at, "a string")
}

// integer scans an integer or null into *dst (null leaves it).
func (s *scanner) integer(dst *int64) error {
	c := s.peek()
	at := s.i
	if c == 'n' {
		return s.literal("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		if err := s.skip(); err != nil {
			return err
		}
		return typeError(at, "an integer")
	}
	num, err := s.number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		return typeError(at, "an integer of 64 bits")
	}
	*dst = n
	return nil
}

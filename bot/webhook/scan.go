package webhook

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/internal/jsonscan"
	"github.com/gcloop/gcloop/internal/parse"
)

// maxDepth bounds the nesting of a payload (encoding/json allows 10000).
const maxDepth = 10000

// scanner reads the few members of a payload the router needs with the
// shared JSON scanner (internal/jsonscan), reading the body in place, and
// gives them encoding/json's meaning: null leaves a string or an integer
// as it was, and a member of the wrong type refuses the payload.
type scanner struct {
	s     *jsonscan.Scanner
	size  int // the body's length: no string in it is longer
	depth int // objects and arrays open around the scanner
}

func newScanner(body []byte) *scanner {
	return &scanner{s: jsonscan.FromBytes("payload", body, maxDepth), size: len(body)}
}

// peek is the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	c, err := s.s.Peek()
	if err != nil {
		return 0
	}
	return c
}

// end checks that nothing but white space follows the document.
func (s *scanner) end() error { return s.s.EndDoc("payload") }

// null consumes a null and reports true, or consumes nothing.
func (s *scanner) null() bool {
	ok, err := s.s.Null()
	return ok && err == nil
}

// object scans an object, calling member for each key with the scanner
// at the member's value; member must consume the value (skip does).
func (s *scanner) object(member func(key []byte) error) error {
	s.depth++
	defer func() { s.depth-- }()
	return s.s.Object("a member", "", member)
}

// array scans an array, calling elem with the scanner at each element and
// its index; elem must consume the element.
// objectOrNull reads an object's members, or a null, for which it calls
// none: a member that GitHub sends as null when there is nothing to say.
func (s *scanner) objectOrNull(none func(), member func(key []byte) error) error {
	if s.null() {
		none()
		return nil
	}
	return s.object(member)
}

func (s *scanner) array(elem func(i int) error) error {
	s.depth++
	defer func() { s.depth-- }()
	return s.s.Array("a member", "", elem)
}

// skip scans any value, nested at most maxDepth deep with what is around
// it.
func (s *scanner) skip() error { return s.s.Skip(s.depth) }

// errType is a member of the wrong type: encoding/json refuses the
// payload, and so does the receiver.
var errType = errors.New("a member of the wrong type")

// typeError is a member of the wrong type at offset at.
func typeError(at int64, want string) error {
	return fmt.Errorf("offset %d: %w: want %s", at, errType, want)
}

// text scans a string or null into *dst (null leaves it).
func (s *scanner) text(dst *string) error {
	c, err := s.s.Next()
	if err != nil {
		return err
	}
	at := s.s.Off()
	switch c {
	case 'n':
		_, err := s.s.Literal()
		return err
	case '"':
		v, err := s.s.StringVal("", "", s.size)
		if err == nil {
			*dst = v
		}
		return err
	}
	if err := s.skip(); err != nil {
		return err
	}
	return typeError(at, "a string")
}

// integer scans an integer or null into *dst (null leaves it).
func (s *scanner) integer(dst *int64) error {
	c, err := s.s.Next()
	if err != nil {
		return err
	}
	at := s.s.Off()
	if c == 'n' {
		_, err := s.s.Literal()
		return err
	}
	if c != '-' && (c < '0' || c > '9') {
		if err := s.skip(); err != nil {
			return err
		}
		return typeError(at, "an integer")
	}
	num, err := s.s.Number()
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

// syntaxError words the scanner's error as the receiver answers it:
// "offset N: what", and encoding/json's "unexpected end of JSON input"
// for a payload cut short.
func (s *scanner) syntaxError(err error) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Offset >= int64(s.size) {
		return fmt.Errorf("offset %d: unexpected end of JSON input", pe.Offset)
	}
	return fmt.Errorf("offset %d: %s", pe.Offset, strings.TrimPrefix(pe.Msg, "invalid JSON: "))
}

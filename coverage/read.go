package coverage

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lines"
)

// Read sniffs the format of a coverage or test report from its content and
// reads it: coverage formats fill Evidence.Coverage, JUnit and
// run-<layer>.json fill Evidence.Tests. A file of no known format is an
// error.
func Read(name string, r io.Reader) (*decide.Evidence, error) {
	e, _, err := ReadFormat(name, r)
	return e, err
}

// ReadFormat is Read that also returns the format it sniffed.
func ReadFormat(name string, r io.Reader) (*decide.Evidence, Format, error) {
	br := bufio.NewReaderSize(r, SniffLen)
	head, err := br.Peek(SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, "", &decide.ParseError{File: name, Offset: 0, Msg: "read failed", Err: err}
	}
	f := Sniff(head)
	e := &decide.Evidence{Sources: []string{name}}
	switch f {
	case FormatGoProfile, FormatLCOV, FormatCobertura, FormatJaCoCo, FormatClover:
		read := map[Format]func(string, io.Reader) (*decide.CoverageFacts, error){
			FormatGoProfile: ReadGoProfile, FormatLCOV: ReadLCOV,
			FormatCobertura: ReadCobertura, FormatJaCoCo: ReadJaCoCo,
			FormatClover: ReadClover,
		}[f]
		c, err := read(name, br)
		if err != nil {
			return nil, f, err
		}
		e.Coverage = c
	case FormatRunJSON:
		re, err := ReadRunJSON(name, br)
		if err != nil {
			return nil, f, err
		}
		e = re
	case FormatJUnit:
		t, err := ReadJUnit(name, br)
		if err != nil {
			return nil, f, err
		}
		e.Tests = t
	default:
		if len(head) == 0 {
			return nil, "", decide.OffsetError(name, 0, "empty file: want a coverage or test report")
		}
		return nil, "", decide.LineError(name, 1, "unknown format: want a Go cover profile, LCOV, Cobertura, JaCoCo or Clover XML, JUnit XML or run-<layer>.json")
	}
	return e, f, nil
}

// MaxLineLen is the longest line the line-oriented readers (Go profiles,
// LCOV) accept. A longer line is an error naming it; it is never buffered
// whole.
const MaxLineLen = 1 << 20

// lineScanner is the shared line scanner (internal/lines) with the name
// of the file it reads, for errors.
type lineScanner struct {
	*lines.Scanner
	name string
}

func newLineScanner(name string, r io.Reader) *lineScanner {
	return &lineScanner{Scanner: lines.NewScanner(r, MaxLineLen), name: name}
}

// bytesScanner is a lineScanner over data, held whole, its first line
// numbered base+1.
func bytesScanner(name string, data []byte, base int) *lineScanner {
	return &lineScanner{Scanner: lines.NewBytesScanner(data, base, MaxLineLen), name: name}
}

// failure returns what stopped the scanner as a ParseError, nil at the end
// of the input.
func (s *lineScanner) failure() error {
	var le *lines.Error
	if !errors.As(s.Err(), &le) {
		return nil
	}
	if le.TooLong {
		return decide.LineError(s.name, le.Line, "line longer than %d bytes", MaxLineLen)
	}
	return &decide.ParseError{File: s.name, Line: le.Line, Offset: -1, Msg: "read failed", Err: le.Err}
}

// errorf returns a ParseError at the line last returned.
func (s *lineScanner) errorf(format string, args ...any) *decide.ParseError {
	return decide.LineError(s.name, s.Line(), format, args...)
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

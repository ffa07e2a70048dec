package coverage

import (
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

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
		return parse.LineError(s.name, le.Line, "line longer than %d bytes", MaxLineLen)
	}
	return &parse.Error{File: s.name, Line: le.Line, Offset: -1, Msg: "read failed", Err: le.Err}
}

// errorf returns a ParseError at the line last returned.
func (s *lineScanner) errorf(format string, args ...any) *parse.Error {
	return parse.LineError(s.name, s.Line(), format, args...)
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

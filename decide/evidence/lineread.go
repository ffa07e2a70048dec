package evidence

// Reading line-oriented evidence files: caps on size and line length, the line loop, and the notes a reader adds.

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

// Limits shared by the readers of this file set.
const (
	// lnMaxFile caps the bytes read from one evidence file.
	lnMaxFile = 64 << 20
	// lnMaxLine caps one line of a line-oriented file.
	lnMaxLine = 1 << 20
	// lnMaxNotes caps the notes one file adds; the rest are summarized.
	lnMaxNotes = 50
)

// lnTooLarge is the error for a file over lnMaxFile.
func lnTooLarge(name string) *parse.Error {
	return parse.OffsetError(name, lnMaxFile, "file exceeds the %d MiB limit for evidence files", lnMaxFile>>20)
}

// lnCapped caps r at lnMaxFile bytes; past them it fails with
// lines.ErrTooLarge.
func lnCapped(r io.Reader) io.Reader { return lines.NewCapReader(r, lnMaxFile) }

// lnScanner is the shared line scanner (internal/lines) over a text
// evidence file capped at lnMaxFile, with lines up to lnMaxLine bytes.
type lnScanner struct {
	*lines.Scanner
	name string
}

func newLnScanner(name string, r io.Reader) *lnScanner {
	return &lnScanner{Scanner: lines.NewScanner(lnCapped(r), lnMaxLine), name: name}
}

// next returns the next line without its terminator and, on the first
// line, without a UTF-8 byte order mark; ok is false at the end of the
// input, at a line over lnMaxLine (which SkipLong may skip) and when reading
// failed (see fail).
func (l *lnScanner) next() (line []byte, ok bool) {
	line, ok = l.Next()
	if ok && l.Line() == 1 {
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line, ok
}

// fail returns what stopped the scanner as a ParseError (nil at the end of
// the input): a line over lnMaxLine, the file cap's error, else a read error
// at the line being read.
func (l *lnScanner) fail() error {
	var le *lines.Error
	switch {
	case !errors.As(l.Err(), &le):
		return nil
	case le.TooLong:
		return parse.LineError(l.name, le.Line, "line longer than %d bytes", lnMaxLine)
	case errors.Is(le.Err, lines.ErrTooLarge):
		return lnTooLarge(l.name)
	}
	return parse.LineError(l.name, le.Line, "read error: %v", le.Err)
}

// lnEachLine calls fn with each line of a text report and its number. A
// line longer than lnMaxLine is an error, as are a file over lnMaxFile and
// a failing reader; an error of fn ends the reading and is returned.
func lnEachLine(name string, r io.Reader, fn func(n int, line string) error) error {
	sc := newLnScanner(name, r)
	for {
		b, ok := sc.next()
		if !ok {
			return sc.fail()
		}
		if err := fn(sc.Line(), string(b)); err != nil {
			return err
		}
	}
}

// lnNotes collects notes up to lnMaxNotes and counts the rest.
type lnNotes struct {
	list  []string
	extra int
}

func (n *lnNotes) addf(format string, args ...any) {
	if len(n.list) >= lnMaxNotes {
		n.extra++
		return
	}
	n.list = append(n.list, fmt.Sprintf(format, args...))
}

func (n *lnNotes) done(name string) []string {
	if n.extra > 0 {
		n.list = append(n.list, fmt.Sprintf("%s: %d more notes not shown", name, n.extra))
	}
	return n.list
}

// lnFileError is an error about the whole file.
func lnFileError(name, format string, args ...any) *parse.Error {
	return &parse.Error{File: name, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

package evidence

// Reading line-oriented evidence files: caps on size and line length, the line loop, and the notes a reader adds.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/decide"
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

// errLnTooLarge is returned by lnCapReader past its limit.
var errLnTooLarge = errors.New("file too large")

// lnCapReader fails with errLnTooLarge once more than max bytes were read.
type lnCapReader struct {
	r   io.Reader
	n   int64
	max int64
}

func (c *lnCapReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, errLnTooLarge
	}
	if room := c.max + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n, errLnTooLarge
	}
	return n, err
}

// lnTooLarge is the error for a file over lnMaxFile.
func lnTooLarge(name string) *decide.ParseError {
	return decide.OffsetError(name, lnMaxFile, "file exceeds the %d MiB limit for evidence files", lnMaxFile>>20)
}

// lnReader yields the lines of a text file with line numbers, without the
// line terminator and without a leading UTF-8 BOM. A line longer than max is
// reported as too long and never buffered whole.
type lnReader struct {
	br   *bufio.Reader
	max  int
	line int   // number of the line last returned
	off  int64 // byte offset of the next line
	buf  []byte
}

func newLnReader(r io.Reader, maxLine int) *lnReader {
	return &lnReader{br: bufio.NewReaderSize(&lnCapReader{r: r, max: lnMaxFile}, 64<<10), max: maxLine}
}

// next returns the next line. tooLong is set (and line is nil) when the line
// exceeded the cap; err is io.EOF after the last line, errLnTooLarge past
// the file cap, or the reader's error.
func (l *lnReader) next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	read := false
	for {
		chunk, e := l.br.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
		}
		l.off += int64(len(chunk))
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+2 { // allow for "\r\n"
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, false, e
		}
		if !read && e == io.EOF {
			return nil, false, io.EOF
		}
		break
	}
	l.line++
	if tooLong {
		return nil, true, nil
	}
	b := bytes.TrimSuffix(l.buf, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) > l.max {
		return nil, true, nil
	}
	if l.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	return b, false, nil
}

// fail turns an error of next other than io.EOF into the reader's error:
// the file cap's, else a read error at the line being read.
func (l *lnReader) fail(name string, err error) error {
	if errors.Is(err, errLnTooLarge) {
		return lnTooLarge(name)
	}
	return decide.LineError(name, l.line+1, "read error: %v", err)
}

// lnEachLine calls fn with each line of a text report and its number. A
// line longer than lnMaxLine is an error, as are a file over lnMaxFile and
// a failing reader; an error of fn ends the reading and is returned.
func lnEachLine(name string, r io.Reader, fn func(n int, line string) error) error {
	lr := newLnReader(r, lnMaxLine)
	for {
		b, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return lr.fail(name, err)
		}
		if tooLong {
			return decide.LineError(name, lr.line, "line longer than %d bytes", lnMaxLine)
		}
		if err := fn(lr.line, string(b)); err != nil {
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
func lnFileError(name, format string, args ...any) *decide.ParseError {
	return &decide.ParseError{File: name, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

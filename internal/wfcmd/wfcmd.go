// Package wfcmd keeps text from outside (evidence, event payloads, file
// names) from starting a GitHub Actions workflow command (`::name::…`)
// when it is printed to stdout or stderr. The runner reads each line of a
// step's output as a possible command (trimmed of white space; a CR ends a
// line as an LF does), so one-line text is escaped as command data, and
// multi-line documents pass through a Writer that leaves no line reading
// as a command.
package wfcmd

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// Escape escapes s as workflow-command data: `%` → %25, CR → %0D,
// LF → %0A. The result is one line, so a `::` inside it starts nothing.
// Every one-line text from outside goes through it before it is printed.
func Escape(s string) string { return dataEscaper.Replace(s) }

// Property escapes s as a workflow-command property value: Escape plus
// `:` → %3A and `,` → %2C.
func Property(s string) string { return propertyEscaper.Replace(s) }

// WriteBlock writes a multi-line document (a report, an issue body)
// through a Writer.
func WriteBlock(w io.Writer, text string) error {
	x := NewWriter(w)
	if _, err := io.WriteString(x, text); err != nil {
		return err
	}
	return x.Close()
}

// Writer passes a multi-line document through so that none of its lines
// reads as a workflow command, and streams (constant memory): a CR is
// escaped as %0D (the runner would end a line there), and a line whose
// first characters after white space are `::` gets them as %3A%3A. Every
// other byte passes unchanged, so a Markdown report stays readable.
type Writer struct {
	w       io.Writer
	state   int    // lineStart, oneColon or inLine
	partial []byte // the first bytes of a rune split across writes
}

const (
	lineStart = iota // only white space so far on this line
	oneColon         // white space and one ':' (not written yet)
	inLine           // the line is no command
)

// NewWriter returns a Writer onto w. Close it to write what it holds back.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write filters p; it returns len(p) when w took the filtered bytes.
func (x *Writer) Write(p []byte) (int, error) {
	buf := append(x.partial, p...)
	x.partial = nil
	out := make([]byte, 0, len(buf)+8)
	for len(buf) > 0 {
		if !utf8.FullRune(buf) {
			x.partial = append([]byte(nil), buf...)
			break
		}
		r, n := utf8.DecodeRune(buf)
		raw := buf[:n]
		buf = buf[n:]
		switch {
		case r == '\r':
			out = x.settle(out)
			out = append(out, "%0D"...)
		case r == '\n':
			out = x.settle(out)
			out = append(out, '\n')
			x.state = lineStart
		case x.state == inLine:
			out = append(out, raw...)
		case x.state == lineStart && unicode.IsSpace(r):
			out = append(out, raw...)
		case x.state == lineStart && r == ':':
			x.state = oneColon
		case x.state == oneColon && r == ':':
			out = append(out, "%3A%3A"...)
			x.state = inLine
		default:
			out = x.settle(out)
			out = append(out, raw...)
			x.state = inLine
		}
	}
	if _, err := x.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// settle writes a held-back ':' and ends the line's command check.
func (x *Writer) settle(out []byte) []byte {
	if x.state == oneColon {
		out = append(out, ':')
	}
	x.state = inLine
	return out
}

// Close writes what the Writer holds back: a lone ':' or the bytes of an
// incomplete rune at the very end.
func (x *Writer) Close() error {
	out := append(x.settle(nil), x.partial...)
	x.partial = nil
	if len(out) == 0 {
		return nil
	}
	_, err := x.w.Write(out)
	return err
}

// Package parse holds the error every reader of an outside file returns
// when the file cannot be read: which file, where, and what was expected,
// in one line.
package parse

import "fmt"

// Error reports an outside file that cannot be read: which file, where, and
// what was expected. Its message is one line.
type Error struct {
	File   string // the evidence file's name as given
	Line   int    // 1-based line, 0 when unknown
	Offset int64  // byte offset, used when Line is 0; -1 when unknown
	Msg    string // what was found and what was expected
	Err    error  // underlying error, if any
}

// Error renders "file:line: msg", "file: byte N: msg" or "file: msg".
func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil {
		if msg == "" {
			msg = e.Err.Error()
		} else {
			msg += ": " + e.Err.Error()
		}
	}
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// LineError returns an Error at a line.
func LineError(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// OffsetError returns an Error at a byte offset.
func OffsetError(file string, offset int64, format string, args ...any) *Error {
	return &Error{File: file, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

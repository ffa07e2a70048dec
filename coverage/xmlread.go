package coverage

import (
	"encoding/xml"
	"errors"
	"io"

	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// xmlElements reads an XML coverage report element by element. start is
// called for each start element with the names of the elements it is
// nested in, outermost first (none for the root); when it returns skip, the
// element is passed over with all its content. end, if not nil, is called
// for each end element once it is closed. Decoder errors become
// ParseErrors naming the file and line; the end of the input ends the
// reading.
func xmlElements(name string, x *xmlsafe.Decoder, start func(e xml.StartElement, stack []string) (skip bool, err error), end func(e xml.EndElement) error) error {
	var stack []string
	for {
		tok, err := x.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return xmlError(name, x, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			skip, err := start(e, stack)
			if err != nil {
				return err
			}
			if skip {
				if err := x.Skip(); err != nil {
					return xmlError(name, x, err)
				}
				continue
			}
			stack = append(stack, e.Name.Local)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if end != nil {
				if err := end(e); err != nil {
					return err
				}
			}
		}
	}
}

// xmlUp returns the name of the element n levels up a stack of open
// elements (1 is the parent), or "" above the root.
func xmlUp(stack []string, n int) string {
	if n > len(stack) {
		return ""
	}
	return stack[len(stack)-n]
}

// xmlAttr returns the value of the attribute of e named local (in any
// namespace) and whether e has one: a missing attribute and an empty one
// differ where a reader takes a missing count as zero.
func xmlAttr(e xml.StartElement, local string) (string, bool) {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// xmlError wraps a decoder error with the file and line.
func xmlError(name string, x *xmlsafe.Decoder, err error) *parse.Error {
	msg := "malformed XML"
	if errors.Is(err, xmlsafe.ErrDTD) {
		msg = "refused XML"
	}
	if errors.Is(err, xmlsafe.ErrTokenTooLong) {
		return &parse.Error{File: name, Line: x.Line(), Offset: -1, Msg: "refused XML: " + err.Error()}
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &parse.Error{File: name, Line: se.Line, Offset: -1, Msg: msg + ": " + se.Msg}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &parse.Error{File: name, Line: x.Line(), Offset: -1, Msg: "truncated XML"}
	}
	return &parse.Error{File: name, Line: x.Line(), Offset: -1, Msg: msg, Err: err}
}

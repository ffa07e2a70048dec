// Package xmlsafe reads XML from untrusted reports: no DTDs, no entity
// declarations, bounded nesting and bounded token size.
package xmlsafe

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// MaxDepth is the deepest element nesting a Decoder accepts.
const MaxDepth = 256

// ErrDTD is returned for a document that carries a DTD or entity
// declarations (DESIGN §10: no XML external entities).
var ErrDTD = errors.New("DTD or entity declarations are not allowed")

// Decoder wraps encoding/xml with the limits above.
type Decoder struct {
	d       *xml.Decoder
	depth   int
	allow   func(string) bool // AllowDoctype's predicate; nil allows none
	started bool              // the root element was read
	doctype bool              // a DOCTYPE was accepted
	onToken func()            // OnToken's function; nil for none
}

// AllowDoctype lets through one DOCTYPE before the root element when ok
// returns true for its text (what follows "<!", e.g. `DOCTYPE report
// PUBLIC "..." "report.dtd"`). Use it only for exact, known declarations
// without an internal subset: the DTD is never read, and entities stay
// undeclared (strict mode rejects any reference to them). Every other
// directive is still ErrDTD.
func (x *Decoder) AllowDoctype(ok func(string) bool) { x.allow = ok }

// OnToken sets f to be called each time a token was read from the input
// (by Token, Skip or Text), also when reading it failed. A reader that caps
// the bytes of one token moves its count there.
func (x *Decoder) OnToken(f func()) { x.onToken = f }

// NewDecoder returns a strict decoder over r. Undeclared entities are
// errors (encoding/xml's strict mode); only the five predefined ones and
// character references are expanded.
func NewDecoder(r io.Reader) *Decoder {
	d := xml.NewDecoder(r)
	d.Strict = true
	d.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		// Reports in ISO-8859-1/ASCII are read as bytes: element and
		// attribute names are ASCII, and non-ASCII text is only shown.
		return in, nil
	}
	return &Decoder{d: d}
}

// InputOffset is the byte offset of the decoder, for error messages.
func (x *Decoder) InputOffset() int64 { return x.d.InputOffset() }

// Line returns the current line of the input, 1-based.
func (x *Decoder) Line() int {
	line, _ := x.d.InputPos()
	return line
}

// Token returns the next token, with the limits applied. At the end of the
// input it returns io.EOF.
func (x *Decoder) Token() (xml.Token, error) {
	tok, err := x.d.Token()
	if x.onToken != nil {
		x.onToken()
	}
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case xml.Directive:
		if x.allow != nil && !x.started && !x.doctype && x.allow(string(t)) {
			x.doctype = true
			return t, nil
		}
		return nil, ErrDTD
	case xml.StartElement:
		x.started = true
		x.depth++
		if x.depth > MaxDepth {
			return nil, fmt.Errorf("elements nested deeper than %d", MaxDepth)
		}
		return t, nil
	case xml.EndElement:
		x.depth--
	}
	return tok, nil
}

// Attr returns the value of the attribute of e named local (in any
// namespace), or "" when it has none.
func Attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// Skip skips to the end of the element whose start was just read.
func (x *Decoder) Skip() error {
	for depth := 1; depth > 0; {
		tok, err := x.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// Text reads the character data of the element whose start was just read,
// up to its end, at most limit bytes (the rest is dropped). Nested elements
// are skipped.
func (x *Decoder) Text(limit int) (string, error) {
	var buf []byte
	for depth := 1; depth > 0; {
		tok, err := x.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if room := limit - len(buf); room > 0 {
				if len(t) > room {
					t = t[:room]
				}
				buf = append(buf, t...)
			}
		}
	}
	return string(buf), nil
}

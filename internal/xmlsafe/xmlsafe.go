// Package xmlsafe reads XML from untrusted reports: no DTD is read, no
// entity declarations, bounded nesting and bounded token size.
package xmlsafe

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// MaxDepth is the deepest element nesting a Decoder accepts.
const MaxDepth = 256

// MaxToken is the default cap on the bytes of one token (a start element
// with all its attributes, a run of character data, a comment). It bounds
// the memory encoding/xml needs for any input; SetMaxToken changes it.
const MaxToken = 1 << 20

// ErrDTD is returned for a document that carries a DTD or entity
// declarations (DESIGN §10: no XML external entities).
var ErrDTD = errors.New("DTD or entity declarations are not allowed")

// Decoder wraps encoding/xml with the limits above.
type Decoder struct {
	d       *xml.Decoder
	lr      *limitReader
	depth   int
	started bool   // the root element was read
	doctype bool   // a DOCTYPE was accepted
	onToken func() // OnToken's function; nil for none
}

// SetMaxToken sets the cap on the bytes of one token (MaxToken unless
// set). A longer token is an error wrapping ErrTokenTooLong.
func (x *Decoder) SetMaxToken(n int64) { x.lr.max = n }

// OnToken sets f to be called each time a token was read from the input
// (by Token, Skip or Text), also when reading it failed. A reader that caps
// the bytes of one token moves its count there.
func (x *Decoder) OnToken(f func()) { x.onToken = f }

// NewDecoder returns a strict decoder over r. Undeclared entities are
// errors (encoding/xml's strict mode); only the five predefined ones and
// character references are expanded. One plain external DOCTYPE before the
// root element (see PlainDoctype) is accepted and never fetched; any other
// directive is ErrDTD.
func NewDecoder(r io.Reader) *Decoder {
	lr := &limitReader{r: bufio.NewReaderSize(r, 64<<10), max: MaxToken}
	d := xml.NewDecoder(lr)
	d.Strict = true
	d.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		// Reports in ISO-8859-1/ASCII are read as bytes: element and
		// attribute names are ASCII, and non-ASCII text is only shown.
		return in, nil
	}
	return &Decoder{d: d, lr: lr}
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
	x.lr.mark = x.lr.n
	if x.onToken != nil {
		x.onToken()
	}
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case xml.Directive:
		if !x.started && !x.doctype && PlainDoctype(string(t)) {
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

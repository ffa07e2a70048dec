package evidence

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// csMaxToken caps the bytes of one XML token (a tag with its attributes, a
// run of text).
const csMaxToken = 16 << 20

// ReadCheckstyle reads a checkstyle XML report — <checkstyle><file
// name="..."><error line="" column="" severity="" message="" source=""/>
// — as written by ESLint, golangci-lint, phpcs and checkstyle itself.
// Severity error → high, warning → medium, info and ignore → low; a missing
// severity is error (checkstyle's default). Error-severity entries count as
// LintErrors, or as TypeErrors when their source is a type checker
// (typescript, tsc, typecheck, ...). At most MaxFindings findings are kept,
// the most severe; the rest are counted in Evidence.Omitted. A DTD, entity
// declarations, deep nesting or a token over 16 MiB are errors.
func ReadCheckstyle(name string, r io.Reader) (*decide.Evidence, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		_, _ = br.Discard(3) // a UTF-8 byte order mark
	}
	cr := &csReader{name: name, d: xmlsafe.NewDecoder(br), keep: keeper{}}
	cr.d.SetMaxToken(csMaxToken)
	if err := cr.read(); err != nil {
		return nil, err
	}
	ev := &decide.Evidence{
		Sources:    []string{name},
		Findings:   cr.keep.findings(),
		Omitted:    cr.keep.omitted,
		Analysis:   true,
		LintErrors: cr.lint,
		TypeErrors: cr.typ,
	}
	if n := ev.Omitted.Total(); n > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: kept the %d most severe of %d findings; %d omitted", name, len(ev.Findings), len(ev.Findings)+n, n))
	}
	ev.Notes = append(ev.Notes, cr.keep.dedupeNotes(name)...)
	return ev, nil
}

// csReader holds the state of one ReadCheckstyle call.
type csReader struct {
	name      string
	d         *xmlsafe.Decoder
	keep      keeper
	seq       int
	lint, typ int
}

// token returns the next token; io.EOF at the end.
func (cr *csReader) token() (xml.Token, error) {
	t, err := cr.d.Token()
	if err != nil {
		return nil, cr.wrap(err)
	}
	return t, nil
}

// wrap turns a decoder error into a ParseError naming the line.
func (cr *csReader) wrap(err error) error {
	var se *xml.SyntaxError
	var pe *parse.Error
	switch {
	case errors.Is(err, io.EOF):
		return err
	case errors.As(err, &pe):
		return err
	case errors.Is(err, xmlsafe.ErrTokenTooLong):
		return parse.LineError(cr.name, cr.d.Line(), "a single XML token is larger than %d MiB", csMaxToken>>20)
	case errors.Is(err, xmlsafe.ErrDTD):
		return parse.LineError(cr.name, cr.d.Line(), "%v", err)
	case errors.As(err, &se) && se.Msg == "unexpected EOF":
		return parse.LineError(cr.name, se.Line, "unexpected end of file, expected the rest of the report")
	case errors.As(err, &se):
		return parse.LineError(cr.name, se.Line, "invalid XML: %s", csOneLine(se.Msg))
	case strings.Contains(err.Error(), "nested deeper"):
		return parse.LineError(cr.name, cr.d.Line(), "%v", err)
	}
	return &parse.Error{File: cr.name, Line: cr.d.Line(), Offset: -1, Msg: "read failed", Err: err}
}

func (cr *csReader) read() error {
	// The root element.
	for {
		t, err := cr.token()
		if errors.Is(err, io.EOF) {
			return parse.LineError(cr.name, cr.d.Line(), "no XML element found, expected a <checkstyle> report")
		}
		if err != nil {
			return err
		}
		if se, ok := t.(xml.StartElement); ok {
			if se.Name.Local != "checkstyle" {
				return parse.LineError(cr.name, cr.d.Line(), "root element <%s>, expected <checkstyle>", jsonscan.Cap(se.Name.Local, 64))
			}
			break
		}
		if cd, ok := t.(xml.CharData); ok && len(bytes.TrimSpace(cd)) > 0 {
			return parse.LineError(cr.name, cr.d.Line(), "text before the root element, expected a <checkstyle> report")
		}
	}
	if err := cr.readRoot(); err != nil {
		return err
	}
	// Only comments, processing instructions and spaces may follow.
	for {
		t, err := cr.token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			return parse.LineError(cr.name, cr.d.Line(), "element <%s> after the root element", jsonscan.Cap(t.Name.Local, 64))
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return parse.LineError(cr.name, cr.d.Line(), "text after the root element")
			}
		}
	}
}

// children reads the content of the element whose start was just read up
// to its end, calling fn for each child element's start; fn must read the
// child through its end. closing names the end tag a truncated file lacks
// ("</file>").
func (cr *csReader) children(closing string, fn func(t xml.StartElement) error) error {
	for {
		t, err := cr.token()
		if errors.Is(err, io.EOF) {
			return parse.LineError(cr.name, cr.d.Line(), "unexpected end of file, expected %s", closing)
		}
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		}
	}
}

// readRoot reads the <file> elements of <checkstyle>.
func (cr *csReader) readRoot() error {
	return cr.children("</checkstyle>", func(t xml.StartElement) error {
		if t.Name.Local != "file" {
			return cr.skip()
		}
		return cr.readFile(csPath(xmlsafe.Attr(t, "name")))
	})
}

// skip skips the element whose start was just read.
func (cr *csReader) skip() error {
	for depth := 1; depth > 0; {
		t, err := cr.token()
		if errors.Is(err, io.EOF) {
			return parse.LineError(cr.name, cr.d.Line(), "unexpected end of file inside an element")
		}
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// readFile reads the <error> elements of one <file>.
func (cr *csReader) readFile(file string) error {
	return cr.children("</file>", func(t xml.StartElement) error {
		if t.Name.Local == "error" {
			if err := cr.addError(file, t, cr.d.Line()); err != nil {
				return err
			}
		}
		return cr.skip()
	})
}

// addError files one <error>.
func (cr *csReader) addError(file string, t xml.StartElement, at int) error {
	sevWord := strings.TrimSpace(xmlsafe.Attr(t, "severity"))
	var sev decide.Severity
	isErr := false
	switch strings.ToLower(sevWord) {
	case "", "error":
		sev, isErr = decide.High, true
	case "warning", "warn":
		sev = decide.Medium
	case "info", "ignore", "note", "none":
		sev = decide.Low
	default:
		s, err := decide.ParseSeverity(sevWord)
		if err != nil {
			return parse.LineError(cr.name, at, "unknown severity %q (want error, warning, info or ignore)", jsonscan.Cap(sevWord, 40))
		}
		sev = s
	}
	line := 0
	if v := strings.TrimSpace(xmlsafe.Attr(t, "line")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<30 {
			return parse.LineError(cr.name, at, "line %q is not a line number", jsonscan.Cap(v, 40))
		}
		line = n
	}
	source := jsonscan.Cap(strings.TrimSpace(xmlsafe.Attr(t, "source")), sarifMaxField)
	msg := jsonscan.Cap(strings.TrimSpace(xmlsafe.Attr(t, "message")), sarifMaxMessage)
	if msg == "" {
		msg = source
	}
	if msg == "" {
		msg = "(no message)"
	}
	f := decide.Finding{
		Severity: sev,
		File:     jsonscan.Cap(file, sarifMaxField),
		Line:     line,
		Rule:     source,
		RuleIsID: source != "",
		Message:  msg,
	}
	if isErr { // every error-level result, repeats too
		if sarifIsTypeChecker(source) || sarifIsTypeRule(source) {
			cr.typ++
		} else {
			cr.lint++
		}
	}
	if cr.keep.duplicate(f) {
		return nil
	}
	cr.seq++
	if !cr.keep.wants(sev, cr.seq) {
		cr.keep.omitted.Add(sev)
		return nil
	}
	f.Source = fmt.Sprintf("%s:%d", cr.name, at)
	cr.keep.add(cr.seq, f)
	return nil
}

// csOneLine escapes line breaks so that a message stays on one line.
func csOneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// csPath tidies a file name: a leading "./" is dropped.
func csPath(p string) string {
	p = strings.TrimSpace(p)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// isCheckstyle reports whether the head of a file is a checkstyle report:
// its root element is <checkstyle>.
func isCheckstyle(head []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = true
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for {
		t, err := d.RawToken()
		if err != nil {
			return false
		}
		switch t := t.(type) {
		case xml.StartElement:
			return t.Name.Local == "checkstyle"
		case xml.CharData:
			if len(bytes.TrimSpace(bytes.TrimPrefix(t, []byte("\uFEFF")))) > 0 {
				return false
			}
		}
	}
}

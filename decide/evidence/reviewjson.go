package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

// rjMaxDepth caps the nesting of values skipped in a review JSON.
const rjMaxDepth = 64

// ReadReviewJSON reads a review result (review-results.json, DESIGN §3.1):
//
//	{"review_score": 7.5, "gc_signal": "REVISION_NEEDED",
//	 "findings": [{"severity": "HIGH", "file": "src/a.ts", "line": 42,
//	   "dimension": "security", "description": "...", "suggestion": "..."}]}
//
// A finding may give "file_line": "src/a.ts:42" in place of file and line.
// review_score may be a number or a numeric string (the framework's agent
// results write "7.5"); an empty string or null is absent. findings may also
// be the framework's prose summary string, kept as ReviewFacts.Summary.
func ReadReviewJSON(name string, r io.Reader) (*decide.Evidence, error) {
	br := bufio.NewReader(lnCapped(r))
	var base int64
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
		base = 3
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	rj := &rjReader{name: name, dec: dec, base: base}
	ev, err := rj.read()
	if err != nil {
		if errors.Is(err, lines.ErrTooLarge) {
			return nil, lnTooLarge(name)
		}
		var pe *parse.Error
		if errors.As(err, &pe) {
			return nil, pe
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, rj.errf(se.Offset, "invalid JSON: %v", err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return nil, rj.errf(dec.InputOffset(), "invalid JSON: unexpected end of file")
		}
		return nil, rj.errf(dec.InputOffset(), "invalid JSON: %v", err)
	}
	return ev, nil
}

type rjReader struct {
	name string
	dec  *json.Decoder
	base int64 // bytes before the decoder's input (a BOM)
}

func (rj *rjReader) errf(off int64, format string, args ...any) *parse.Error {
	return parse.OffsetError(rj.name, rj.base+off, format, args...)
}

// decodeRaw reads the next value and returns it with its start offset.
func (rj *rjReader) decodeRaw() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := rj.dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	return raw, rj.dec.InputOffset() - int64(len(raw)), nil
}

func (rj *rjReader) read() (*decide.Evidence, error) {
	// Skip a UTF-8 BOM: encoding/json refuses it.
	tok, err := rj.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, rj.errf(0, "expected a JSON object with review_score, gc_signal and findings, found %s", rjDescribe(tok))
	}
	facts := &decide.ReviewFacts{}
	keep := &keeper{}
	seen := false
	for rj.dec.More() {
		tok, err := rj.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "review_score":
			seen = true
			if err := rj.score(facts); err != nil {
				return nil, err
			}
		case "gc_signal":
			seen = true
			if err := rj.signal(facts); err != nil {
				return nil, err
			}
		case "findings":
			seen = true
			if err := rj.findings(facts, keep); err != nil {
				return nil, err
			}
		default:
			if err := rj.skip(0); err != nil {
				return nil, err
			}
		}
	}
	end := rj.dec.InputOffset()
	if _, err := rj.dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := rj.dec.Token(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, rj.errf(rj.dec.InputOffset(), "unexpected data after the review object")
	}
	if !seen {
		return nil, rj.errf(end, "not a review result: none of review_score, gc_signal or findings")
	}
	return &decide.Evidence{
		Sources:  []string{rj.name},
		Findings: keep.findings(),
		Review:   facts,
		Omitted:  keep.omitted,
	}, nil
}

// token reads the first token.
func (rj *rjReader) token() (json.Token, error) {
	tok, err := rj.dec.Token()
	if err == io.EOF {
		return nil, rj.errf(0, "empty file: expected a JSON object with review_score, gc_signal and findings")
	}
	return tok, err
}

func (rj *rjReader) score(facts *decide.ReviewFacts) error {
	raw, off, err := rj.decodeRaw()
	if err != nil {
		return err
	}
	s, present, err := rjNumberText(raw)
	if err != nil {
		return rj.errf(off, "review_score: %v", err)
	}
	if !present {
		return nil
	}
	v, err := lnParseScore(s)
	if err != nil {
		return rj.errf(off, "review_score: %v", err)
	}
	if v < 1 || v > 10 {
		return rj.errf(off, "review_score %s out of range (want 1 to 10)", s)
	}
	facts.Score = &v
	return nil
}

func (rj *rjReader) signal(facts *decide.ReviewFacts) error {
	raw, off, err := rj.decodeRaw()
	if err != nil {
		return err
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil {
		return rj.errf(off, "gc_signal: expected a string, found %s", rjKind(raw))
	}
	if s == nil {
		return nil
	}
	sig, err := lnReviewSignal(*s)
	if err != nil {
		return rj.errf(off, "%v", err)
	}
	facts.Signal = sig
	return nil
}

// rjFinding is one element of findings.
type rjFinding struct {
	Severity    *string         `json:"severity"`
	File        *string         `json:"file"`
	Line        json.RawMessage `json:"line"`
	FileLine    *string         `json:"file_line"`
	Dimension   *string         `json:"dimension"`
	Description *string         `json:"description"`
	Title       *string         `json:"title"`
	Suggestion  *string         `json:"suggestion"`
}

// valueOffset is the offset of the next value: the decoder's offset past
// the separators and blanks still buffered before it.
func (rj *rjReader) valueOffset() int64 {
	off := rj.dec.InputOffset()
	buf := make([]byte, 64)
	n, _ := rj.dec.Buffered().Read(buf)
	for _, c := range buf[:n] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ':' && c != ',' {
			break
		}
		off++
	}
	return off
}

func (rj *rjReader) findings(facts *decide.ReviewFacts, keep *keeper) error {
	off := rj.valueOffset()
	tok, err := rj.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case nil:
		return nil
	case string:
		facts.Summary = t
		return nil
	case json.Delim:
		if t != '[' {
			return rj.errf(off, "findings: expected an array, found an object")
		}
	default:
		return rj.errf(off, "findings: expected an array, found %s", rjDescribe(tok))
	}
	for i := 0; rj.dec.More(); i++ {
		raw, off, err := rj.decodeRaw()
		if err != nil {
			return err
		}
		f, err := rjParseFinding(raw)
		if err != nil {
			return rj.errf(off, "findings[%d]: %v", i, err)
		}
		f.Source = rj.name
		keep.push(f)
	}
	_, err = rj.dec.Token() // ']'
	return err
}

func rjParseFinding(raw json.RawMessage) (decide.Finding, error) {
	var f decide.Finding
	if len(raw) == 0 || raw[0] != '{' {
		return f, fmt.Errorf("expected an object, found %s", rjKind(raw))
	}
	var x rjFinding
	if err := json.Unmarshal(raw, &x); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return f, fmt.Errorf("%s: expected %s, found %s", te.Field, te.Type, te.Value)
		}
		return f, err
	}
	if x.Severity == nil || strings.TrimSpace(*x.Severity) == "" {
		return f, fmt.Errorf("missing severity (want critical, high, medium or low)")
	}
	sev, err := decide.ParseSeverity(*x.Severity)
	if err != nil {
		return f, err
	}
	f.Severity = sev
	if x.File != nil {
		f.File = strings.TrimSpace(*x.File)
	}
	n, err := rjLine(x.Line)
	if err != nil {
		return f, err
	}
	f.Line = n
	if x.FileLine != nil && strings.TrimSpace(*x.FileLine) != "" && f.File == "" {
		file, line, ok := lnSplitFileLine(*x.FileLine)
		if !ok {
			return f, fmt.Errorf("file_line %q: expected path:line", *x.FileLine)
		}
		f.File = file
		if f.Line == 0 {
			f.Line = line
		}
	}
	if x.Dimension != nil {
		f.Rule = strings.TrimSpace(*x.Dimension)
	}
	if x.Description != nil {
		f.Message = strings.TrimSpace(*x.Description)
	}
	if f.Message == "" && x.Title != nil {
		f.Message = strings.TrimSpace(*x.Title)
	}
	if x.Suggestion != nil {
		f.Suggestion = strings.TrimSpace(*x.Suggestion)
	}
	return f, nil
}

// rjLine reads a line number: a non-negative JSON integer; absent, null
// and 0 mean unknown.
func rjLine(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	s := string(raw)
	if !lnDigits(s) {
		return 0, fmt.Errorf("line: expected a non-negative integer, found %s", rjKind(raw))
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<30 {
		return 0, fmt.Errorf("line %s out of range", s)
	}
	return n, nil
}

// rjNumberText returns the text of a JSON number, or of a string holding
// one; present is false for null and "". Other kinds are errors.
func rjNumberText(raw json.RawMessage) (text string, present bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", false, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return "", false, nil
		}
		return s, true, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return string(raw), true, nil
	}
	return "", false, fmt.Errorf("expected a number, found %s", rjKind(raw))
}

// rjKind names the kind of a raw JSON value for error messages.
func rjKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		if len(raw) > 40 {
			return "a string"
		}
		return "string " + string(raw)
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if len(raw) > 40 {
		return "a number"
	}
	return "number " + string(raw)
}

func rjDescribe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			return "an array"
		case '{':
			return "an object"
		}
		return "'" + t.String() + "'"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// skip consumes one value, refusing nesting deeper than rjMaxDepth.
func (rj *rjReader) skip(depth int) error {
	off := rj.dec.InputOffset()
	tok, err := rj.dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= rjMaxDepth {
		return rj.errf(off, "JSON nested deeper than %d levels", rjMaxDepth)
	}
	if d == '{' || d == '[' {
		for rj.dec.More() {
			if d == '{' {
				if _, err := rj.dec.Token(); err != nil { // key
					return err
				}
			}
			if err := rj.skip(depth + 1); err != nil {
				return err
			}
		}
		_, err := rj.dec.Token()
		return err
	}
	return nil
}

// isReviewJSON reports whether head looks like a review result: a JSON
// object that names review_score or gc_signal.
func isReviewJSON(head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	return bytes.Contains(h, []byte(`"review_score"`)) || bytes.Contains(h, []byte(`"gc_signal"`))
}

package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// ReadDiscoveries reads the framework's shared discovery board,
// discoveries.ndjson: one JSON object per line, {"ts", "worker", "type",
// "data"}, appended by many agents. Three types are evidence, their fields
// read from data:
//
//   - review_finding {file_line, severity, dimension, description,
//     suggestion}: a review finding (sets Review);
//   - critique {idea_title, dimension, severity, challenge, rationale}: a
//     critique entry and a finding (sets Critique, counting Entries);
//   - issue_found {file, line, severity, description, perspective}: an audit
//     finding (sets Audit).
//
// Other types are valid lines and ignored. A line that is not a JSON object,
// is longer than 1 MiB, or is an evidence line without a readable severity
// is skipped with a note "name:LINE: skipped ..."; a file without any valid
// line is an error.
func ReadDiscoveries(name string, r io.Reader) (*decide.Evidence, error) {
	sc := newLnScanner(name, r)
	var (
		notes    lnNotes
		keep     = &keeper{}
		valid    int
		firstBad int
		firstWhy string
		review   bool
		critique *decide.CritiqueFacts
		audit    bool
	)
	skip := func(n int, why string) {
		if firstBad == 0 {
			firstBad, firstWhy = n, why
		}
		notes.addf("%s:%d: skipped malformed line (%s)", name, n, why)
	}
	for {
		b, ok := sc.next()
		if !ok {
			if sc.SkipLong() {
				skip(sc.Line(), fmt.Sprintf("longer than %d bytes", lnMaxLine))
				continue
			}
			if err := sc.fail(); err != nil {
				return nil, err
			}
			break
		}
		n := sc.Line()
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var d dcLine
		if err := dcUnmarshal(b, &d); err != nil {
			skip(n, err.Error())
			continue
		}
		valid++
		var (
			f   decide.Finding
			why string
		)
		var loop decide.Loop
		switch d.Type {
		case "review_finding":
			loop = decide.Review
			f, why = dcReviewFinding(d.Data)
			if why == "" {
				review = true
			}
		case "critique":
			loop = decide.Critique
			f, why = dcCritique(d.Data)
			if why == "" {
				if critique == nil {
					critique = &decide.CritiqueFacts{}
				}
				critique.Entries++
			}
		case "issue_found":
			loop = decide.Audit
			f, why = dcIssue(d.Data)
			if why == "" {
				audit = true
			}
		default:
			continue
		}
		if why != "" {
			valid--
			skip(n, d.Type+": "+why)
			continue
		}
		f.Source = fmt.Sprintf("%s:%d", name, n)
		f.Loop = loop // the log mixes loops: each finding speaks for its own
		keep.push(f)
	}
	if valid == 0 {
		if firstBad == 0 {
			return nil, lnFileError(name, "no discoveries: the file holds no JSON line")
		}
		return nil, parse.LineError(name, firstBad, "no valid discoveries line; first problem: %s", firstWhy)
	}
	ev := &decide.Evidence{
		Sources:  []string{name},
		Findings: keep.findings(),
		Critique: critique,
		Omitted:  keep.omitted,
		Notes:    notes.done(name),
	}
	if review {
		ev.Review = &decide.ReviewFacts{}
	}
	if audit {
		ev.Audit = &decide.AuditFacts{}
	}
	return ev, nil
}

// dcLine is one discoveries line.
type dcLine struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// dcUnmarshal decodes a line, explaining failures in a few words.
func dcUnmarshal(b []byte, d *dcLine) error {
	if b[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, se)
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	t, ok := raw["type"]
	if !ok {
		return fmt.Errorf("no type")
	}
	if err := json.Unmarshal(t, &d.Type); err != nil {
		return fmt.Errorf("type is not a string")
	}
	d.Data = raw["data"]
	return nil
}

// dcData decodes the data object of an evidence line.
func dcData(raw json.RawMessage) (map[string]json.RawMessage, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, "data is not an object"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "data is not an object"
	}
	return m, ""
}

// dcString reads a string field; absent and null give "".
func dcString(m map[string]json.RawMessage, k string) (string, string) {
	v, ok := m[k]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return "", ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", k + " is not a string"
	}
	return strings.TrimSpace(s), ""
}

// dcFirst returns the first non-empty string field of keys.
func dcFirst(m map[string]json.RawMessage, keys ...string) (string, string) {
	for _, k := range keys {
		s, why := dcString(m, k)
		if why != "" {
			return "", why
		}
		if s != "" {
			return s, ""
		}
	}
	return "", ""
}

func dcSeverity(m map[string]json.RawMessage) (decide.Severity, string) {
	s, why := dcString(m, "severity")
	if why != "" {
		return 0, why
	}
	if s == "" {
		return 0, "no severity"
	}
	sev, err := decide.ParseSeverity(s)
	if err != nil {
		return 0, err.Error()
	}
	return sev, ""
}

// dcLineNumber reads a line field: a non-negative integer, 0 = unknown.
func dcLineNumber(m map[string]json.RawMessage) (int, string) {
	n, err := rjLine(m["line"])
	if err != nil {
		return 0, err.Error()
	}
	return n, ""
}

// dcFinding decodes the data object of an evidence line and the severity
// all evidence types give; why says what is wrong with them.
func dcFinding(raw json.RawMessage) (f decide.Finding, m map[string]json.RawMessage, why string) {
	if m, why = dcData(raw); why != "" {
		return f, nil, why
	}
	f.Severity, why = dcSeverity(m)
	return f, m, why
}

// dcFileLine reads the file and line fields into f.
func dcFileLine(m map[string]json.RawMessage, f *decide.Finding) (why string) {
	if f.File, why = dcString(m, "file"); why != "" {
		return why
	}
	f.Line, why = dcLineNumber(m)
	return why
}

func dcReviewFinding(raw json.RawMessage) (decide.Finding, string) {
	f, m, why := dcFinding(raw)
	if why != "" {
		return f, why
	}
	fl, why := dcString(m, "file_line")
	if why != "" {
		return f, why
	}
	if fl != "" {
		file, line, ok := lnSplitFileLine(fl)
		if !ok {
			return f, fmt.Sprintf("file_line %q is not path:line", csvShort(fl))
		}
		f.File, f.Line = file, line
	} else if why = dcFileLine(m, &f); why != "" {
		return f, why
	}
	if f.Rule, why = dcFirst(m, "dimension", "category"); why != "" {
		return f, why
	}
	if f.Message, why = dcFirst(m, "description", "title", "message"); why != "" {
		return f, why
	}
	if f.Suggestion, why = dcFirst(m, "suggestion", "fix"); why != "" {
		return f, why
	}
	return f, ""
}

func dcCritique(raw json.RawMessage) (decide.Finding, string) {
	f, m, why := dcFinding(raw)
	if why != "" {
		return f, why
	}
	title, why := dcFirst(m, "idea_title", "title")
	if why != "" {
		return f, why
	}
	challenge, why := dcFirst(m, "challenge", "description", "rationale")
	if why != "" {
		return f, why
	}
	if f.Rule, why = dcFirst(m, "dimension"); why != "" {
		return f, why
	}
	switch {
	case title != "" && challenge != "":
		f.Message = title + ": " + challenge
	case title != "":
		f.Message = title
	default:
		f.Message = challenge
	}
	return f, ""
}

func dcIssue(raw json.RawMessage) (decide.Finding, string) {
	f, m, why := dcFinding(raw)
	if why != "" {
		return f, why
	}
	if why = dcFileLine(m, &f); why != "" {
		return f, why
	}
	if f.Rule, why = dcFirst(m, "perspective", "dimension", "category"); why != "" {
		return f, why
	}
	if f.Message, why = dcFirst(m, "description", "title", "issue"); why != "" {
		return f, why
	}
	return f, ""
}

// isDiscoveries reports whether head starts like discoveries.ndjson: the
// first non-blank line is a one-line JSON object with a "type" key.
func isDiscoveries(head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	line, rest, complete := bytes.Cut(h, []byte("\n"))
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !bytes.Contains(line, []byte(`"type"`)) {
		return false
	}
	if !complete {
		return true // a first line longer than head
	}
	var d dcLine
	if dcUnmarshal(line, &d) != nil {
		return false
	}
	_ = rest
	return true
}

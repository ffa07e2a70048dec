package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

// MaxRunJSONSize caps a run-<layer>.json file.
const MaxRunJSONSize = 1 << 20

// ReadRunJSON reads the framework's results/run-<layer>.json:
//
//	{"layer": "L1", "framework": "jest", "pass_rate": 0.95, "coverage": 82.5,
//	 "tests_passed": 19, "tests_failed": 1, "all_passed": false,
//	 "defect_patterns": [...]}
//
// It fills Coverage (Percent, Layer, Framework; no line totals) and Tests
// (Passed, Failed, PassRate). coverage must be within 0–100, pass_rate
// within 0–1, counts non-negative integers; a null or absent value is
// absent. Errors name the key and its byte offset. Unknown keys are
// skipped; a key given twice is an error. all_passed contradicting the
// counts, and the defect patterns, become notes.
func ReadRunJSON(name string, r io.Reader) (*decide.Evidence, error) {
	lr := lines.NewCapReader(r, MaxRunJSONSize)
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	fail := func(off int64, format string, args ...any) error {
		if lr.Over() {
			return parse.OffsetError(name, MaxRunJSONSize, "file larger than %d bytes", MaxRunJSONSize)
		}
		return parse.OffsetError(name, off, format, args...)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(dec.InputOffset(), "want a JSON object: %v", runJSONErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(0, "want a JSON object, found %s", tokenKind(tok))
	}
	cov := &decide.CoverageFacts{Format: string(FormatRunJSON)}
	tests := &decide.TestFacts{}
	var (
		seen              = map[string]bool{}
		allPassed         *bool
		patterns          []string
		havePassed, haveF bool
	)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fail(dec.InputOffset(), "want a key: %v", runJSONErr(err))
		}
		key, _ := kt.(string)
		off := dec.InputOffset()
		if seen[key] {
			return nil, fail(off, "key %q given twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(off, "value of %q: %v", key, runJSONErr(err))
		}
		if string(raw) == "null" {
			continue
		}
		bad := func(want string) error {
			return fail(off, "%q is %s: want %s", key, runSnippet(raw), want)
		}
		switch key {
		case "layer":
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, bad("a string (L1, L2 or L3)")
			}
			switch l := strings.ToUpper(strings.TrimSpace(s)); l {
			case "L1", "L2", "L3":
				cov.Layer = l
			case "":
			default:
				return nil, bad("L1, L2 or L3")
			}
		case "framework":
			var s string
			if json.Unmarshal(raw, &s) != nil || len(s) > 200 {
				return nil, bad("a string of at most 200 bytes")
			}
			cov.Framework = s
		case "coverage":
			v, ok := runNumber(raw)
			if !ok || v < 0 || v > 100 {
				return nil, bad("a percentage from 0 to 100")
			}
			cov.Percent = &v
		case "pass_rate":
			v, ok := runNumber(raw)
			if !ok || v < 0 || v > 1 {
				return nil, bad("a rate from 0 to 1")
			}
			tests.PassRate = &v
		case "tests_passed", "tests_failed":
			v, ok := runNumber(raw)
			if !ok || v < 0 || v != math.Trunc(v) || v > 1e12 {
				return nil, bad("a non-negative integer")
			}
			if key == "tests_passed" {
				tests.Passed, havePassed = int(v), true
			} else {
				tests.Failed, haveF = int(v), true
			}
		case "all_passed":
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return nil, bad("true or false")
			}
			allPassed = &b
		case "defect_patterns":
			ps, ok := runPatterns(raw)
			if !ok {
				return nil, bad("a list of patterns (strings or objects)")
			}
			patterns = ps
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fail(dec.InputOffset(), "want the end of the object: %v", runJSONErr(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), "unexpected data after the JSON object")
	}
	ev := &decide.Evidence{Sources: []string{name}, Coverage: cov}
	if havePassed || haveF || tests.PassRate != nil {
		ev.Tests = tests
	}
	if cov.Percent == nil {
		ev.Notes = append(ev.Notes, name+": no coverage figure")
	}
	if allPassed != nil && haveF && *allPassed != (tests.Failed == 0) {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: all_passed is %v but tests_failed is %d", name, *allPassed, tests.Failed))
	}
	if allPassed != nil && !haveF && !havePassed && *allPassed && tests.PassRate == nil {
		one := 1.0
		ev.Tests = &decide.TestFacts{PassRate: &one}
	}
	if len(patterns) > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: defect patterns: %s", name, strings.Join(patterns, "; ")))
	}
	return ev, nil
}

// runNumber reads a finite JSON number.
func runNumber(raw json.RawMessage) (float64, bool) {
	s := string(raw)
	if s == "" || s[0] == '"' || s[0] == '{' || s[0] == '[' || s == "true" || s == "false" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// runPatterns renders defect_patterns: strings as they are, objects by
// their pattern/name/type field (with a count when given). At most 20 are
// kept.
func runPatterns(raw json.RawMessage) ([]string, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	var out []string
	for _, item := range list {
		if len(out) == 20 {
			out = append(out, fmt.Sprintf("and %d more", len(list)-20))
			break
		}
		var s string
		if json.Unmarshal(item, &s) == nil {
			out = append(out, runClip(s))
			continue
		}
		var obj map[string]any
		if json.Unmarshal(item, &obj) != nil {
			return nil, false
		}
		label := ""
		for _, k := range []string{"pattern", "name", "type", "category", "description"} {
			if v, ok := obj[k].(string); ok && v != "" {
				label = v
				break
			}
		}
		if label == "" {
			label = "(unnamed)"
		}
		if n, ok := obj["count"].(float64); ok {
			label = fmt.Sprintf("%s (%v)", label, n)
		}
		out = append(out, runClip(label))
	}
	return out, true
}

func runClip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

func runSnippet(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// runJSONErr shortens encoding/json errors to one line.
func runJSONErr(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON"
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// tokenKind names a JSON token for an error message without quoting it:
// a string token may hold anything, a newline too.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an unknown token"
}

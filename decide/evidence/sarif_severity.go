// Severity of a SARIF result: security-severity properties and levels.

package evidence

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// sarifScore is a security-severity property: a number or a numeric
// string. A string that is not a number is kept in bad.
type sarifScore struct {
	set bool
	v   float64
	bad string
}

// readProperties reads a property bag for its security-severity.
func (sr *sarifReader) readProperties() (sarifScore, error) {
	s := sr.sc
	var sc sarifScore
	err := sr.readObject("properties", func(k []byte) error {
		if string(k) != "security-severity" {
			return s.Skip(8)
		}
		c, err := s.Next()
		if err != nil {
			return err
		}
		at := s.Off()
		var raw string
		switch {
		case c == '"':
			if raw, err = s.StringVal("", "security-severity", 64); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			b, err := s.Number()
			if err != nil {
				return err
			}
			raw = string(b)
		case c == 'n':
			_, err := s.Literal()
			return err
		default:
			return s.Errorf(at, "security-severity is %s, expected a number", jsonscan.Kind(c))
		}
		t := strings.TrimSpace(raw)
		v, perr := strconv.ParseFloat(t, 64)
		switch {
		case perr == nil && !math.IsNaN(v) && !math.IsInf(v, 0):
			sc.set, sc.v = true, v
		case perr == nil || errors.Is(perr, strconv.ErrRange):
			return s.Errorf(at, "security-severity %s is not a finite number", jsonscan.Cap(t, 40))
		default:
			sc.bad = jsonscan.Cap(t, 40)
		}
		return nil
	})
	return sc, err
}

// severity maps the score; ok is false when there was none.
func (s sarifScore) severity() (decide.Severity, bool) {
	if s.set {
		return decide.SeverityFromScore(s.v), true
	}
	if s.bad != "" {
		// A severity word in place of a score ("high") is read as one.
		if sev, err := decide.ParseSeverity(s.bad); err == nil {
			return sev, true
		}
	}
	return 0, false
}

// sarifResolve returns a result's severity and whether its effective level
// is error.
func sarifResolve(key sarifGroupKey, rule *sarifRule) (decide.Severity, bool) {
	level := key.level
	if level == "" {
		switch {
		case rule != nil && rule.level != "":
			level = rule.level
		default:
			level = "warning"
		}
	}
	isErr := level == "error"
	switch {
	case key.score != 0:
		return key.score, isErr
	case rule != nil && rule.hasScore:
		return rule.score, isErr
	}
	return sarifLevelSeverity(level), isErr
}

// sarifLevelSeverity is decide.ParseSeverity of a level, with SARIF's
// four levels read without it (ParseSeverity trims and lower-cases).
func sarifLevelSeverity(level string) decide.Severity {
	switch level {
	case "error":
		return decide.High
	case "warning":
		return decide.Medium
	case "note", "none":
		return decide.Low
	}
	sev, _ := decide.ParseSeverity(level)
	return sev
}

// sarifLevel normalizes a SARIF level.
func sarifLevel(s string) (string, bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	return l, sarifIsLevel(l)
}

func sarifIsLevel(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error", "warning", "note", "none":
		return true
	}
	return false
}

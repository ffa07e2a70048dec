package evidence

// Scores, signals and severity-tagged findings as reports write them.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// lnParseScore reads a finite decimal number: "7", "7.5", "7,5" is refused.
func lnParseScore(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 32 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	for _, r := range t {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return 0, fmt.Errorf("%q is not a number", s)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}

// lnReviewSignal normalizes a gc_signal value; "" means absent.
func lnReviewSignal(s string) (string, error) {
	w := strings.ToUpper(strings.TrimSpace(s))
	w = strings.NewReplacer(" ", "_", "-", "_").Replace(w)
	switch w {
	case "":
		return "", nil
	case "CONVERGED", "REVISION_NEEDED":
		return w, nil
	}
	return "", fmt.Errorf("unknown gc_signal %q (want CONVERGED or REVISION_NEEDED)", s)
}

// lnAuditSignal normalizes an audit_signal value; "" means absent.
func lnAuditSignal(s string) (string, error) {
	w := strings.ToLower(strings.TrimSpace(s))
	w = strings.NewReplacer(" ", "_", "-", "_").Replace(w)
	switch w {
	case "":
		return "", nil
	case "audit_passed", "audit_result", "fix_required":
		return w, nil
	}
	return "", fmt.Errorf("unknown audit_signal %q (want audit_passed, audit_result or fix_required)", s)
}

// lnScoreText reads "7.5/10", "7.5 / 10", "**7.5**/10", "7.5" and returns the
// number and the denominator (0 when absent). ok is false when value does
// not start with a number.
func lnScoreText(value string) (v, denom float64, ok bool, err error) {
	s := strings.TrimSpace(strings.NewReplacer("*", "", "`", "", "_", "").Replace(value))
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || (end == 0 && (s[end] == '-' || s[end] == '+'))) {
		end++
	}
	if end == 0 || (end == 1 && (s[0] == '-' || s[0] == '+' || s[0] == '.')) {
		return 0, 0, false, nil
	}
	v, err = lnParseScore(s[:end])
	if err != nil {
		return 0, 0, true, err
	}
	rest := strings.TrimSpace(s[end:])
	if strings.HasPrefix(rest, "/") {
		rest = strings.TrimSpace(rest[1:])
		e := 0
		for e < len(rest) && (rest[e] >= '0' && rest[e] <= '9' || rest[e] == '.') {
			e++
		}
		if e == 0 {
			return 0, 0, true, fmt.Errorf("%q: expected a number after '/'", value)
		}
		denom, err = lnParseScore(rest[:e])
		if err != nil || denom <= 0 {
			return 0, 0, true, fmt.Errorf("%q: bad denominator", value)
		}
	} else if strings.HasPrefix(rest, "%") {
		denom = 100
	}
	return v, denom, true, nil
}

// lnScaleScore maps a score with denominator to the 0–10 scale: /10 and no
// denominator as is, /100 (or %) divided by ten (scaled reports it); other
// denominators are errors.
func lnScaleScore(v, denom float64) (out float64, scaled bool, err error) {
	switch denom {
	case 0, 10:
		return v, false, nil
	case 100:
		return v / 10, true, nil
	}
	return 0, false, fmt.Errorf("score %g/%g is not on a 10- or 100-point scale", v, denom)
}

// lnBracketFinding recognizes a finding headline: a heading or list item
// (with optional numbering and bold) that starts with "[WORD]" followed by
// a title. ok is false for other lines; err is set when WORD is not a
// severity.
func lnBracketFinding(s string) (sev decide.Severity, title string, ok bool, err error) {
	t := strings.TrimSpace(s)
	for {
		if lvl, h := lnHeading(t); lvl > 0 {
			t = h
			continue
		}
		if _, x, isItem := lnListItem(t); isItem && x != t {
			t = x
			continue
		}
		break
	}
	t = strings.TrimLeft(t, "*_")
	if !strings.HasPrefix(t, "[") {
		return 0, "", false, nil
	}
	end := strings.IndexByte(t, ']')
	if end < 0 || end > 32 {
		return 0, "", false, nil
	}
	word := t[1:end]
	rest := strings.TrimLeft(t[end+1:], "*_")
	if strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, ":") && strings.HasPrefix(strings.TrimSpace(rest[1:]), "http") {
		return 0, "", false, nil // a link or reference
	}
	if len(word) < 2 || !lnIsLetters(word) {
		return 0, "", false, nil
	}
	sev, err = decide.ParseSeverity(word)
	if err != nil {
		return 0, "", false, fmt.Errorf("unknown severity [%s] (want CRITICAL, HIGH, MEDIUM or LOW)", word)
	}
	title = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(rest), ":—–-"))
	title = lnClean(title)
	return sev, title, true, nil
}

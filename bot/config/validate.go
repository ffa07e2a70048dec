package config

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits and choices shared by the file and the action inputs.
const (
	maxLabels     = 100 // GitHub refuses more labels on one issue
	maxLabelLen   = 50  // GitHub's limit on a label name
	maxListItems  = 200 // test patterns, forbidden markers
	maxItemLen    = 200
	maxRetriesCap = 20
)

var (
	auditPartials = []string{"converge", "revise"}
	// withoutDataChecks are the check conclusions of a critique that
	// converged without critique data.
	withoutDataChecks = []string{"neutral", "success"}
	permissions       = []string{"write", "maintain", "admin"}
)

func checkEnum(s string, valid []string) string {
	for _, v := range valid {
		if s == v {
			return ""
		}
	}
	return fmt.Sprintf("want %s, got %q", orList(valid), clip(s))
}

// andList joins words as "a", "a and b" or "a, b and c".
func andList(ws []string) string { return joinWords(ws, " and ") }

func orList(ws []string) string { return joinWords(ws, " or ") }

func joinWords(ws []string, last string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + last + ws[len(ws)-1]
}

// checkText refuses empty, over-long, invalid UTF-8 and control-character
// items; what names the kind of item.
func checkText(s, what string, max int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "empty " + what
	case !utf8.ValidString(s):
		return what + " is not valid UTF-8"
	case utf8.RuneCountInString(s) > max:
		return fmt.Sprintf("%s longer than %d characters", what, max)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return what + " holds a control character"
	}
	return ""
}

func checkLabel(s string) string {
	if msg := checkText(s, "label", maxLabelLen); msg != "" {
		return msg
	}
	if strings.TrimSpace(s) != s {
		return fmt.Sprintf("label %q has leading or trailing spaces", s)
	}
	if strings.Contains(s, ",") {
		return fmt.Sprintf("label %q holds a comma", s)
	}
	return ""
}

// checkArtifact validates an artifact name as GitHub's upload-artifact
// does: not empty, none of " : < > | * ? \\ / and no control character.
func checkArtifact(s string) string {
	if msg := checkText(s, "artifact name", maxItemLen); msg != "" {
		return msg
	}
	if strings.ContainsAny(s, "\":<>|*?\\/") {
		return fmt.Sprintf("artifact name %q holds one of \" : < > | * ? \\ /", s)
	}
	return ""
}

func checkMarker(s string) string { return checkText(s, "marker", maxItemLen) }

// checkPattern validates a test-path glob: not empty, and every segment
// other than "**" valid for path.Match (the guard's syntax).
func checkPattern(s string) string {
	if msg := checkText(s, "pattern", maxItemLen); msg != "" {
		return msg
	}
	if strings.Trim(s, "/") == "" {
		return fmt.Sprintf("pattern %q matches nothing", s)
	}
	for _, seg := range strings.Split(strings.Trim(s, "/"), "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Sprintf("malformed pattern %q (segment %q)", s, seg)
		}
	}
	return ""
}

// normDispatch returns the bare workflow file name of a dispatch value,
// accepting a path under .github/workflows/, or a message why it is not
// one.
func normDispatch(s string) (string, string) {
	name := strings.TrimPrefix(strings.TrimPrefix(s, "./"), ".github/workflows/")
	if msg := checkText(name, "workflow file name", 255); msg != "" {
		return "", msg
	}
	if strings.ContainsAny(name, `/\`) {
		return "", fmt.Sprintf("want a workflow file name like review.yml (or .github/workflows/review.yml), got %q", clip(s))
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(name, ".yml"), ".yaml")
	if stem == name {
		return "", fmt.Sprintf("workflow file %q: want a name ending in .yml or .yaml", clip(s))
	}
	if stem == "" || strings.Trim(stem, ".") == "" {
		return "", fmt.Sprintf("workflow file %q has no name before the extension", clip(s))
	}
	for _, r := range stem {
		if !(r == '-' || r == '_' || r == '.' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return "", fmt.Sprintf("workflow file %q: want letters, digits, '.', '_' or '-'", clip(s))
		}
	}
	return name, ""
}

// NormalizeDispatch returns the bare file name of a workflow given as
// "review.yml" or ".github/workflows/review.yml", or an error saying why the
// value names no workflow file.
func NormalizeDispatch(s string) (string, error) {
	name, msg := normDispatch(s)
	if msg != "" {
		return "", fmt.Errorf("dispatch: %s", msg)
	}
	return name, nil
}

// suggest returns the valid key nearest to key by edit distance, or "" when
// none is near enough to be a likely typo.
func suggest(key string, valid []string) string {
	k := strings.ToLower(key)
	if len(k) > 64 {
		return ""
	}
	best, bestD := "", 0
	for _, v := range valid {
		d := editDistance(k, v)
		if d == 0 {
			return v // a different case
		}
		limit := 2
		if len(v) <= 4 {
			limit = 1
		}
		if d <= limit && (best == "" || d < bestD || d == bestD && v < best) {
			best, bestD = v, d
		}
	}
	if best == "" && strings.Count(k, "-") > 0 {
		// max-rounds → max_rounds, however far apart otherwise.
		alt := strings.ReplaceAll(k, "-", "_")
		for _, v := range valid {
			if alt == v {
				return v
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

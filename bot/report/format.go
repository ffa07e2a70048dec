package report

import (
	"math"
	"strconv"
	"strings"
)

// rich escapes a line written by gcloop itself that may quote artifact
// text: text between backticks stays a code span when it is plainly safe
// (short, printable ASCII without `<`, `>`, `&`, `@`, `\`, `|`, `$` or the
// marker keyword); everything else is escaped like EscapeInline.
func rich(s string, max int) string {
	rs := escClean(s, false, max)
	if max > 0 && len(rs) > max {
		rs = append(rs[:max-1:max-1], '…')
	}
	parts := strings.Split(strings.TrimSpace(string(rs)), "`")
	if len(parts)%2 == 0 { // an unpaired backtick: no code spans at all
		return escRunes([]rune(strings.Join(parts, "`")), true)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && safeCode(p) {
			b.WriteString("`" + p + "`")
			continue
		}
		if i%2 == 1 {
			p = "`" + p + "`"
		}
		b.WriteString(escRunes([]rune(p), i == 0))
	}
	return b.String()
}

// safeCode reports whether s may stand in a code span as is.
func safeCode(s string) bool {
	if s == "" || len(s) > 200 || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || strings.IndexByte("<>&@\\|$", c) >= 0 {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(s), "gcloop:state")
}

// dash stands in for an empty table cell.
func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// shortSHA shortens a commit sha to 7 characters.
func shortSHA(sha string) string {
	if len(sha) > 7 {
		n := 0
		for i := range sha {
			if n == 7 {
				return sha[:i]
			}
			n++
		}
	}
	return sha
}

// num formats v with at most prec decimals, trailing zeros dropped.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// signed formats v with an explicit sign.
func signed(v float64, prec int) string {
	s := num(v, prec)
	if s != "0" && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

func percent(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return num(*p, 2) + " %"
}

func scaled(p *float64, k float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * k
	return &v
}

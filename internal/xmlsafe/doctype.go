package xmlsafe

import "strings"

// PlainDoctype reports whether d, the text of a directive (what follows
// "<!"), is a DOCTYPE without an internal subset: `DOCTYPE name`, optionally
// followed by `SYSTEM "uri"` or `PUBLIC "id" "uri"` (either quote). Such a
// line only names a DTD; the Decoder never fetches it, and entities stay
// undeclared, so strict mode rejects any reference to them.
func PlainDoctype(d string) bool {
	rest, ok := strings.CutPrefix(d, "DOCTYPE")
	if !ok {
		return false
	}
	f, ok := doctypeFields(rest)
	if !ok || len(f) == 0 || !xmlName(f[0]) {
		return false
	}
	switch {
	case len(f) == 1:
		return true
	case len(f) == 3 && f[1] == "SYSTEM":
		return quoted(f[2])
	case len(f) == 4 && f[1] == "PUBLIC":
		return quoted(f[2]) && quoted(f[3])
	}
	return false
}

// doctypeFields splits s at white space, keeping quoted literals whole
// (with their quotes). It fails on an unterminated literal or on text
// glued to one, and on any "[" outside a literal (an internal subset).
func doctypeFields(s string) ([]string, bool) {
	var f []string
	if s != "" && !isSpace(s[0]) {
		return nil, false // "DOCTYPEx"
	}
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return f, true
		}
		if len(f) == 4 {
			return nil, false
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, false
			}
			f = append(f, s[:end+2])
			s = s[end+2:]
			if s != "" && !isSpace(s[0]) {
				return nil, false
			}
			continue
		}
		end := strings.IndexAny(s, " \t\r\n")
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		if strings.ContainsAny(w, `[]<>"'`) {
			return nil, false
		}
		f = append(f, w)
		s = s[end:]
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// quoted reports whether w is a quoted literal.
func quoted(w string) bool {
	return len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0]
}

// xmlName reports whether w looks like an XML name (letters, digits and
// "_-.:", not starting with a digit, "-" or ".").
func xmlName(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':', c >= 0x80:
		case (c >= '0' && c <= '9' || c == '-' || c == '.') && i > 0:
		default:
			return false
		}
	}
	return w != ""
}

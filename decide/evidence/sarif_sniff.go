// Telling a SARIF log from the head of a file.

package evidence

import (
	"bytes"
	"strings"
)

// isSARIF reports whether the head of a file is a SARIF log: a JSON object
// whose "$schema" mentions sarif, or with "version": "2.1.0" and "runs".
func isSARIF(head []byte) bool {
	h, ok := jsonObjectHead(head)
	if !ok {
		return false
	}
	if v, ok := sarifKeyString(h, "$schema"); ok && strings.Contains(strings.ToLower(v), "sarif") {
		return true
	}
	if sarifRunsFirst(h) {
		return true
	}
	v, ok := sarifKeyString(h, "version")
	return ok && v == "2.1.0" && valHasKey(h, "runs")
}

// jsonObjectHead trims white space and a UTF-8 byte order mark from the
// front of a file's head; ok reports whether a JSON object starts there.
func jsonObjectHead(head []byte) (h []byte, ok bool) {
	h = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\uFEFF")), " \t\r\n")
	return h, len(h) > 0 && h[0] == '{'
}

// sarifKeyString finds "key": "value" in h and returns the value (without
// unescaping; at most 512 bytes).
func sarifKeyString(h []byte, key string) (string, bool) {
	q := []byte(`"` + key + `"`)
	for i := 0; ; {
		j := bytes.Index(h[i:], q)
		if j < 0 {
			return "", false
		}
		i += j + len(q)
		rest := bytes.TrimLeft(h[i:], " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			continue
		}
		rest = rest[1:]
		if len(rest) > 512 {
			rest = rest[:512]
		}
		if k := bytes.IndexByte(rest, '"'); k >= 0 {
			return string(rest[:k]), true
		}
		return "", false
	}
}

// sarifRunsFirst reports whether the object at the head of h opens with a
// "runs" array, as gosec writes its logs ($schema and version come after
// the results, past any head a sniffer looks at). No other format gcloop
// reads has a top-level runs array; ReadSARIF checks the version.
func sarifRunsFirst(h []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(h[1:], " \t\r\n"), []byte(`"runs"`))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return len(rest) > 0 && rest[0] == '['
}

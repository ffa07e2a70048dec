// The rules that recognise coverage and test reports. They look past a
// UTF-8 byte order mark and leading white space, then at the first line,
// the XML root element or the JSON keys.

package evidence

import (
	"bytes"
	"strings"
)

// reportHead is head without a byte order mark and leading white space.
func reportHead(head []byte) []byte {
	return bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
}

// firstLine is the first line of h without trailing white space.
func firstLine(h []byte) []byte {
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		h = h[:i]
	}
	return bytes.TrimRight(h, " \t\r")
}

// isGoProfile: a Go cover profile starts with its mode line.
func isGoProfile(head []byte) bool {
	m, ok := bytes.CutPrefix(firstLine(reportHead(head)), []byte("mode:"))
	if !ok {
		return false
	}
	switch string(bytes.TrimSpace(m)) {
	case "set", "count", "atomic":
		return true
	}
	return false
}

// isLCOV: an LCOV tracefile starts with a record that opens one, a test
// name or a source file.
func isLCOV(head []byte) bool {
	line := firstLine(reportHead(head))
	return bytes.HasPrefix(line, []byte("TN:")) || bytes.HasPrefix(line, []byte("SF:"))
}

// isCobertura: a <coverage> root that is not Clover's.
func isCobertura(head []byte) bool {
	name, elem := xmlRoot(head)
	return string(name) == "coverage" && !cloverRoot(elem)
}

// isClover: a <coverage> root with Clover's marks.
func isClover(head []byte) bool {
	name, elem := xmlRoot(head)
	return string(name) == "coverage" && cloverRoot(elem)
}

// isJaCoCo: a <report> root.
func isJaCoCo(head []byte) bool {
	name, _ := xmlRoot(head)
	return string(name) == "report"
}

// isJUnit: a <testsuites> or <testsuite> root.
func isJUnit(head []byte) bool {
	name, _ := xmlRoot(head)
	return string(name) == "testsuites" || string(name) == "testsuite"
}

// isRunJSON recognises the framework's run-<layer>.json by its keys.
func isRunJSON(head []byte) bool {
	h := reportHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	for _, k := range []string{`"pass_rate"`, `"tests_passed"`, `"tests_failed"`, `"all_passed"`} {
		if bytes.Contains(h, []byte(k)) {
			return true
		}
	}
	return false
}

// xmlRoot finds the name of the root element of an XML head, skipping the
// prolog, comments, processing instructions and a DOCTYPE; elem is the
// head from the root's "<" on. name is empty when head is no XML or the
// root is not within it. Both are sub-slices of head: no allocation.
func xmlRoot(head []byte) (name, elem []byte) {
	head = reportHead(head)
	if len(head) == 0 || head[0] != '<' {
		return nil, nil
	}
	for len(head) > 0 {
		head = bytes.TrimLeft(head, " \t\r\n")
		var end []byte
		switch {
		case bytes.HasPrefix(head, []byte("<?")):
			end = []byte("?>")
		case bytes.HasPrefix(head, []byte("<!--")):
			end = []byte("-->")
		case bytes.HasPrefix(head, []byte("<!")):
			end = []byte(">")
		case bytes.HasPrefix(head, []byte("<")):
			n := bytes.IndexAny(head[1:], " \t\r\n/>")
			if n < 0 {
				return nil, nil
			}
			return head[1 : 1+n], head
		default:
			return nil, nil
		}
		i := bytes.Index(head, end)
		if i < 0 {
			return nil, nil
		}
		head = head[i+len(end):]
	}
	return nil, nil
}

// cloverRoot tells Clover from Cobertura, whose roots are both <coverage>:
// Clover's root carries a clover attribute (Istanbul, gcovr) or its first
// child is <project> (PHPUnit); Cobertura's children are <sources> and
// <packages>. elem starts at the root's "<".
func cloverRoot(elem []byte) bool {
	end := bytes.IndexByte(elem, '>')
	if end < 0 {
		return false
	}
	tag := elem[:end]
	for _, sp := range []string{" ", "\t", "\r", "\n"} {
		if bytes.Contains(tag, []byte(sp+"clover=")) {
			return true
		}
	}
	rest := elem[end+1:]
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if !bytes.HasPrefix(rest, []byte("<!--")) {
			break
		}
		i := bytes.Index(rest, []byte("-->"))
		if i < 0 {
			return false
		}
		rest = rest[i+3:]
	}
	p, ok := bytes.CutPrefix(rest, []byte("<project"))
	return ok && (len(p) == 0 || strings.IndexByte(" \t\r\n/>", p[0]) >= 0)
}

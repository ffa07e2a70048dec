package coverage

import (
	"bytes"
	"strings"
)

// Format names a test-evidence format.
type Format string

// The formats Sniff recognizes.
const (
	FormatGoProfile Format = "goprofile"
	FormatLCOV      Format = "lcov"
	FormatCobertura Format = "cobertura"
	FormatJaCoCo    Format = "jacoco"
	FormatClover    Format = "clover"
	FormatRunJSON   Format = "run-json"
	FormatJUnit     Format = "junit"
)

// SniffLen is how much of a file Sniff looks at.
const SniffLen = 8 << 10

// Sniff tells the format of a report from its first bytes (at most SniffLen
// are looked at), or "" when they are not a coverage or test report it
// knows. It looks at content only, never at a file name.
func Sniff(head []byte) Format {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return ""
	}
	switch head[0] {
	case '<':
		return sniffXML(head)
	case '{':
		return sniffJSON(head)
	}
	first := head
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	first = bytes.TrimRight(first, " \t\r")
	if m, ok := bytes.CutPrefix(first, []byte("mode:")); ok {
		switch string(bytes.TrimSpace(m)) {
		case "set", "count", "atomic":
			return FormatGoProfile
		}
		return ""
	}
	if sniffLCOVLine(first) {
		return FormatLCOV
	}
	return ""
}

// sniffLCOVLine reports whether the first line of a file is an LCOV record
// that starts a tracefile: a test name, a source file, or a comment that
// geninfo/coverage.py write before them.
func sniffLCOVLine(line []byte) bool {
	for _, p := range []string{"TN:", "SF:"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// sniffXML finds the root element's name, skipping the prolog, comments,
// processing instructions and a DOCTYPE.
func sniffXML(head []byte) Format {
	for len(head) > 0 {
		head = bytes.TrimLeft(head, " \t\r\n")
		switch {
		case bytes.HasPrefix(head, []byte("<?")):
			i := bytes.Index(head, []byte("?>"))
			if i < 0 {
				return ""
			}
			head = head[i+2:]
		case bytes.HasPrefix(head, []byte("<!--")):
			i := bytes.Index(head, []byte("-->"))
			if i < 0 {
				return ""
			}
			head = head[i+3:]
		case bytes.HasPrefix(head, []byte("<!")):
			i := bytes.IndexByte(head, '>')
			if i < 0 {
				return ""
			}
			head = head[i+1:]
		case bytes.HasPrefix(head, []byte("<")):
			name := head[1:]
			end := bytes.IndexAny(name, " \t\r\n/>")
			if end < 0 {
				return ""
			}
			switch string(name[:end]) {
			case "coverage":
				return sniffCoverageRoot(head)
			case "report":
				return FormatJaCoCo
			case "testsuites", "testsuite":
				return FormatJUnit
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// sniffJSON recognizes the framework's run-<layer>.json by its keys.
func sniffJSON(head []byte) Format {
	for _, k := range []string{`"pass_rate"`, `"tests_passed"`, `"tests_failed"`, `"all_passed"`} {
		if bytes.Contains(head, []byte(k)) {
			return FormatRunJSON
		}
	}
	return ""
}

// sniffCoverageRoot tells Clover from Cobertura, whose roots are both
// <coverage>: Clover's root carries a clover attribute (Istanbul, gcovr)
// or its first child is <project> (PHPUnit); Cobertura's children are
// <sources> and <packages>.
func sniffCoverageRoot(head []byte) Format {
	end := bytes.IndexByte(head, '>')
	if end < 0 {
		return FormatCobertura
	}
	tag := head[:end]
	for _, sp := range []string{" ", "\t", "\r", "\n"} {
		if bytes.Contains(tag, []byte(sp+"clover=")) {
			return FormatClover
		}
	}
	rest := head[end+1:]
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if !bytes.HasPrefix(rest, []byte("<!--")) {
			break
		}
		i := bytes.Index(rest, []byte("-->"))
		if i < 0 {
			return FormatCobertura
		}
		rest = rest[i+3:]
	}
	if p, ok := bytes.CutPrefix(rest, []byte("<project")); ok && (len(p) == 0 || strings.IndexByte(" \t\r\n/>", p[0]) >= 0) {
		return FormatClover
	}
	return FormatCobertura
}

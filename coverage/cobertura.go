package coverage

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// ReadCobertura reads a Cobertura XML report (gcovr, coverage.py, Istanbul,
// Cobertura itself). Line totals come from the <line number hits> elements
// directly under each <class>'s <lines> (the copies under <methods> are
// skipped); classes that share a filename — inner classes, or one file
// compiled into several units — are merged line by line, a line covered
// when any class hit it. The totals the report states on <coverage> are not
// trusted. A plain external DOCTYPE (gcovr's coverage-04.dtd line) is
// accepted and never fetched; an internal subset is refused.
func ReadCobertura(name string, r io.Reader) (*decide.CoverageFacts, error) {
	x := xmlsafe.NewDecoder(r)
	t := newLineTally(name)
	var file string
	root := false
	err := xmlElements(name, x, func(e xml.StartElement, stack []string) (bool, error) {
		el := e.Name.Local
		switch {
		case len(stack) == 0:
			if el != "coverage" {
				return false, parse.LineError(name, x.Line(), "root element <%s>: want <coverage> (Cobertura)", el)
			}
			root = true
		case el == "methods":
			return true, nil
		case el == "class":
			file = xmlsafe.Attr(e, "filename")
			if file == "" {
				return false, parse.LineError(name, x.Line(), "<class> without a filename attribute")
			}
		case el == "line" && xmlUp(stack, 1) == "lines" && xmlUp(stack, 2) == "class":
			n, ok := xmlUint(xmlsafe.Attr(e, "number"))
			if !ok || n > 1<<31 {
				return false, parse.LineError(name, x.Line(), "<line> number %q: want a line number", xmlsafe.Attr(e, "number"))
			}
			hits, err := xmlCount(xmlsafe.Attr(e, "hits"))
			if err != "" {
				return false, parse.LineError(name, x.Line(), "<line number=\"%d\"> hits %q: %s", n, xmlsafe.Attr(e, "hits"), err)
			}
			t.add(uint32(n), hits)
		}
		return false, nil
	}, func(e xml.EndElement) error {
		if e.Name.Local == "class" {
			return t.end(file, x.Line())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !root {
		return nil, parse.LineError(name, x.Line(), "no <coverage> element: not a Cobertura report")
	}
	return t.facts(FormatCobertura), nil
}

// xmlUint reads a non-negative decimal integer.
func xmlUint(s string) (int64, bool) {
	v, rest, ok := parseUint([]byte(strings.TrimSpace(s)))
	return v, ok && len(rest) == 0
}

// xmlCount reads a hit count and says whether it is above zero; counts of
// any length are accepted. err is "" when it is well formed.
func xmlCount(s string) (hit bool, err string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return false, "negative count"
	}
	if s == "" || len(s) > 20 {
		return false, "want a count"
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false, "want a count"
		}
		if s[i] != '0' {
			hit = true
		}
	}
	return hit, ""
}

package coverage

import (
	"encoding/xml"
	"io"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// ReadClover reads a Clover XML report (Istanbul/Jest's default, PHPUnit,
// gcovr). Coverage is line coverage over the distinct <line>s of type stmt
// or cond of each <file> under <project>: a line is covered when its count
// is above zero (a cond line without a count, as older Clover writes it,
// when its truecount or falsecount is). Lines of type method are not
// statements and are not counted, and <testproject> (the tests' own code)
// is skipped. A file is named by its path attribute, else by its name;
// files listed twice merge line by line. The metrics the report states are
// not trusted.
func ReadClover(name string, r io.Reader) (*decide.CoverageFacts, error) {
	x := xmlsafe.NewDecoder(r)
	t := newLineTally(name)
	var file string
	root, project := false, false
	err := xmlElements(name, x, func(e xml.StartElement, stack []string) (bool, error) {
		el := e.Name.Local
		switch {
		case len(stack) == 0:
			if el != "coverage" {
				return false, decide.LineError(name, x.Line(), "root element <%s>: want <coverage> (Clover)", el)
			}
			root = true
		case len(stack) == 1:
			if el != "project" {
				return true, nil // testproject, and anything else beside the project
			}
			project = true
		case el == "file":
			file = xmlsafe.Attr(e, "path")
			if file == "" {
				file = xmlsafe.Attr(e, "name")
			}
			if file == "" {
				return false, decide.LineError(name, x.Line(), "<file> without a path or name attribute")
			}
		case el == "line" && xmlUp(stack, 1) == "file":
			return false, cloverLine(name, x.Line(), e, t)
		case el == "metrics" || el == "class":
			return true, nil
		}
		return false, nil
	}, func(e xml.EndElement) error {
		if e.Name.Local == "file" {
			return t.end(file, x.Line())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !root {
		return nil, decide.LineError(name, x.Line(), "no <coverage> element: not a Clover report")
	}
	if !project {
		return nil, decide.LineError(name, x.Line(), "no <project> element under <coverage>: not a Clover report")
	}
	return t.facts(FormatClover), nil
}

// cloverLine adds one <line num type count> of a file to t.
func cloverLine(name string, at int, e xml.StartElement, t *lineTally) error {
	typ := xmlsafe.Attr(e, "type")
	if typ != "stmt" && typ != "cond" {
		return nil // method lines mark declarations, not statements
	}
	num := xmlsafe.Attr(e, "num")
	n, ok := xmlUint(num)
	if !ok || n < 1 || n > 1<<31 {
		return decide.LineError(name, at, "<line> num %q: want a line number", num)
	}
	counts := []string{"count"}
	if typ == "cond" && xmlsafe.Attr(e, "count") == "" {
		counts = []string{"truecount", "falsecount"}
	}
	hit := false
	for _, a := range counts {
		h, bad := xmlCount(xmlsafe.Attr(e, a))
		if bad != "" {
			return decide.LineError(name, at, "<line num=\"%d\"> %s %q: %s", n, a, xmlsafe.Attr(e, a), bad)
		}
		hit = hit || h
	}
	t.add(uint32(n), hit)
	return nil
}

package coverage

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// ReadClover reads a Clover XML report (Istanbul/Jest's default, PHPUnit,
// gcovr). Coverage is line coverage over the distinct <line>s of type stmt
// or cond of each <file> under <project>: a line listed more than once (a
// statement and a condition on it, or gcovr's one entry per function) is
// one line, covered when any entry ran — a count above zero, or on a cond
// line a truecount above zero (a cond line without a count, as Clover
// itself writes it, also a falsecount above zero). Lines of type method
// are not statements and are not counted, and <testproject> (the tests'
// own code) is skipped. A file is named by its path attribute, else by its name;
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
				return false, parse.LineError(name, x.Line(), "root element <%s>: want <coverage> (Clover)", el)
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
				return false, parse.LineError(name, x.Line(), "<file> without a path or name attribute")
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
		return nil, parse.LineError(name, x.Line(), "no <coverage> element: not a Clover report")
	}
	if !project {
		return nil, parse.LineError(name, x.Line(), "no <project> element under <coverage>: not a Clover report")
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
		return parse.LineError(name, at, "<line> num %q: want a line number", num)
	}
	hit, err := cloverHit(typ, e)
	if err != "" {
		return parse.LineError(name, at, "<line num=\"%d\"> %s", n, err)
	}
	t.add(uint32(n), hit)
	return nil
}

// cloverHit says whether a stmt or cond <line> ran; err names the bad
// attribute. A count above zero is a hit. A cond line in Clover's own form
// has no count: its truecount and falsecount are how often the condition
// was true and false, and either above zero is a hit. Istanbul writes a
// count on cond lines too, with truecount the branches taken (above zero
// is a hit) and falsecount the branches not taken, which says nothing
// about the line having run.
func cloverHit(typ string, e xml.StartElement) (hit bool, err string) {
	_, hasCount := xmlAttr(e, "count")
	var attrs []string
	switch {
	case typ == "stmt":
		attrs = []string{"count"}
	case hasCount:
		attrs = []string{"count", "truecount"}
	default:
		attrs = []string{"truecount", "falsecount"}
	}
	for _, a := range attrs {
		v, ok := xmlAttr(e, a)
		if !ok && a == "truecount" && hasCount {
			continue // Istanbul's truecount is optional beside a count
		}
		h, bad := xmlCount(v)
		if bad != "" {
			return false, fmt.Sprintf("%s %q: %s", a, v, bad)
		}
		hit = hit || h
	}
	return hit, ""
}

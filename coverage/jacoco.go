package coverage

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// ReadJaCoCo reads a JaCoCo XML report. Each <sourcefile> of a <package>
// (at any <group> depth) is one file, named package/sourcefile, with the
// totals of its own <counter type="LINE" missed covered> — the line counter
// JaCoCo prints. The DOCTYPE JaCoCo writes, a PUBLIC reference to
// report.dtd without an internal subset, is accepted (and never read); any
// other DTD is refused.
func ReadJaCoCo(name string, r io.Reader) (*decide.CoverageFacts, error) {
	x := xmlsafe.NewDecoder(r)
	x.AllowDoctype(jacocoDoctype)
	facts := &decide.CoverageFacts{Format: string(FormatJaCoCo)}
	var pkg, src string
	var lineCounter bool
	root := false
	err := xmlElements(name, x, func(e xml.StartElement, stack []string) (bool, error) {
		el := e.Name.Local
		switch {
		case len(stack) == 0:
			if el != "report" {
				return false, decide.LineError(name, x.Line(), "root element <%s>: want <report> (JaCoCo)", el)
			}
			root = true
		case el == "class" || el == "sessioninfo":
			return true, nil
		case el == "package":
			pkg = xmlsafe.Attr(e, "name")
		case el == "sourcefile":
			src = xmlsafe.Attr(e, "name")
			if src == "" {
				return false, decide.LineError(name, x.Line(), "<sourcefile> without a name attribute")
			}
			lineCounter = false
		case el == "counter" && xmlUp(stack, 1) == "sourcefile" && xmlsafe.Attr(e, "type") == "LINE":
			if lineCounter {
				return false, decide.LineError(name, x.Line(), "second LINE counter for %s", src)
			}
			missed, ok1 := xmlUint(xmlsafe.Attr(e, "missed"))
			covered, ok2 := xmlUint(xmlsafe.Attr(e, "covered"))
			if !ok1 || !ok2 || missed > 1<<40 || covered > 1<<40 {
				return false, decide.LineError(name, x.Line(), "LINE counter of %s: missed %q covered %q: want non-negative integers",
					src, xmlsafe.Attr(e, "missed"), xmlsafe.Attr(e, "covered"))
			}
			path := src
			if pkg != "" {
				path = strings.TrimSuffix(pkg, "/") + "/" + src
			}
			facts.Files = append(facts.Files, decide.FileCoverage{Path: path, Covered: covered, Total: covered + missed})
			facts.Covered += covered
			facts.Total += covered + missed
			lineCounter = true
		}
		return false, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if !root {
		return nil, decide.LineError(name, x.Line(), "no <report> element: not a JaCoCo report")
	}
	return facts, nil
}

// jacocoDoctype accepts exactly the DOCTYPE JaCoCo writes (DTD 1.0 or 1.1).
func jacocoDoctype(d string) bool {
	f := strings.Join(strings.Fields(d), " ")
	return f == `DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"` ||
		f == `DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.0//EN" "report.dtd"`
}

package coverage

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// ReadJaCoCo reads a JaCoCo XML report. Each <sourcefile> of a <package>
// (at any <group> depth) is one file, named package/sourcefile, with the
// totals of its own <counter type="LINE" missed covered> — the line counter
// JaCoCo prints. A source file without a LINE counter is counted from its
// <line nr mi ci> elements: a line with instructions is covered when ci > 0.
// A missing mi or ci is zero (gcovr writes <line nr="6"/> with the counts in
// the LINE counter); a present but non-numeric one is an error.
//
// gcovr writes no <sourcefile>: its <class sourcefilename> elements carry
// the LINE counters. Those are used, summed per file, when the report has
// no <sourcefile> at all (JaCoCo's own class counters repeat its source
// files' and are not read otherwise).
//
// A plain external DOCTYPE (JaCoCo's PUBLIC report.dtd, gcovr's SYSTEM
// line) is accepted and never read; an internal subset is refused. A
// non-numeric count is an error naming the line.
func ReadJaCoCo(name string, r io.Reader) (*decide.CoverageFacts, error) {
	x := xmlsafe.NewDecoder(r)
	j := &jacocoReader{name: name, x: x, classIdx: map[string]int{}}
	root := false
	err := xmlElements(name, x, func(e xml.StartElement, stack []string) (bool, error) {
		el := e.Name.Local
		switch {
		case len(stack) == 0:
			if el != "report" {
				return false, parse.LineError(name, x.Line(), "root element <%s>: want <report> (JaCoCo)", el)
			}
			root = true
		case el == "sessioninfo" || el == "method":
			return true, nil
		case el == "package":
			j.pkg = xmlsafe.Attr(e, "name")
		case el == "class":
			j.class = xmlsafe.Attr(e, "sourcefilename")
		case el == "sourcefile":
			j.src = xmlsafe.Attr(e, "name")
			if j.src == "" {
				return false, parse.LineError(name, x.Line(), "<sourcefile> without a name attribute")
			}
			j.cur, j.lineCounter = decide.FileCoverage{Path: j.path(j.src)}, false
		case el == "line" && xmlUp(stack, 1) == "sourcefile":
			return false, j.line(e)
		case el == "counter" && xmlsafe.Attr(e, "type") == "LINE":
			return false, j.counter(e, xmlUp(stack, 1))
		}
		return false, nil
	}, func(e xml.EndElement) error {
		switch e.Name.Local {
		case "sourcefile":
			return j.endSource()
		case "class":
			j.class = ""
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !root {
		return nil, parse.LineError(name, x.Line(), "no <report> element: not a JaCoCo report")
	}
	files := j.sources
	if !j.sawSource {
		files = j.classes
	}
	facts := &decide.CoverageFacts{Format: string(FormatJaCoCo), Files: files}
	for _, f := range files {
		facts.Covered += f.Covered
		facts.Total += f.Total
	}
	return facts, nil
}

// jacocoReader holds the state of one ReadJaCoCo call.
type jacocoReader struct {
	name        string
	x           *xmlsafe.Decoder
	pkg, src    string
	class       string // sourcefilename of the open <class>, "" outside one
	cur         decide.FileCoverage
	lineCounter bool // the open <sourcefile> had its LINE counter
	lines       decide.FileCoverage
	sawSource   bool
	sources     []decide.FileCoverage
	classes     []decide.FileCoverage // gcovr's form: LINE counters of classes, per file
	classIdx    map[string]int
}

// path names a file of the open package.
func (j *jacocoReader) path(file string) string {
	if j.pkg == "" {
		return file
	}
	return strings.TrimSuffix(j.pkg, "/") + "/" + file
}

// count reads a non-negative count attribute of a JaCoCo element.
func (j *jacocoReader) count(e xml.StartElement, attr string) (int64, error) {
	v, ok := xmlUint(xmlsafe.Attr(e, attr))
	if !ok || v > 1<<40 {
		return 0, parse.LineError(j.name, j.x.Line(), "<%s> %s %q: want a non-negative integer", e.Name.Local, attr, xmlsafe.Attr(e, attr))
	}
	return v, nil
}

// optCount reads a count attribute that may be missing: a missing one is
// zero, a present one must be a non-negative integer.
func (j *jacocoReader) optCount(e xml.StartElement, attr string) (int64, error) {
	if _, ok := xmlAttr(e, attr); !ok {
		return 0, nil
	}
	return j.count(e, attr)
}

// line counts one <line nr mi ci> of the open source file. A line without
// mi and ci (gcovr writes <line nr="6"/>, Sonar's fixtures too) has no
// instruction counts: it counts nothing, and the source file's LINE counter
// gives its lines. nr, mb and cb are not counted but must be numbers when
// present.
func (j *jacocoReader) line(e xml.StartElement) error {
	for _, a := range []string{"nr", "mb", "cb"} { // checked, not counted
		if _, err := j.optCount(e, a); err != nil {
			return err
		}
	}
	mi, err := j.optCount(e, "mi")
	if err != nil {
		return err
	}
	ci, err := j.optCount(e, "ci")
	if err != nil {
		return err
	}
	if mi+ci > 0 {
		j.lines.Total++
		if ci > 0 {
			j.lines.Covered++
		}
	}
	return nil
}

// counter reads a LINE counter whose parent element is parent.
func (j *jacocoReader) counter(e xml.StartElement, parent string) error {
	if parent != "sourcefile" && (parent != "class" || j.class == "") {
		return nil // package, group and report totals repeat the files'
	}
	missed, err := j.count(e, "missed")
	if err != nil {
		return err
	}
	covered, err := j.count(e, "covered")
	if err != nil {
		return err
	}
	if parent == "class" {
		path := j.path(strings.TrimPrefix(j.class, "./"))
		i, ok := j.classIdx[path]
		if !ok {
			if len(j.classes) >= MaxFiles {
				return tooManyFiles(j.name, j.x.Line())
			}
			i = len(j.classes)
			j.classIdx[path] = i
			j.classes = append(j.classes, decide.FileCoverage{Path: path})
		}
		j.classes[i].Covered += covered
		j.classes[i].Total += covered + missed
		return nil
	}
	if j.lineCounter {
		return parse.LineError(j.name, j.x.Line(), "second LINE counter for %s", j.src)
	}
	j.cur.Covered, j.cur.Total = covered, covered+missed
	j.lineCounter = true
	return nil
}

// endSource files the source file just closed.
func (j *jacocoReader) endSource() error {
	if !j.lineCounter {
		j.cur.Covered, j.cur.Total = j.lines.Covered, j.lines.Total
	}
	j.lines = decide.FileCoverage{}
	if len(j.sources) >= MaxFiles {
		return tooManyFiles(j.name, j.x.Line())
	}
	j.sawSource = true
	j.sources = append(j.sources, j.cur)
	return nil
}

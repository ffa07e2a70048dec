package coverage

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/gcloop/gcloop/internal/xmlsafe"
)

// Limits of the JUnit reader.
const (
	// JUnitMaxCases is the number of test cases a report may hold.
	JUnitMaxCases = 200_000
	// JUnitMaxToken caps one XML token (a text node, a CDATA section, a
	// tag with its attributes), so that one huge system-out cannot exhaust
	// memory.
	JUnitMaxToken = 64 << 20
	// JUnitMaxMessage caps the message kept for one failing or skipped
	// case.
	JUnitMaxMessage = 2 << 10

	junitMaxName = 1 << 10 // classname, name and file attributes

	// The cases kept must fit in bounded memory whatever the input: names
	// and files together at most junitMaxKept bytes (an error beyond), and
	// once messages have taken junitMaxMessages bytes, later messages keep
	// only their first junitMaxShort bytes.
	junitMaxKept     = 64 << 20
	junitMaxMessages = 8 << 20
	junitMaxShort    = 160
	junitMaxText     = 8 << 10 // failure text read for the message and category
	junitMaxSysOut   = 16 << 10
)

// ReadJUnit reads a JUnit XML test report as written by gotestsum and
// go-junit-report, jest-junit, Vitest's junit reporter, pytest --junitxml
// (xunit1 and xunit2), Maven Surefire and Gradle. The root is <testsuites>
// or a bare <testsuite>; suites may nest.
//
// Every <testcase> becomes one decide.TestCase:
//   - Name is classname + "." + name; the innermost suite name stands in
//     for an empty classname, and a classname equal to the name (jest-junit's
//     default templates) is not repeated. Names are stable across runs.
//   - A case with <failure> or <error> failed; Surefire's <rerunFailure> and
//     <rerunError> (every rerun failed) also count as failed, while
//     <flakyFailure> and <flakyError> (a rerun passed) do not. A case with
//     <skipped> and no failure is skipped; any other case passed.
//   - Message is the failure's message attribute, or, when that is absent or
//     a placeholder such as "Failed" (gotestsum, go-junit-report), the first
//     lines of the element text without go test's "=== RUN"/"--- FAIL"
//     lines; at most JUnitMaxMessage bytes. A Go panic that go-junit-report
//     puts in the suite's <system-out> is given to the suite's failed cases
//     that carry no text of their own.
//   - Category is Categorize of the type and message attributes, else of
//     the element text without stack frames.
//
// Passed, Failed and Skipped are counted from the cases. The tests,
// failures, errors and skipped attributes of the suites are not read: the
// tools fill them unevenly (gotestsum writes no skipped count,
// go-junit-report omits a zero one, Surefire counts flaky tests as run) and
// the cases are what the coverage guard compares, so the totals always
// equal the cases listed.
//
// Memory is bounded: each case keeps at most 1 KiB of name, 1 KiB of file
// and JUnitMaxMessage of message; once 8 MiB of messages are kept, later
// messages are cut to their first 160 bytes, and names beyond 64 MiB in all
// are an error.
//
// A document whose root is not a JUnit element, malformed XML, a DTD, more
// than JUnitMaxCases cases or a token over JUnitMaxToken bytes is an error
// naming the file and line.
func ReadJUnit(name string, r io.Reader) (*decide.TestFacts, error) {
	return junitRead(name, r, JUnitMaxCases, JUnitMaxToken)
}

// junitRead is ReadJUnit with the limits as parameters, for tests.
func junitRead(name string, r io.Reader, maxCases int, maxToken int64) (*decide.TestFacts, error) {
	rd := &junitReader{name: name, d: xmlsafe.NewDecoder(r), maxCases: maxCases}
	rd.d.SetMaxToken(maxToken)
	if err := rd.read(); err != nil {
		return nil, err
	}
	facts := &decide.TestFacts{Cases: rd.cases}
	for _, c := range rd.cases {
		switch c.Status {
		case decide.Passed:
			facts.Passed++
		case decide.Failed:
			facts.Failed++
		case decide.Skipped:
			facts.Skipped++
		}
	}
	return facts, nil
}

// junitReader holds the state of one ReadJUnit call.
type junitReader struct {
	name     string
	d        *xmlsafe.Decoder
	cases    []decide.TestCase
	maxCases int // JUnitMaxCases

	keptBytes, msgBytes int          // bytes of names and files, of messages
	suites              []junitSuite // open <testsuite> elements, innermost last
}

// junitSuite is an open <testsuite>.
type junitSuite struct {
	name string
	bare []int // indexes of failed cases without text of their own
}

// token returns the next token.
func (rd *junitReader) token() (xml.Token, error) {
	tok, err := rd.d.Token()
	if err != nil {
		return nil, rd.fail(err)
	}
	return tok, nil
}

// text reads the text of the element just opened, at most limit bytes.
func (rd *junitReader) text(limit int) (string, error) {
	s, err := rd.d.Text(limit)
	if err != nil {
		return "", rd.fail(err)
	}
	return s, nil
}

// skip skips the rest of the element just opened.
func (rd *junitReader) skip() error {
	if err := rd.d.Skip(); err != nil {
		return rd.fail(err)
	}
	return nil
}

// fail turns a decoding error into a one-line ParseError.
func (rd *junitReader) fail(err error) error {
	if err == io.EOF {
		return parse.LineError(rd.name, rd.d.Line(), "unexpected end of file in JUnit XML")
	}
	var pe *parse.Error
	if errors.As(err, &pe) {
		return err
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return parse.LineError(rd.name, se.Line, "malformed JUnit XML: %s", junitOneLine(se.Msg))
	}
	return &parse.Error{File: rd.name, Line: rd.d.Line(), Offset: -1, Msg: "reading JUnit XML", Err: junitOneLineErr{err}}
}

// junitOneLineErr keeps an underlying error for errors.Is while rendering
// it on one line.
type junitOneLineErr struct{ err error }

func (e junitOneLineErr) Error() string { return junitOneLine(e.err.Error()) }
func (e junitOneLineErr) Unwrap() error { return e.err }

// read reads the whole document.
func (rd *junitReader) read() error {
	rootSeen := false
	for {
		tok, err := rd.d.Token()
		if err == io.EOF {
			if !rootSeen {
				return parse.LineError(rd.name, rd.d.Line(), "empty document: want a JUnit <testsuites> or <testsuite> element")
			}
			return nil
		}
		if err != nil {
			return rd.fail(err)
		}
		if cd, ok := tok.(xml.CharData); ok && len(bytes.Trim(cd, " \t\r\n\ufeff")) > 0 { // a byte-order mark is not text
			where := "before"
			if rootSeen {
				where = "after"
			}
			return parse.LineError(rd.name, rd.d.Line(), "not a JUnit report: text %s the root element, want only <testsuites> or <testsuite>", where)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if rootSeen {
			return parse.LineError(rd.name, rd.d.Line(), "second root element <%s> after the JUnit report", junitClip(se.Name.Local, 64))
		}
		rootSeen = true
		switch se.Name.Local {
		case "testsuites":
			err = rd.container()
		case "testsuite":
			err = rd.suite(se)
		default:
			return parse.LineError(rd.name, rd.d.Line(), "not a JUnit report: root element <%s>, want <testsuites> or <testsuite>", junitClip(se.Name.Local, 64))
		}
		if err != nil {
			return err
		}
	}
}

// children reads the content of the element just opened up to its end,
// calling fn for each child element's start; fn must read the child
// through its end.
func (rd *junitReader) children(fn func(t xml.StartElement) error) error {
	for {
		tok, err := rd.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		}
	}
}

// container reads the children of <testsuites> up to its end.
func (rd *junitReader) container() error {
	return rd.children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "testsuite":
			return rd.suite(t)
		case "testsuites":
			return rd.container()
		case "testcase":
			return rd.testcase(t)
		}
		return rd.skip()
	})
}

// suite reads one <testsuite> up to its end.
func (rd *junitReader) suite(start xml.StartElement) error {
	rd.suites = append(rd.suites, junitSuite{name: junitClip(strings.TrimSpace(xmlsafe.Attr(start, "name")), junitMaxName)})
	defer func() { rd.suites = rd.suites[:len(rd.suites)-1] }()
	return rd.children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "testsuite":
			return rd.suite(t)
		case "testcase":
			return rd.testcase(t)
		case "system-out", "system-err":
			return rd.suiteOutput()
		}
		return rd.skip()
	})
}

// suiteOutput reads a suite's <system-out> or <system-err>. go-junit-report
// puts the output of a test binary that panicked there, not in the
// failure; the panic line is given to the failed cases without text.
func (rd *junitReader) suiteOutput() error {
	s := &rd.suites[len(rd.suites)-1]
	if len(s.bare) == 0 {
		return rd.skip()
	}
	out, err := rd.text(junitMaxSysOut)
	if err != nil {
		return err
	}
	i := strings.Index(out, "panic: ")
	if i < 0 || (i > 0 && out[i-1] != '\n') {
		return nil
	}
	msg := junitExcerpt(out[i:], JUnitMaxMessage)
	cat := Categorize(junitDropFrames(msg))
	for _, k := range s.bare {
		rd.cases[k].Message = msg
		rd.cases[k].Category = cat
	}
	s.bare = nil
	return nil
}

// junitOutcome is what the children of one <testcase> said.
type junitOutcome struct {
	status      decide.TestStatus
	typ, msg    string // attributes of the first failure or skip
	text        string // its element text, capped
	failureSeen bool
}

// testcase reads one <testcase> up to its end.
func (rd *junitReader) testcase(start xml.StartElement) error {
	if len(rd.cases) >= rd.maxCases {
		return parse.LineError(rd.name, rd.d.Line(), "more than %d test cases", rd.maxCases)
	}
	out := junitOutcome{status: decide.Passed}
	err := rd.children(func(t xml.StartElement) error { return rd.outcome(t, &out) })
	if err != nil {
		return err
	}
	c := decide.TestCase{
		Name:   rd.caseName(start),
		File:   junitClip(strings.TrimSpace(xmlsafe.Attr(start, "file")), junitMaxName),
		Status: out.status,
	}
	switch out.status {
	case decide.Failed:
		c.Message, c.Category = junitFailure(out)
		if junitIsPlaceholder(out.msg) && strings.TrimSpace(out.text) == "" && len(rd.suites) > 0 {
			s := &rd.suites[len(rd.suites)-1]
			s.bare = append(s.bare, len(rd.cases))
		}
	case decide.Skipped:
		c.Message = junitMessage(out)
	}
	if rd.msgBytes+len(c.Message) > junitMaxMessages {
		c.Message = junitExcerpt(c.Message, junitMaxShort)
	}
	rd.msgBytes += len(c.Message)
	rd.keptBytes += len(c.Name) + len(c.File)
	if rd.keptBytes > junitMaxKept {
		return parse.LineError(rd.name, rd.d.Line(), "test names longer than %d MiB in all", junitMaxKept>>20)
	}
	rd.cases = append(rd.cases, c)
	return nil
}

// outcome reads one child element of a <testcase> into out.
func (rd *junitReader) outcome(t xml.StartElement, out *junitOutcome) error {
	switch t.Name.Local {
	case "failure", "error", "rerunFailure", "rerunError":
		if out.failureSeen {
			return rd.skip()
		}
		text, err := rd.text(junitMaxText)
		if err != nil {
			return err
		}
		out.failureSeen = true
		out.status = decide.Failed
		out.typ, out.msg, out.text = junitClip(xmlsafe.Attr(t, "type"), junitMaxName), junitClip(xmlsafe.Attr(t, "message"), junitMaxText), text
		return nil
	case "skipped":
		if out.failureSeen || out.status == decide.Skipped {
			return rd.skip()
		}
		text, err := rd.text(junitMaxText)
		if err != nil {
			return err
		}
		out.status = decide.Skipped
		out.typ, out.msg, out.text = junitClip(xmlsafe.Attr(t, "type"), junitMaxName), junitClip(xmlsafe.Attr(t, "message"), junitMaxText), text
		return nil
	}
	// flakyFailure, flakyError (a rerun passed), system-out, system-err,
	// properties and anything else: not an outcome.
	return rd.skip()
}

// caseName returns the qualified name of a <testcase>.
func (rd *junitReader) caseName(start xml.StartElement) string {
	class := strings.TrimSpace(xmlsafe.Attr(start, "classname"))
	name := strings.TrimSpace(xmlsafe.Attr(start, "name"))
	if class == "" && len(rd.suites) > 0 {
		class = rd.suites[len(rd.suites)-1].name
	}
	switch {
	case class == "" || class == name:
		return junitClip(name, junitMaxName)
	case name == "":
		return junitClip(class, junitMaxName)
	}
	return junitClip(class+"."+name, junitMaxName)
}

// junitFailure returns the message and category of a failure.
func junitFailure(out junitOutcome) (msg, cat string) {
	msg = junitMessage(out)
	head := strings.TrimSpace(out.msg)
	if junitIsPlaceholder(head) {
		head = ""
	}
	if typ := strings.TrimSpace(out.typ); typ != "" && !strings.HasPrefix(head, typ) {
		head = strings.TrimSpace(typ + ": " + head)
	}
	if head != "" {
		if cat = Categorize(head); cat != CategoryOther {
			return msg, cat
		}
	}
	return msg, Categorize(junitDropFrames(junitClean(out.text)))
}

// junitMessage returns the message of a failure or skip: the message
// attribute unless it is a placeholder, else the first lines of the text.
func junitMessage(out junitOutcome) string {
	if m := strings.TrimSpace(out.msg); !junitIsPlaceholder(m) {
		return junitExcerpt(m, JUnitMaxMessage)
	}
	if t := junitClean(out.text); t != "" {
		return junitExcerpt(t, JUnitMaxMessage)
	}
	return strings.TrimSpace(out.msg)
}

// junitIsPlaceholder reports a message attribute that says nothing: empty,
// or the fixed words gotestsum and go-junit-report write.
func junitIsPlaceholder(m string) bool {
	switch strings.ToLower(strings.TrimSpace(m)) {
	case "", "failed", "failure", "error", "skipped", "skip":
		return true
	}
	return false
}

// junitClean drops go test's progress lines ("=== RUN", "--- FAIL: ...")
// and surrounding blank lines from a failure text.
func junitClean(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "=== RUN") || strings.HasPrefix(l, "=== PAUSE") ||
			strings.HasPrefix(l, "=== CONT") || strings.HasPrefix(l, "=== NAME") ||
			strings.HasPrefix(l, "--- FAIL:") || strings.HasPrefix(l, "--- SKIP:") ||
			strings.HasPrefix(l, "--- PASS:") {
			continue
		}
		b.WriteString(strings.TrimRight(line, " \t\r"))
		b.WriteByte('\n')
	}
	return strings.Trim(b.String(), "\n")
}

// junitDropFrames drops stack-frame lines ("at ...", "❯ ...", Go's tab
// indented file lines) so that paths such as node_modules/jest-mock do not
// steer the category.
func junitDropFrames(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "❯ ") || strings.HasPrefix(line, "\t") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// junitExcerpt returns s trimmed and cut to at most limit bytes, at a
// line end when one is near, never inside a UTF-8 sequence.
func junitExcerpt(s string, limit int) string {
	s = strings.TrimSpace(s)
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl > limit/2 {
		cut = nl
	}
	return strings.TrimSpace(s[:cut]) + " …"
}

// junitClip cuts s to at most limit bytes at a rune boundary.
func junitClip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// junitOneLine folds an error text onto one line.
func junitOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

package coverage

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

// junitCounts is a passed/failed/skipped triple.
type junitCounts struct{ Passed, Failed, Skipped int }

// junitToolTotals reads testdata/junit/totals.txt: per fixture, the summary
// line the tool printed.
func junitToolTotals(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "junit", "totals.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, line, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("totals.txt: line without a tab: %q", sc.Text())
		}
		out[name] = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	junitSurefirePair = regexp.MustCompile(`([A-Za-z][A-Za-z ]*): (\d+)`)
	junitNumberWord   = regexp.MustCompile(`(\d+) ([a-z]+)`)
)

// junitParseSummary reads the totals out of a tool's console summary:
// gotestsum "DONE 8 tests, 1 skipped, 2 failures in 0.3s", Jest "Tests: 4
// failed, 1 skipped, 1 passed, 6 total", Vitest "Tests 4 failed | 1 passed |
// 1 skipped (6)", pytest "5 failed, 1 passed, 1 skipped, 1 xfailed, 1 error
// in 0.1s", Surefire "Tests run: 7, Failures: 3, Errors: 1, Skipped: 1,
// Flakes: 1". Errors count as failed, xfailed as skipped; when no passed
// count is printed it is the total minus the others.
func junitParseSummary(line string) (junitCounts, error) {
	var c junitCounts
	total, passedSeen := -1, false
	add := func(word string, n int) error {
		switch strings.ToLower(word) {
		case "passed", "xpassed":
			c.Passed += n
			passedSeen = true
		case "failed", "failure", "failures", "error", "errors":
			c.Failed += n
		case "skipped", "xfailed":
			c.Skipped += n
		case "tests", "total", "tests run":
			total = n
		case "flakes":
		default:
			return fmt.Errorf("unknown word %q in summary %q", word, line)
		}
		return nil
	}
	if strings.HasPrefix(line, "Tests run:") {
		for _, m := range junitSurefirePair.FindAllStringSubmatch(line, -1) {
			n, _ := strconv.Atoi(m[2])
			if err := add(strings.TrimSpace(m[1]), n); err != nil {
				return c, err
			}
		}
	} else {
		for _, m := range junitNumberWord.FindAllStringSubmatch(line, -1) {
			n, _ := strconv.Atoi(m[1])
			if err := add(m[2], n); err != nil {
				return c, err
			}
		}
	}
	if !passedSeen {
		if total < 0 {
			return c, fmt.Errorf("summary %q has neither a passed count nor a total", line)
		}
		c.Passed = total - c.Failed - c.Skipped
	}
	return c, nil
}

func readJUnitFile(t *testing.T, name string) *decide.TestFacts {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "junit", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	facts, err := ReadJUnit(name, f)
	if err != nil {
		t.Fatalf("ReadJUnit(%s): %v", name, err)
	}
	return facts
}

func TestReadJUnitReproducesTheToolTotals(t *testing.T) {
	t.Parallel()
	totals := junitToolTotals(t)
	for _, fixture := range []string{
		"gotestsum.xml", "go-junit-report.xml", "jest-junit.xml", "vitest.xml",
		"pytest-xunit1.xml", "pytest-xunit2.xml", "surefire/TEST-com.example.CalculatorTest.xml",
	} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			line, ok := totals[fixture]
			if !ok {
				t.Fatalf("no line for %s in totals.txt", fixture)
			}
			want, err := junitParseSummary(line)
			if err != nil {
				t.Fatal(err)
			}
			facts := readJUnitFile(t, fixture)
			got := junitCounts{facts.Passed, facts.Failed, facts.Skipped}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("counts differ from the tool's %q (-tool +reader):\n%s", line, diff)
			}
			if n := facts.Passed + facts.Failed + facts.Skipped; n != len(facts.Cases) {
				t.Errorf("counts add up to %d, want the %d cases", n, len(facts.Cases))
			}
		})
	}
}

func TestJUnitSummaryParserReadsEveryToolsWording(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want junitCounts
	}{
		{"DONE 8 tests, 1 skipped, 2 failures in 0.287s", junitCounts{5, 2, 1}},
		{"Tests:       4 failed, 1 skipped, 1 passed, 6 total", junitCounts{1, 4, 1}},
		{"Tests  4 failed | 1 passed | 1 skipped (6)", junitCounts{1, 4, 1}},
		{"5 failed, 1 passed, 1 skipped, 1 xfailed, 1 error in 0.15s", junitCounts{1, 6, 2}},
		{"Tests run: 7, Failures: 3, Errors: 1, Skipped: 1, Flakes: 1", junitCounts{2, 4, 1}},
	} {
		got, err := junitParseSummary(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

// junitBrief is what the fixture tests compare of a case.
type junitBrief struct {
	Status   decide.TestStatus
	Category string
	File     string
}

func TestReadJUnitNamesAndCategorizesTheFixtureCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture string
		want    map[string]junitBrief
	}{
		{"gotestsum.xml", map[string]junitBrief{
			"example.com/junitdemo/calc.TestAdd":            {Status: decide.Passed},
			"example.com/junitdemo/calc.TestSub":            {Status: decide.Failed, Category: CategoryAssertion},
			"example.com/junitdemo/calc.TestTable":          {Status: decide.Passed},
			"example.com/junitdemo/calc.TestTable/zero":     {Status: decide.Passed},
			"example.com/junitdemo/calc.TestTable/negative": {Status: decide.Passed},
			"example.com/junitdemo/calc.TestSkipped":        {Status: decide.Skipped},
			"example.com/junitdemo/nilpanic.TestSecondOK":   {Status: decide.Passed},
			"example.com/junitdemo/nilpanic.TestSecondNil":  {Status: decide.Failed, Category: CategoryNull},
		}},
		{"go-junit-report.xml", map[string]junitBrief{
			"example.com/junitdemo/calc.TestAdd":            {Status: decide.Passed},
			"example.com/junitdemo/calc.TestSub":            {Status: decide.Failed, Category: CategoryAssertion},
			"example.com/junitdemo/calc.TestTable":          {Status: decide.Passed},
			"example.com/junitdemo/calc.TestTable/zero":     {Status: decide.Passed},
			"example.com/junitdemo/calc.TestTable/negative": {Status: decide.Passed},
			"example.com/junitdemo/calc.TestSkipped":        {Status: decide.Skipped},
			"example.com/junitdemo/nilpanic.TestSecondOK":   {Status: decide.Passed},
			"example.com/junitdemo/nilpanic.TestSecondNil":  {Status: decide.Failed, Category: CategoryNull},
		}},
		{"jest-junit.xml", map[string]junitBrief{
			"math adds two numbers":         {Status: decide.Passed, File: "math.jest.test.js"},
			"math multiplies two numbers":   {Status: decide.Failed, Category: CategoryAssertion, File: "math.jest.test.js"},
			"math divides two numbers":      {Status: decide.Skipped, File: "math.jest.test.js"},
			"math reads a profile name":     {Status: decide.Failed, Category: CategoryNull, File: "math.jest.test.js"},
			"math waits for a slow promise": {Status: decide.Failed, Category: CategoryTiming, File: "math.jest.test.js"},
			"calls the callback":            {Status: decide.Failed, Category: CategoryMock, File: "math.jest.test.js"},
		}},
		{"vitest.xml", map[string]junitBrief{
			"math.vitest.test.js.math > adds two numbers":         {Status: decide.Passed},
			"math.vitest.test.js.math > multiplies two numbers":   {Status: decide.Failed, Category: CategoryAssertion},
			"math.vitest.test.js.math > divides two numbers":      {Status: decide.Skipped},
			"math.vitest.test.js.math > reads a profile name":     {Status: decide.Failed, Category: CategoryNull},
			"math.vitest.test.js.math > waits for a slow promise": {Status: decide.Failed, Category: CategoryTiming},
			"math.vitest.test.js.calls the callback":              {Status: decide.Failed, Category: CategoryMock},
		}},
		{"pytest-xunit1.xml", map[string]junitBrief{
			"test_demo.test_add":                 {Status: decide.Passed, File: "test_demo.py"},
			"test_demo.test_add_wrong":           {Status: decide.Failed, Category: CategoryAssertion, File: "test_demo.py"},
			"test_demo.test_none_attribute":      {Status: decide.Failed, Category: CategoryNull, File: "test_demo.py"},
			"test_demo.test_skipped":             {Status: decide.Skipped, File: "test_demo.py"},
			"test_demo.test_mock_called":         {Status: decide.Failed, Category: CategoryMock, File: "test_demo.py"},
			"test_demo.test_timeout":             {Status: decide.Failed, Category: CategoryTiming, File: "test_demo.py"},
			"test_demo.test_uses_broken_fixture": {Status: decide.Failed, Category: CategoryOther, File: "test_demo.py"},
			"test_demo.TestMath.test_type":       {Status: decide.Failed, Category: CategoryType, File: "test_demo.py"},
			"test_demo.TestMath.test_known_bug":  {Status: decide.Skipped, File: "test_demo.py"},
		}},
		{"pytest-xunit2.xml", map[string]junitBrief{
			"test_demo.test_add":                 {Status: decide.Passed},
			"test_demo.test_add_wrong":           {Status: decide.Failed, Category: CategoryAssertion},
			"test_demo.test_none_attribute":      {Status: decide.Failed, Category: CategoryNull},
			"test_demo.test_skipped":             {Status: decide.Skipped},
			"test_demo.test_mock_called":         {Status: decide.Failed, Category: CategoryMock},
			"test_demo.test_timeout":             {Status: decide.Failed, Category: CategoryTiming},
			"test_demo.test_uses_broken_fixture": {Status: decide.Failed, Category: CategoryOther},
			"test_demo.TestMath.test_type":       {Status: decide.Failed, Category: CategoryType},
			"test_demo.TestMath.test_known_bug":  {Status: decide.Skipped},
		}},
		{"surefire/TEST-com.example.CalculatorTest.xml", map[string]junitBrief{
			"com.example.CalculatorTest.testAdd":            {Status: decide.Passed},
			"com.example.CalculatorTest.testSubtract":       {Status: decide.Failed, Category: CategoryAssertion},
			"com.example.CalculatorTest.testDivide":         {Status: decide.Failed, Category: CategoryNull},
			"com.example.CalculatorTest.testPending":        {Status: decide.Skipped},
			"com.example.CalculatorTest.testFlaky":          {Status: decide.Passed},
			"com.example.CalculatorTest.testAlwaysTimesOut": {Status: decide.Failed, Category: CategoryTiming},
			"com.example.CalculatorTest.testNotifies":       {Status: decide.Failed, Category: CategoryMock},
		}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			facts := readJUnitFile(t, tc.fixture)
			got := map[string]junitBrief{}
			for _, c := range facts.Cases {
				if _, dup := got[c.Name]; dup {
					t.Errorf("name %q appears twice", c.Name)
				}
				got[c.Name] = junitBrief{Status: c.Status, Category: c.Category, File: c.File}
				if c.Status == decide.Failed && c.Message == "" {
					t.Errorf("%s failed without a message", c.Name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadJUnitMessages(t *testing.T) {
	t.Parallel()
	msgs := func(fixture string) map[string]string {
		out := map[string]string{}
		for _, c := range readJUnitFile(t, fixture).Cases {
			if c.Status != decide.Passed {
				out[c.Name] = c.Message
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, fixture, test, want string
	}{
		{"gotestsum's placeholder message gives way to the test output", "gotestsum.xml",
			"example.com/junitdemo/calc.TestSub", "calc_test.go:13: Sub(5, 3): got 3 want 2"},
		{"go-junit-report's panic in system-out goes to the failed case", "go-junit-report.xml",
			"example.com/junitdemo/nilpanic.TestSecondNil", "panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]"},
		{"a skip keeps the reason", "go-junit-report.xml",
			"example.com/junitdemo/calc.TestSkipped", "calc_test.go:32: not supported on this platform"},
		{"the message attribute wins over the text", "pytest-xunit2.xml",
			"test_demo.test_none_attribute", "AttributeError: 'NoneType' object has no attribute 'size'"},
		{"Surefire's failure message", "surefire/TEST-com.example.CalculatorTest.xml",
			"com.example.CalculatorTest.testSubtract", "expected: <1> but was: <2>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := msgs(tc.fixture)[tc.test]
			first, _, _ := strings.Cut(got, "\n")
			if first != tc.want {
				t.Errorf("first line of the message of %s = %q, want %q (whole message %q)", tc.test, first, tc.want, got)
			}
		})
	}
}

func TestReadJUnitShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      *decide.TestFacts
	}{
		{
			name: "a bare testsuite with no classnames is named by the suite",
			doc:  `<testsuite name="s"><testcase name="a"/><testcase name="b"><skipped/></testcase></testsuite>`,
			want: &decide.TestFacts{Passed: 1, Skipped: 1, Cases: []decide.TestCase{
				{Name: "s.a", Status: decide.Passed}, {Name: "s.b", Status: decide.Skipped},
			}},
		},
		{
			name: "nested suites take the innermost name",
			doc: `<testsuites><testsuite name="outer"><testsuite name="inner"><testcase name="a"/></testsuite>
				<testcase name="b"/></testsuite></testsuites>`,
			want: &decide.TestFacts{Passed: 2, Cases: []decide.TestCase{
				{Name: "inner.a", Status: decide.Passed}, {Name: "outer.b", Status: decide.Passed},
			}},
		},
		{
			name: "error counts as failed like failure, and a failure wins over a skip",
			doc: `<testsuites><testsuite name="s"><testcase classname="C" name="e"><error message="boom" type="java.lang.IllegalStateException"/></testcase>
				<testcase classname="C" name="f"><skipped/><failure message="expected: &lt;1&gt; but was: &lt;2&gt;"/></testcase></testsuite></testsuites>`,
			want: &decide.TestFacts{Failed: 2, Cases: []decide.TestCase{
				{Name: "C.e", Status: decide.Failed, Message: "boom", Category: CategoryOther},
				{Name: "C.f", Status: decide.Failed, Message: "expected: <1> but was: <2>", Category: CategoryAssertion},
			}},
		},
		{
			name: "suite totals that disagree with the cases are ignored",
			doc:  `<testsuite name="s" tests="10" failures="5" skipped="3"><testcase classname="C" name="a"/></testsuite>`,
			want: &decide.TestFacts{Passed: 1, Cases: []decide.TestCase{{Name: "C.a", Status: decide.Passed}}},
		},
		{
			name: "a flaky failure that passed on a rerun counts as passed",
			doc: `<testsuite name="s"><testcase classname="C" name="a"><flakyFailure message="x" type="T"><stackTrace>t</stackTrace></flakyFailure>
				<flakyError message="y"/></testcase></testsuite>`,
			want: &decide.TestFacts{Passed: 1, Cases: []decide.TestCase{{Name: "C.a", Status: decide.Passed}}},
		},
		{
			name: "a rerun failure alone counts as failed",
			doc:  `<testsuite name="s"><testcase classname="C" name="a"><rerunFailure message="TimeoutException: timed out after 5 seconds"/></testcase></testsuite>`,
			want: &decide.TestFacts{Failed: 1, Cases: []decide.TestCase{{Name: "C.a", Status: decide.Failed,
				Message: "TimeoutException: timed out after 5 seconds", Category: CategoryTiming}}},
		},
		{
			name: "the file attribute, system-out and properties",
			doc: `<?xml version="1.0"?><testsuites><testsuite name="s"><properties><property name="a" value="b"/></properties>
				<testcase classname="c" name="t" file="src/a.test.ts"><system-out>hello</system-out><system-err>x</system-err></testcase>
				<system-out>suite out</system-out></testsuite></testsuites>`,
			want: &decide.TestFacts{Passed: 1, Cases: []decide.TestCase{{Name: "c.t", File: "src/a.test.ts", Status: decide.Passed}}},
		},
		{
			name: "a byte-order mark and an ISO-8859-1 declaration",
			doc:  "\ufeff<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<testsuite name=\"s\"><testcase classname=\"c\" name=\"a\"/></testsuite>",
			want: &decide.TestFacts{Passed: 1, Cases: []decide.TestCase{{Name: "c.a", Status: decide.Passed}}},
		},
		{
			name: "a Gradle report",
			doc: `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.ParserTest" tests="2" skipped="0" failures="1" errors="0" timestamp="2024-05-01T10:00:00" hostname="ci" time="0.031">
  <properties/>
  <testcase name="parses(String)[1]" classname="com.example.ParserTest" time="0.004"/>
  <testcase name="rejectsEmpty()" classname="com.example.ParserTest" time="0.02">
    <failure message="java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer" type="java.lang.ClassCastException">java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer
	at com.example.ParserTest.rejectsEmpty(ParserTest.java:31)
</failure>
  </testcase>
  <system-out><![CDATA[]]></system-out>
  <system-err><![CDATA[]]></system-err>
</testsuite>`,
			want: &decide.TestFacts{Passed: 1, Failed: 1, Cases: []decide.TestCase{
				{Name: "com.example.ParserTest.parses(String)[1]", Status: decide.Passed},
				{Name: "com.example.ParserTest.rejectsEmpty()", Status: decide.Failed,
					Message:  "java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer",
					Category: CategoryType},
			}},
		},
		{
			name: "an empty testsuites has no cases",
			doc:  `<testsuites/>`,
			want: &decide.TestFacts{},
		},
		{
			name: "a CDATA failure text without a message attribute",
			doc:  "<testsuite><testcase classname=\"k\" name=\"t\"><failure><![CDATA[\n  Error: expect(received).toBe(expected)\n  at x (a.js:1:2)\n]]></failure></testcase></testsuite>",
			want: &decide.TestFacts{Failed: 1, Cases: []decide.TestCase{{Name: "k.t", Status: decide.Failed,
				Message: "Error: expect(received).toBe(expected)\n  at x (a.js:1:2)", Category: CategoryAssertion}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadJUnit("r.xml", strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadJUnitCapsTheMessage(t *testing.T) {
	t.Parallel()
	doc := `<testsuite><testcase name="t"><failure>` + strings.Repeat("é line of output\n", 2000) + `</failure></testcase></testsuite>`
	got, err := ReadJUnit("r.xml", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	m := got.Cases[0].Message
	if len(m) > JUnitMaxMessage+len(" …") {
		t.Errorf("message is %d bytes, want at most %d", len(m), JUnitMaxMessage)
	}
	if !strings.HasPrefix(m, "é line of output\n") || !strings.HasSuffix(m, "output …") {
		t.Errorf("message = %.40q…%q", m, m[len(m)-20:])
	}
}

func TestReadJUnitRejectsBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"a root that is not JUnit", "<?xml version=\"1.0\"?>\n<coverage line-rate=\"1\"/>", "r.xml:2: not a JUnit report: root element <coverage>, want <testsuites> or <testsuite>"},
		{"mismatched tags", "<testsuites>\n<testsuite>\n<testcase name=\"a\">\n</testsuite>", "r.xml:4: malformed JUnit XML: element <testcase> closed by </testsuite>"},
		{"a DTD", "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"b\">]>\n<testsuites/>", "r.xml:2: reading JUnit XML: DTD or entity declarations are not allowed"},
		{"an undeclared entity", "<testsuites>\n<testsuite name=\"&x;\"/></testsuites>", "r.xml:2: malformed JUnit XML: invalid character entity &x;"},
		{"a truncated file", "<testsuites>\n<testsuite name=\"a\">\n<testcase", "r.xml:3: malformed JUnit XML: unexpected EOF"},
		{"an empty file", "", "r.xml:1: empty document: want a JUnit <testsuites> or <testsuite> element"},
		{"two roots", "<testsuite/>\n<testsuite/>", "r.xml:2: second root element <testsuite> after the JUnit report"},
		{"JSON", `{"tests": 1}`, "r.xml:1: not a JUnit report: text before the root element, want only <testsuites> or <testsuite>"},
		{"text after the root", "<testsuites/>\nPASS ok", "r.xml:2: not a JUnit report: text after the root element, want only <testsuites> or <testsuite>"},
		{"nesting too deep", strings.Repeat("<testsuite>", 300), "r.xml:1: reading JUnit XML: elements nested deeper than 256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadJUnit("r.xml", strings.NewReader(tc.doc))
			if err == nil {
				t.Fatal("no error")
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Errorf("error %v is not a *parse.Error", err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// junitCaseStream is a reader of a <testsuite> with n cases, generated on
// the fly.
func junitCaseStream(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		w.WriteString("<testsuite name=\"big\">\n")
		for i := range n {
			fmt.Fprintf(w, "<testcase classname=\"c\" name=\"t%d\"/>\n", i)
		}
		w.WriteString("</testsuite>\n")
		w.Flush()
		pw.Close()
	}()
	return pr
}

func TestReadJUnitAcceptsTheCaseCapAndRejectsOneMore(t *testing.T) {
	t.Parallel()
	// The cap is a parameter of junitRead; ReadJUnit passes JUnitMaxCases
	// through the same code path, so a small cap tests it in milliseconds.
	for _, max := range []int{1, 10} {
		facts, err := junitRead("big.xml", junitCaseStream(max), max, JUnitMaxToken)
		if err != nil {
			t.Fatal(err)
		}
		if facts.Passed != max {
			t.Errorf("passed = %d, want %d", facts.Passed, max)
		}
		_, err = junitRead("big.xml", junitCaseStream(max+1), max, JUnitMaxToken)
		want := fmt.Sprintf("big.xml:%d: more than %d test cases", max+2, max)
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	}
}

// junitRepeat is an endless reader of one byte.
type junitRepeat byte

func (r junitRepeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestReadJUnitRejectsAHugeToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, head string
		max        int64
		want       string
	}{
		{"an endless system-out", "<testsuite><testcase name=\"t\"><system-out>", 1 << 20, "huge.xml:1: reading JUnit XML: XML token longer than 1 MiB"},
		{"an endless attribute", "<testsuite name=\"", 1000, "huge.xml:1: reading JUnit XML: XML token longer than 1000 bytes"},
		{"an endless CDATA section with tags inside", "<testsuite><testcase name=\"t\"><failure><![CDATA[<a>", 4096, "huge.xml:1: reading JUnit XML: XML token longer than 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := io.MultiReader(strings.NewReader(tc.head), junitRepeat('<'))
			if !strings.HasSuffix(tc.head, "<a>") {
				r = io.MultiReader(strings.NewReader(tc.head), junitRepeat('x'))
			}
			_, err := junitRead("huge.xml", r, JUnitMaxCases, tc.max)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %s", err, tc.want)
			}
		})
	}
}

func FuzzReadJUnit(f *testing.F) {
	for _, name := range []string{"gotestsum.xml", "go-junit-report.xml", "jest-junit.xml", "vitest.xml",
		"pytest-xunit1.xml", "surefire/TEST-com.example.CalculatorTest.xml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "junit", filepath.FromSlash(name)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`<testsuite name="s"><testcase name="a"><failure message="m" type="t">x</failure></testcase></testsuite>`,
		`<testsuites><testsuite><testsuite name="i"><testcase classname="c" name="n"><skipped/></testcase></testsuite></testsuite></testsuites>`,
		`<testsuite><testcase name="t"><failure/></testcase><system-out>panic: x</system-out></testsuite>`,
		`<testsuite><testcase name="t"><flakyFailure/><rerunError/></testcase></testsuite>`,
		"<!DOCTYPE x><testsuites/>",
		"<testsuites><testsuite></testsuites>",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		facts, err := ReadJUnit("f.xml", strings.NewReader(string(b)))
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *parse.Error", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if n := facts.Passed + facts.Failed + facts.Skipped; n != len(facts.Cases) {
			t.Fatalf("counts add up to %d, want %d cases", n, len(facts.Cases))
		}
		for _, c := range facts.Cases {
			if len(c.Message) > JUnitMaxMessage+len(" …") {
				t.Fatalf("message of %d bytes", len(c.Message))
			}
			if c.Status == decide.Failed && c.Category == "" {
				t.Fatalf("failed case %q without a category", c.Name)
			}
		}
	})
}

func TestReadJUnitNamesAreStableAcrossRuns(t *testing.T) {
	t.Parallel()
	names := func(fixture string) map[string]decide.TestStatus {
		out := map[string]decide.TestStatus{}
		for _, c := range readJUnitFile(t, fixture).Cases {
			out[c.Name] = c.Status
		}
		return out
	}
	for _, tc := range []struct{ name, a, b string }{
		{"two Go runs written by gotestsum and go-junit-report", "gotestsum.xml", "go-junit-report.xml"},
		{"two pytest runs of the two JUnit families", "pytest-xunit1.xml", "pytest-xunit2.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(names(tc.a), names(tc.b)); diff != "" {
				t.Errorf("(-%s +%s):\n%s", tc.a, tc.b, diff)
			}
		})
	}
}

func TestReadJUnitShortensMessagesOnceTheBudgetIsSpent(t *testing.T) {
	t.Parallel()
	const n = junitMaxMessages/JUnitMaxMessage + 100
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		w.WriteString("<testsuite name=\"s\">\n")
		long := strings.Repeat("got 1 want 2 ", JUnitMaxMessage/8)
		for i := range n {
			fmt.Fprintf(w, "<testcase name=\"t%d\"><failure message=\"%s\"/></testcase>\n", i, long)
		}
		w.WriteString("</testsuite>\n")
		w.Flush()
		pw.Close()
	}()
	facts, err := ReadJUnit("many.xml", pr)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range facts.Cases {
		total += len(c.Message)
	}
	if total > junitMaxMessages+200*(junitMaxShort+len(" …")) {
		t.Errorf("messages take %d bytes, want at most %d + 100 short ones", total, junitMaxMessages)
	}
	if last := facts.Cases[n-1]; len(last.Message) > junitMaxShort+len(" …") || last.Category != CategoryAssertion {
		t.Errorf("last case: %d-byte message, category %s; want a short one, still categorized", len(last.Message), last.Category)
	}
}

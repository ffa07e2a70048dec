package coverage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadClover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want *decide.CoverageFacts
	}{
		{
			name: "stmt and cond lines count, method lines do not",
			in: `<coverage clover="3.2.0"><project><file name="a.js" path="/w/a.js">
<line num="1" type="method" count="0"/><line num="2" type="stmt" count="3"/><line num="3" type="cond" count="0" truecount="0" falsecount="1"/>
</file></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 1, Total: 2, Files: []decide.FileCoverage{{Path: "/w/a.js", Covered: 1, Total: 2}}},
		},
		{
			name: "a cond line without a count is covered when a branch count is above zero",
			in:   `<coverage><project><file name="a"><line num="4" type="cond" truecount="0" falsecount="2"/><line num="5" type="cond" truecount="0" falsecount="0"/></file></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 1, Total: 2, Files: []decide.FileCoverage{{Path: "a", Covered: 1, Total: 2}}},
		},
		{
			name: "a line listed twice counts once, covered when any count is above zero",
			in:   `<coverage><project><package name="p"><file name="b.php"><line num="7" type="stmt" count="0"/><line num="7" type="cond" count="2"/></file></package></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 1, Total: 1, Files: []decide.FileCoverage{{Path: "b.php", Covered: 1, Total: 1}}},
		},
		{
			name: "a statement and a condition on one line, as Clover writes them, are one line",
			in: `<coverage clover="4.4.1"><project><package name="p"><file name="A.java" path="/w/A.java">
<line num="5" type="stmt" count="0"/><line num="5" type="cond" truecount="1" falsecount="0"/>
<line num="6" type="stmt" count="0"/><line num="6" type="cond" truecount="0" falsecount="0"/>
<line num="7" type="cond" truecount="0" falsecount="4"/></file></package></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 2, Total: 3, Files: []decide.FileCoverage{{Path: "/w/A.java", Covered: 2, Total: 3}}},
		},
		{
			name: "Istanbul's falsecount counts branches not taken: it does not cover a line, a truecount does",
			in: `<coverage clover="3.2.0"><project><file name="m.js" path="/w/m.js">
<line num="9" count="0" type="cond" truecount="0" falsecount="2"/><line num="10" count="0" type="cond" truecount="1" falsecount="1"/><line num="11" count="4" type="cond"/>
</file></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 2, Total: 3, Files: []decide.FileCoverage{{Path: "/w/m.js", Covered: 2, Total: 3}}},
		},
		{
			name: "gcovr lists a line once per function: covered when any function ran it",
			in: `<coverage><project><package name="root"><file name="main.cpp" path="main.cpp">
<line num="8" type="stmt" count="0"/><line num="8" type="stmt" count="2"/><line num="9" type="stmt" count="0"/><line num="9" type="stmt" count="0"/>
</file></package></project></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 1, Total: 2, Files: []decide.FileCoverage{{Path: "main.cpp", Covered: 1, Total: 2}}},
		},
		{
			name: "the testproject and the stated metrics are not read",
			in: `<coverage><project><metrics statements="99" coveredstatements="99"/><file path="c"><line num="1" type="stmt" count="0"/></file></project>
<testproject><file path="t"><line num="1" type="stmt" count="1"/></file></testproject></coverage>`,
			want: &decide.CoverageFacts{Format: "clover", Covered: 0, Total: 1, Files: []decide.FileCoverage{{Path: "c", Covered: 0, Total: 1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadClover("clover.xml", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCloverErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "clover.xml:1: no <coverage> element"},
		{"a Cobertura report", `<coverage line-rate="1"><sources/></coverage>`, "clover.xml:1: no <project> element"},
		{"another root element", "<report/>", "clover.xml:1: root element <report>: want <coverage> (Clover)"},
		{"a file without a name", "<coverage><project><file/></project></coverage>", "clover.xml:1: <file> without a path or name"},
		{"a bad line number", `<coverage><project><file name="a"><line num="x" type="stmt" count="1"/></file></project></coverage>`, `clover.xml:1: <line> num "x": want a line number`},
		{"a negative count", "<coverage><project><file name=\"a\">\n<line num=\"2\" type=\"stmt\" count=\"-1\"/></file></project></coverage>", `clover.xml:2: <line num="2"> count "-1": negative count`},
		{"a cond line without any count", `<coverage><project><file name="a"><line num="2" type="cond"/></file></project></coverage>`, `clover.xml:1: <line num="2"> truecount "": want a count`},
		{"a stmt line without a count", `<coverage><project><file name="a"><line num="2" type="stmt"/></file></project></coverage>`, `clover.xml:1: <line num="2"> count "": want a count`},
		{"a cond line without count or falsecount", `<coverage><project><file name="a"><line num="2" type="cond" truecount="1"/></file></project></coverage>`, `clover.xml:1: <line num="2"> falsecount "": want a count`},
		{"a bad truecount beside a count", `<coverage><project><file name="a"><line num="3" type="cond" count="1" truecount="x"/></file></project></coverage>`, `clover.xml:1: <line num="3"> truecount "x": want a count`},
		{"an internal DTD subset", `<!DOCTYPE coverage [<!ENTITY x "y">]><coverage/>`, "clover.xml:1: refused XML"},
		{"a truncated file", "<coverage clover=\"1\"><project>\n<file name=\"a\">", "clover.xml:2: malformed XML: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadClover("clover.xml", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}

// The Clover fixtures were written by the tools (testdata/clover/README.md);
// their line totals must be those the tools printed.
func TestReadCloverMatchesTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture, tool, re string
	}{
		// Jest's text-summary: "Lines        : 60% ( 6/10 )".
		{"clover/jest.xml", "clover/jest.xml.tool.txt", `^Lines\s+:\s+[0-9.]+% \(\s*(\d+)/(\d+)\s*\)$`},
		// PHPUnit's --coverage-text: "  Lines:   50.00% (3/6)".
		{"clover/phpunit.xml", "clover/phpunit.xml.tool.txt", `^\s+Lines:\s+[0-9.]+% \((\d+)/(\d+)\)$`},
		// gcovr's reference output prints no summary; its JaCoCo twin from
		// the same run states the report's LINE counter.
		{"clover/gcovr.xml", "jacoco/gcovr.xml", `^  <counter type="LINE" missed="(\d+)" covered="(\d+)"/>$`},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, tt.fixture)
			facts, err := ReadClover(tt.fixture, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			m := toolLines(t, tt.tool, tt.re)[0]
			covered, total := atoi(t, m[1]), atoi(t, m[2])
			if tt.tool == "jacoco/gcovr.xml" {
				covered, total = total, covered+total // missed, covered
			}
			if facts.Covered != covered || facts.Total != total {
				t.Errorf("got %d of %d lines, the tool counted %d of %d", facts.Covered, facts.Total, covered, total)
			}
		})
	}
}

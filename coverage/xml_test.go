package coverage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadCobertura(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		files []decide.FileCoverage
	}{
		{
			name: "lines under methods are not counted twice",
			in: `<?xml version="1.0"?><coverage lines-valid="99" lines-covered="99"><packages><package name="p"><classes>
<class name="A" filename="p/A.java"><methods><method name="f"><lines><line number="2" hits="1"/></lines></method></methods>
<lines><line number="1" hits="0"/><line number="2" hits="1"/></lines></class></classes></package></packages></coverage>`,
			files: []decide.FileCoverage{{Path: "p/A.java", Covered: 1, Total: 2}},
		},
		{
			name: "classes of one file merge line by line",
			in: `<coverage><packages><package name="p"><classes>
<class name="A" filename="A.java"><lines><line number="1" hits="0"/><line number="2" hits="3"/></lines></class>
<class name="A$1" filename="A.java"><lines><line number="1" hits="2"/><line number="5" hits="0"/></lines></class>
</classes></package></packages></coverage>`,
			files: []decide.FileCoverage{{Path: "A.java", Covered: 2, Total: 3}},
		},
		{
			name: "gcovr's DOCTYPE is accepted",
			in: `<?xml version='1.0' encoding='UTF-8'?>
<!DOCTYPE coverage SYSTEM 'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>
<coverage><packages><package><classes><class filename="a.c"><lines><line number="1" hits="1"/></lines></class></classes></package></packages></coverage>`,
			files: []decide.FileCoverage{{Path: "a.c", Covered: 1, Total: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadCobertura("cobertura.xml", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.files, got.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCoberturaErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "cobertura.xml:1: no <coverage> element"},
		{"another root element", "<report/>", "cobertura.xml:1: root element <report>: want <coverage>"},
		{"a class without filename", "<coverage><class/></coverage>", "cobertura.xml:1: <class> without a filename"},
		{"a negative hit count", `<coverage><class filename="a"><lines><line number="1" hits="-2"/></lines></class></coverage>`, `cobertura.xml:1: <line number="1"> hits "-2": negative count`},
		{"a bad line number", `<coverage><class filename="a"><lines><line number="x" hits="2"/></lines></class></coverage>`, `cobertura.xml:1: <line> number "x"`},
		{"mismatched tags", "<coverage>\n<class filename=\"a\"></lines></coverage>", "cobertura.xml:2: malformed XML"},
		{"a truncated file", "<coverage>\n<class filename=\"a\">", "cobertura.xml:2: malformed XML: unexpected EOF"},
		{"an internal DTD subset", `<!DOCTYPE coverage [<!ENTITY x "y">]><coverage/>`, "cobertura.xml:1: refused XML"},
		{"an entity of an external DTD", `<!DOCTYPE coverage SYSTEM "file:///etc/passwd"><coverage>&passwd;</coverage>`, "cobertura.xml:1: malformed XML"},
		{"an undeclared entity", `<coverage>&x;</coverage>`, "cobertura.xml:1: malformed XML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadCobertura("cobertura.xml", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}

const jacocoHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">`

func TestReadJaCoCo(t *testing.T) {
	t.Parallel()
	in := jacocoHead + `<report name="r"><sessioninfo id="x" start="1" dump="2"/>
<group name="g"><package name="org/x"><class name="org/x/A"><counter type="LINE" missed="100" covered="100"/></class>
<sourcefile name="A.java"><line nr="1" mi="0" ci="3" mb="0" cb="0"/><counter type="INSTRUCTION" missed="1" covered="2"/><counter type="LINE" missed="1" covered="3"/></sourcefile>
<counter type="LINE" missed="1" covered="3"/></package></group>
<package name=""><sourcefile name="B.java"><counter type="LINE" missed="2" covered="0"/></sourcefile></package>
<counter type="LINE" missed="3" covered="3"/></report>`
	got, err := ReadJaCoCo("jacoco.xml", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &decide.CoverageFacts{Format: "jacoco", Covered: 3, Total: 6, Files: []decide.FileCoverage{
		{Path: "org/x/A.java", Covered: 3, Total: 4}, {Path: "B.java", Covered: 0, Total: 2},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadJaCoCoErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "jacoco.xml:1: no <report> element"},
		{"another root element", "<coverage/>", "jacoco.xml:1: root element <coverage>: want <report>"},
		{"a DOCTYPE with an internal subset", `<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd" [<!ENTITY x "y">]><report/>`, "jacoco.xml:1: refused XML"},
		{"a SYSTEM DOCTYPE declaring an entity", `<!DOCTYPE report SYSTEM "http://evil/x.dtd" [<!ENTITY x SYSTEM "file:///etc/passwd">]><report>&x;</report>`, "jacoco.xml:1: refused XML"},
		{"two DOCTYPEs", jacocoHead + `<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report/>`, "jacoco.xml:1: refused XML"},
		{"a negative counter", jacocoHead + `<report><package name="p"><sourcefile name="A.java"><counter type="LINE" missed="-1" covered="2"/></sourcefile></package></report>`, `jacoco.xml:1: <counter> missed "-1": want a non-negative integer`},
		{"a non-numeric line count", "<report><package name=\"p\"><sourcefile name=\"A.java\">\n<line nr=\"1\" mi=\"x\" ci=\"1\"/></sourcefile></package></report>", `jacoco.xml:2: <line> mi "x": want a non-negative integer`},
		{"a non-numeric line number", `<report><package name="p"><sourcefile name="A.java"><line nr="trash"/></sourcefile></package></report>`, `jacoco.xml:1: <line> nr "trash": want a non-negative integer`},
		{"a non-numeric branch count", `<report><package name="p"><sourcefile name="A.java"><line nr="1" mi="0" ci="1" mb="0" cb="two"/></sourcefile></package></report>`, `jacoco.xml:1: <line> cb "two": want a non-negative integer`},
		{"an empty ci", `<report><package name="p"><sourcefile name="A.java"><line nr="1" mi="0" ci=""/></sourcefile></package></report>`, `jacoco.xml:1: <line> ci "": want a non-negative integer`},
		{"a truncated report", jacocoHead + "<report>\n<package name=\"p\">", "jacoco.xml:2: malformed XML: unexpected EOF"},
		{"a sourcefile without a name", "<report><package><sourcefile/></package></report>", "jacoco.xml:1: <sourcefile> without a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadJaCoCo("jacoco.xml", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}

func TestReadJaCoCoLinesAndClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want *decide.CoverageFacts
	}{
		{
			name: "a source file without a LINE counter is counted from its lines",
			in: `<report><package name="p"><sourcefile name="A.java"><line nr="3" mi="0" ci="2"/><line nr="4" mi="5" ci="0"/><line nr="5" mi="1" ci="1"/><line nr="6" mi="0" ci="0"/></sourcefile>
<sourcefile name="B.java"><line nr="1" mi="9" ci="9"/><counter type="LINE" missed="3" covered="4"/></sourcefile></package></report>`,
			want: &decide.CoverageFacts{Format: "jacoco", Covered: 6, Total: 10, Files: []decide.FileCoverage{
				{Path: "p/A.java", Covered: 2, Total: 3}, {Path: "p/B.java", Covered: 4, Total: 7},
			}},
		},
		{
			name: "lines without mi and ci are read through the source file's LINE counter",
			in: `<report name="GCOVR report"><package name=""><sourcefile name="main.cpp"><line nr="6"/><line nr="7"/><line nr="27" mb="1" cb="1"/>
<counter type="LINE" missed="1" covered="2"/><counter type="BRANCH" missed="1" covered="1"/></sourcefile><counter type="LINE" missed="1" covered="2"/></package></report>`,
			want: &decide.CoverageFacts{Format: "jacoco", Covered: 2, Total: 3, Files: []decide.FileCoverage{{Path: "main.cpp", Covered: 2, Total: 3}}},
		},
		{
			name: "a line without mi and ci and no LINE counter counts nothing",
			in:   `<report name="Example"><package name="org/example"><sourcefile name="Example.java"><line nr="42"/></sourcefile></package></report>`,
			want: &decide.CoverageFacts{Format: "jacoco", Files: []decide.FileCoverage{{Path: "org/example/Example.java"}}},
		},
		{
			name: "a line with only ci is covered, one with only mi is not",
			in:   `<report><package name="p"><sourcefile name="A.java"><line nr="1" ci="2"/><line nr="2" mi="3"/><line nr="3" mb="1"/></sourcefile></package></report>`,
			want: &decide.CoverageFacts{Format: "jacoco", Covered: 1, Total: 2, Files: []decide.FileCoverage{{Path: "p/A.java", Covered: 1, Total: 2}}},
		},
		{
			name: "without source files the class counters count, summed per file",
			in: `<!DOCTYPE coverage SYSTEM 'https://www.jacoco.org/jacoco/trunk/coverage/report.dtd'>
<report><package name=""><class name="a" sourcefilename="./a.c"><lines><line nr="1"/></lines><counter type="LINE" missed="1" covered="2"/></class>
<class name="a2" sourcefilename="./a.c"><counter type="LINE" missed="0" covered="1"/><counter type="BRANCH" missed="9" covered="9"/></class>
<counter type="LINE" missed="1" covered="3"/></package><counter type="LINE" missed="1" covered="3"/></report>`,
			want: &decide.CoverageFacts{Format: "jacoco", Covered: 3, Total: 4, Files: []decide.FileCoverage{{Path: "a.c", Covered: 3, Total: 4}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadJaCoCo("jacoco.xml", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// gcovr's JaCoCo output (testdata/jacoco/gcovr.xml, from gcovr's own test
// references) has a SYSTEM DOCTYPE naming another root and no <sourcefile>.
func TestReadJaCoCoGcovr(t *testing.T) {
	t.Parallel()
	facts, err := ReadJaCoCo("gcovr.xml", bytes.NewReader(readFixture(t, "jacoco/gcovr.xml")))
	if err != nil {
		t.Fatal(err)
	}
	want := &decide.CoverageFacts{Format: "jacoco", Covered: 7, Total: 11, Files: []decide.FileCoverage{{Path: "main.cpp", Covered: 7, Total: 11}}}
	if diff := cmp.Diff(want, facts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

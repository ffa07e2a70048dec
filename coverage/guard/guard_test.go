package guard

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func f(v float64) *float64 { return &v }

// improved are metrics where coverage rose.
var improved = Metrics{CoverageBefore: f(60), CoverageAfter: f(65), PassRateBefore: f(1), PassRateAfter: f(1)}

func added(path, content string) Change {
	return Change{Path: path, New: []byte(content), NewExists: true}
}

func modified(path, old, new string) Change {
	return Change{Path: path, Old: []byte(old), New: []byte(new), OldExists: true, NewExists: true}
}

func deleted(path, old string) Change {
	return Change{Path: path, Old: []byte(old), OldExists: true}
}

func facts(cases ...decide.TestCase) *decide.TestFacts {
	t := &decide.TestFacts{Cases: cases}
	for _, c := range cases {
		switch c.Status {
		case decide.Passed:
			t.Passed++
		case decide.Failed:
			t.Failed++
		case decide.Skipped:
			t.Skipped++
		}
	}
	return t
}

func tc(name string, s decide.TestStatus) decide.TestCase {
	return decide.TestCase{Name: name, File: "a_test.go", Status: s}
}

const goTest = "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n"

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		changes      []Change
		before       *decide.TestFacts
		after        *decide.TestFacts
		metrics      Metrics
		opts         Options
		want         []Violation
		wantAccepted []string
		wantNotes    []string
	}{
		{
			name:         "a new test file that raises coverage is accepted",
			changes:      []Change{added("a/a_test.go", goTest)},
			before:       facts(tc("TestOld", decide.Passed)),
			after:        facts(tc("TestOld", decide.Passed), tc("TestA", decide.Passed)),
			metrics:      improved,
			wantAccepted: []string{"a/a_test.go"},
		},
		{
			name: "tests in several languages are accepted",
			changes: []Change{
				added("web/__tests__/a.js", "test('a', () => {})\n"),
				added("py/tests/test_a.py", "def test_a():\n    assert True\n"),
				added("core/src/test/java/ATest.java", "class ATest {}\n"),
				added("a/testdata/in.json", "{}\n"),
			},
			metrics:      improved,
			wantAccepted: []string{"a/testdata/in.json", "core/src/test/java/ATest.java", "py/tests/test_a.py", "web/__tests__/a.js"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "an edited source file is refused at its first changed line",
			changes: []Change{added("a/a_test.go", goTest), modified("a/a.go", "package a\n\nfunc A() int { return 0 }\n", "package a\n\nfunc A() int { return 1 }\n")},
			metrics: improved,
			want: []Violation{
				{Kind: NonTestFile, File: "a/a.go", Line: 3, Detail: "modified; not a test file (no test pattern matches)"},
			},
			wantAccepted: []string{"a/a_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a deleted source file is refused",
			changes: []Change{deleted("main.go", "package main\n")},
			metrics: improved,
			want: []Violation{
				{Kind: NonTestFile, File: "main.go", Detail: "deleted; not a test file (no test pattern matches)"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a workflow file is refused even when it matches a test pattern",
			changes: []Change{added(".github/workflows/x.yml", "on: push\n"), added(".github/tests/a_test.go", goTest), added("tests/../.GitHub/x", "")},
			metrics: improved,
			want: []Violation{
				{Kind: WorkflowFile, File: ".GitHub/x", Detail: "added under .github/; a coverage round may not touch workflows or repository settings"},
				{Kind: WorkflowFile, File: ".github/tests/a_test.go", Line: 1, Detail: "added under .github/; a coverage round may not touch workflows or repository settings"},
				{Kind: WorkflowFile, File: ".github/workflows/x.yml", Line: 1, Detail: "added under .github/; a coverage round may not touch workflows or repository settings"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "an added t.Skip is refused at its new line",
			changes: []Change{modified("a_test.go", goTest, "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tt.Skip(\"flaky\")\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a_test.go", Line: 6, Detail: `added ".Skip(": t.Skip("flaky")`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "a marker already present is not the change's fault",
			changes:      []Change{modified("a_test.go", "func TestA(t *testing.T) {\n\tt.Skip(\"x\")\n}\n", "func TestA(t *testing.T) {\n\tt.Skip(\"x\")\n}\n\nfunc TestB(t *testing.T) {}\n")},
			metrics:      improved,
			wantAccepted: []string{"a_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a marker moved within a file is an added line, refused",
			changes: []Change{modified("a.test.ts", "it.skip('a', f)\nit('b', g)\n", "it('b', g)\nit('c', h)\n  it.skip('a', f)\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a.test.ts", Line: 3, Detail: `added ".skip(": it.skip('a', f)`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a marker swap between tests (one removed, one added) is refused",
			changes: []Change{modified("a_test.go", "func TestA(t *testing.T) {\n\tt.Skip(\"x\")\n}\n\nfunc TestB(t *testing.T) {\n}\n", "func TestA(t *testing.T) {\n}\n\nfunc TestB(t *testing.T) {\n\tt.Skip(\"x\")\n}\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a_test.go", Line: 5, Detail: `added ".Skip(": t.Skip("x")`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a marker swap across kinds (xit removed, .skip added) is refused",
			changes: []Change{modified("a.test.js", "xit('a', () => {})\nit('b', () => {})\n", "it('a', () => {})\nit.skip('b', () => {})\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a.test.js", Line: 2, Detail: `added ".skip(": it.skip('b', () => {})`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a marker carried by a rename is scanned like any added line",
			changes: []Change{deleted("old_test.go", "func TestA(t *testing.T) {\n\tt.Skip(\"x\")\n}\n"), added("new_test.go", "func TestA(t *testing.T) {\n\tt.Skip(\"x\")\n}\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "new_test.go", Line: 2, Detail: `added ".Skip(": t.Skip("x")`},
			},
			wantAccepted: []string{"old_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "rewording an existing skip's reason is an added line, refused",
			changes: []Change{modified("a_test.go", "\tt.Skip(\"x\")\n", "\tt.Skip(\"y\")\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a_test.go", Line: 1, Detail: `added ".Skip(": t.Skip("y")`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a NUL byte late in a file is refused",
			changes: []Change{modified("a_test.go", goTest, goTest+strings.Repeat("// pad\n", 2000)+"\x00\nfunc TestB(t *testing.T) { t.Skip() }\n")},
			metrics: improved,
			want: []Violation{
				{Kind: BinaryFile, File: "a_test.go", Detail: "modified; holds a NUL byte, so its lines cannot be judged"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a NUL byte early in a file does not switch the scan off: the file is refused",
			changes: []Change{modified("a_test.go", goTest, "// \x00\n"+goTest+"func TestB(t *testing.T) { t.Skip() }\n")},
			metrics: improved,
			want: []Violation{
				{Kind: BinaryFile, File: "a_test.go", Detail: "modified; holds a NUL byte, so its lines cannot be judged"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a symbolic link is refused",
			changes: []Change{{Path: "testdata/link", New: []byte("../../etc/passwd"), NewExists: true, NewMode: "120000"}},
			metrics: improved,
			want: []Violation{
				{Kind: FileMode, File: "testdata/link", Detail: "a symbolic link after the change; links and submodules are never test-only"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a submodule is refused",
			changes: []Change{{Path: "testdata/sub", Old: []byte("Subproject commit 1\n"), New: []byte("Subproject commit 2\n"), OldExists: true, NewExists: true, OldMode: "160000", NewMode: "160000"}},
			metrics: improved,
			want: []Violation{
				{Kind: FileMode, File: "testdata/sub", Detail: "a submodule after the change; links and submodules are never test-only"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a mode change alone is refused",
			changes: []Change{{Path: "a_test.go", Old: []byte(goTest), New: []byte(goTest), OldExists: true, NewExists: true, OldMode: "100644", NewMode: "100755"}},
			metrics: improved,
			want: []Violation{
				{Kind: FileMode, File: "a_test.go", Detail: "mode changed from 100644 to 100755"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a test file under a directory named like a test is not a test",
			changes: []Change{added("x_test.go/evil.go", "package evil\n")},
			metrics: improved,
			want: []Violation{
				{Kind: NonTestFile, File: "x_test.go/evil.go", Line: 1, Detail: "added; not a test file (no test pattern matches)"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a second skip added beside an existing one is refused",
			changes: []Change{modified("a_test.py", "@pytest.mark.skip\ndef test_a(): pass\n", "@pytest.mark.skip\ndef test_a(): pass\n@pytest.mark.skipif(True, reason='x')\ndef test_b(): pass\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a_test.py", Line: 3, Detail: `added "@pytest.mark.skip", "skipif": @pytest.mark.skipif(True, reason='x')`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a line with two markers names both",
			changes: []Change{added("a.test.ts", "// @ts-ignore eslint-disable-line\nconst x = y as any;\n")},
			metrics: improved,
			want: []Violation{
				{Kind: ForbiddenMarker, File: "a.test.ts", Line: 1, Detail: `added "@ts-ignore", "eslint-disable": // @ts-ignore eslint-disable-line`},
				{Kind: ForbiddenMarker, File: "a.test.ts", Line: 2, Detail: `added "as any": const x = y as any;`},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "exit( in a new test file is no marker",
			changes:      []Change{added("test_a.py", "import sys\nsys.exit(0)\n")},
			metrics:      improved,
			wantAccepted: []string{"test_a.py"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "an empty marker list disables the marker check",
			changes:      []Change{added("a_test.go", "t.Skip()\n")},
			metrics:      improved,
			opts:         Options{Markers: []string{}},
			wantAccepted: []string{"a_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "custom patterns replace the defaults",
			changes: []Change{added("spec/a_spec.rb", "x\n"), added("a_test.go", goTest)},
			metrics: improved,
			opts:    Options{Patterns: []string{"spec/**"}},
			want: []Violation{
				{Kind: NonTestFile, File: "a_test.go", Line: 1, Detail: "added; not a test file (no test pattern matches)"},
			},
			wantAccepted: []string{"spec/a_spec.rb"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a file with a NUL byte is refused",
			changes: []Change{added("testdata/blob.bin", "\x00t.Skip(\n")},
			metrics: improved,
			want: []Violation{
				{Kind: BinaryFile, File: "testdata/blob.bin", Detail: "added; holds a NUL byte, so its lines cannot be judged"},
			},
			wantNotes: []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "an unchanged file is no change",
			changes:      []Change{modified("main.go", "x\n", "x\n"), {Path: "ghost.go"}},
			metrics:      improved,
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
			wantAccepted: nil,
		},
		{
			name:    "a test that passed before and is missing after is lost",
			changes: []Change{deleted("a_test.go", goTest)},
			before:  facts(tc("TestA", decide.Passed), tc("TestB", decide.Failed)),
			after:   facts(tc("TestB", decide.Passed)),
			metrics: improved,
			want: []Violation{
				{Kind: TestLost, File: "a_test.go", Detail: "TestA passed before and is missing after"},
				{Kind: TestRemoved, File: "a_test.go", Detail: "test TestA (declared at line 5 before the change) is gone"},
			},
		},
		{
			name:    "a test that passed before and is skipped after is lost",
			changes: []Change{added("b_test.go", goTest)},
			before:  facts(tc("TestA", decide.Passed)),
			after:   facts(tc("TestA", decide.Skipped), tc("TestB", decide.Passed)),
			metrics: improved,
			want: []Violation{
				{Kind: TestLost, File: "a_test.go", Detail: "TestA passed before and is skipped after"},
			},
			wantAccepted: []string{"b_test.go"},
		},
		{
			name:    "a test that passed before and fails after is broken",
			changes: []Change{added("b_test.go", goTest)},
			before:  facts(tc("TestA", decide.Passed), tc("TestC", decide.Skipped)),
			after:   facts(tc("TestA", decide.Failed), tc("TestA", decide.Passed)),
			metrics: improved,
			want: []Violation{
				{Kind: TestBroken, File: "a_test.go", Detail: "TestA passed before and fails after"},
			},
			wantAccepted: []string{"b_test.go"},
		},
		{
			name:    "neither metric improved is refused",
			changes: []Change{added("b_test.go", goTest)},
			metrics: Metrics{CoverageBefore: f(60), CoverageAfter: f(60), PassRateBefore: f(0.9), PassRateAfter: f(0.8)},
			want: []Violation{
				{Kind: NoImprovement, Detail: "coverage 60.0% -> 60.0%, pass rate 0.90 -> 0.80: not improved"},
			},
			wantAccepted: []string{"b_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "a better pass rate alone is an improvement",
			changes:      []Change{added("b_test.go", goTest)},
			metrics:      Metrics{CoverageBefore: f(60), CoverageAfter: f(59), PassRateBefore: f(0.5), PassRateAfter: f(0.75)},
			wantAccepted: []string{"b_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:    "a metric known on one side only is not comparable",
			changes: []Change{added("b_test.go", goTest)},
			metrics: Metrics{CoverageAfter: f(90), PassRateBefore: f(1), PassRateAfter: f(1)},
			want: []Violation{
				{Kind: NoImprovement, Detail: "pass rate 1.00 -> 1.00: not improved"},
			},
			wantAccepted: []string{"b_test.go"},
			wantNotes:    []string{"no test report before or after: lost and broken tests not checked"},
		},
		{
			name:         "no comparable metric skips the improvement rule with a note",
			changes:      []Change{added("b_test.go", goTest)},
			metrics:      Metrics{CoverageBefore: f(50)},
			wantAccepted: []string{"b_test.go"},
			wantNotes: []string{
				"no test report before or after: lost and broken tests not checked",
				"neither coverage nor pass rate known before and after: improvement not checked",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Check(tt.changes, tt.before, tt.after, tt.metrics, tt.opts)
			if diff := cmp.Diff(tt.want, got.Violations); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAccepted, got.Accepted); diff != "" {
				t.Errorf("accepted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNotes, got.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if got.OK() != (len(tt.want) == 0) {
				t.Errorf("OK() = %v with %d violations", got.OK(), len(got.Violations))
			}
		})
	}
}

func TestViolationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    Violation
		want string
	}{
		{"file and line", Violation{Kind: ForbiddenMarker, File: "a_test.go", Line: 6, Detail: `added "t.Skip"`}, `a_test.go:6: forbidden_marker: added "t.Skip"`},
		{"file without line", Violation{Kind: NonTestFile, File: "main.go", Detail: "deleted"}, "main.go: non_test_file: deleted"},
		{"no file", Violation{Kind: NoImprovement, Detail: "coverage 1.0% -> 1.0%: not improved"}, "no_improvement: coverage 1.0% -> 1.0%: not improved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

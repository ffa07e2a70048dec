package guard

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// FuzzCheck runs the guard over arbitrary old and new contents. Properties:
// it never panics, every violation's line lies within the new file, and the
// line diff keeps equal sequences of lines on both sides.
func FuzzCheck(f *testing.F) {
	f.Add("a_test.go", []byte(goTest), []byte("package a\n\nfunc TestA(t *testing.T) {\n\tt.Skip()\n}\n"))
	f.Add("a.test.ts", []byte("it('a', f)\n"), []byte("it.only('a', f)\nconst x = y as any\n// @ts-ignore\n"))
	f.Add("main.go", []byte(""), []byte("package main\n"))
	f.Add(".github/workflows/x.yml", []byte("on: push\n"), []byte("on: pull_request\n"))
	f.Add("x/tests/test_a.py", []byte("@pytest.mark.skip\r\ndef test_a(): pass\r\n"), []byte("def test_a(): pass\n@pytest.mark.skip\n"))
	f.Add("testdata/b.bin", []byte("\x00\x01"), []byte("\x00t.Skip("))
	f.Add("a_test.go", []byte("}\n}\n}\n"), []byte("}\n\n}\nxit(\n}\n"))
	f.Fuzz(func(t *testing.T, name string, old, new []byte) {
		changes := []Change{
			{Path: name, Old: old, New: new, OldExists: len(old) > 0, NewExists: true},
			{Path: "moved_" + name, Old: new, OldExists: true},
		}
		before := &decide.TestFacts{Cases: []decide.TestCase{{Name: string(old), Status: decide.Passed}}}
		after := &decide.TestFacts{Cases: []decide.TestCase{{Name: string(new), Status: decide.Failed}}}
		res := Check(changes, before, after, Metrics{CoverageBefore: f64(1), CoverageAfter: f64(2)}, Options{})
		lines := len(splitLines(new))
		for _, v := range res.Violations {
			if v.Kind == ForbiddenMarker && (v.Line < 1 || v.Line > lines) {
				t.Fatalf("violation %v outside the %d new lines", v, lines)
			}
			_ = v.String()
		}
		checkDiff(t, splitLines(old), splitLines(new), false)
	})
}

func f64(v float64) *float64 { return &v }

// FuzzMatch matches arbitrary patterns, paths and marker lines. Properties:
// no panic; a pattern that matches a path also matches it below a new
// directory unless anchored; ValidatePattern accepts what Match can use.
func FuzzMatch(f *testing.F) {
	for _, p := range DefaultPatterns {
		f.Add(p, "a/b/"+p, "t.Skip(")
	}
	f.Add("/tests/**", "tests/x.py", "xit(")
	f.Add("src/**/it/*.go", "src/a/it/b.go", "y as any;")
	f.Add("[", "[", "@Disabled")
	f.Add("**/**/**", "a", "")
	f.Add("a\\", "./a", "it.only(")
	f.Fuzz(func(t *testing.T, pattern, name, line string) {
		m := Match(pattern, name)
		if m && ValidatePattern(pattern) != nil {
			t.Fatalf("Match(%q, %q) true for an invalid pattern", pattern, name)
		}
		if m && len(pattern) > 0 && pattern[0] != '/' && !Match(pattern, "zz/"+name) {
			t.Fatalf("Match(%q, %q) true but not below zz/", pattern, name)
		}
		for _, mk := range DefaultMarkers {
			_ = MarkerHit(mk, name, line)
		}
		_ = MarkerHit(pattern, name, line)
	})
}

// FuzzParseRaw parses arbitrary "git diff --raw -z" output. Properties: no
// panic; every record read has its path and written back parses to the
// same records.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte(":100644 100644 " + zeroOID + " " + zeroOID + " M\x00a_test.go\x00"))
	f.Add([]byte(":000000 120000 " + zeroOID + " 1111111111111111111111111111111111111111 A\x00testdata/link\x00:160000 160000 a b M\x00sub\x00"))
	f.Add([]byte(":100644 100755 x y M\x00"))
	f.Add([]byte("garbage\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := parseRaw(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		var out bytes.Buffer
		for _, e := range es {
			fmt.Fprintf(&out, ":%s %s %s %s M\x00%s\x00", e.oldMode, e.newMode, e.oldOID, e.newOID, e.path)
		}
		again, err := parseRaw(out.Bytes())
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(again) != len(es) {
			t.Fatalf("%d records, %d after a round trip", len(es), len(again))
		}
	})
}

// FuzzDecls analyzes arbitrary contents in every language. Properties: no
// panic; every declaration's line lies in the file; its counts are within
// the file's lines; Check over the content as a change never panics.
func FuzzDecls(f *testing.F) {
	f.Add("a_test.go", []byte("func TestA(t *testing.T) {\n\treturn\n\tt.Error(`}`)\n}\n"))
	f.Add("a.test.ts", []byte("it('a', () => { expect(1).toBe(1) })\nit.each([1])(\"b\", () => {\n"))
	f.Add("test_a.py", []byte("def test_a(\n    x,\n):\n    return\n    assert x\n"))
	f.Add("ATest.java", []byte("@Test void a() { assertTrue(x); }\n@Test\n"))
	f.Add("a.rs", []byte("#[test]\nfn a() { let c = '{'; assert!(true); }\n"))
	f.Add("A.cs", []byte("[Fact] public void A() { Assert.True(x); }\n"))
	f.Add("a_spec.rb", []byte("it 'a' do\n  next\n  expect(1).to eq(1)\nend\n"))
	f.Fuzz(func(t *testing.T, name string, content []byte) {
		lines := splitLines(content)
		for _, d := range declsOf(langOf(name), lines) {
			if d.line < 1 || d.line > len(lines) || d.asserts < 0 || d.asserts > len(lines) || d.earlyReturns < 0 || d.earlyReturns > len(lines) {
				t.Fatalf("declaration %+v outside the %d lines", d, len(lines))
			}
		}
		_ = Check([]Change{{Path: name, Old: content, OldExists: true}, {Path: "b/" + name, New: content, NewExists: true}}, nil, nil, Metrics{}, Options{})
	})
}

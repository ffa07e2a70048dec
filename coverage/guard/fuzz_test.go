package guard

import (
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

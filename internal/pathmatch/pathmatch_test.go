package pathmatch

import (
	"errors"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestCompileMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*_test.go", "foo_test.go", true},
		{"*_test.go", "a/b/foo_test.go", true},
		{"*_test.go", "x_test.go/evil.go", false},
		{"testdata/**", "a/testdata/x/y.json", true},
		{"testdata/**", "a/testdata", false},
		{"testdata/**", "a/mytestdata/x", false},
		{"/tests/**", "tests/a.py", true},
		{"/tests/**", "pkg/tests/a.py", false},
		{"fixtures/", "fixtures/a/b.json", true},
		{"fixtures/", "fixtures", false},
		{"tests", "pkg/tests", true},
		{"tests", "pkg/tests/a", false},
		{"src/**/it/*.go", "src/it/x.go", true},
		{"src/**/it/*.go", "src/a/b/it/x.go", true},
		{"src/**/**/it/*.go", "src/it/x.go", true},
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"a/**/b/**", "a/b", false},
		{"a/**/b/**", "a/x/b/c", true},
		{"./x/*.go", "x/a.go", true},
		{"*.go", "./a/./b.go", true},
		{"*.go", "", false},
		{"a**b.c", "axxb.c", true},
		{"a**b.c", "ax/xb.c", false},
		{"{a,b}.go", "a.go", false},
		{"{a,b}.go", "{a,b}.go", true},
		{"[!a]_test.go", "b_test.go", true},
		{"[!a]_test.go", "a_test.go", false},
		{"[^a]_test.go", "a_test.go", false},
		{"[]]x", "]x", true},
		{"[a-]x", "-x", true},
		{"[[:digit:]]x", "7x", true},
		{"[[:digit:]]x", "ax", false},
		{"\\*.go", "*.go", true},
		{"\\*.go", "a.go", false},
		{"é?", "éa", true},
		{"[é]", "é", true},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.Match(tt.path); got != tt.want {
			t.Errorf("%q (%s) on %q = %v, want %v", tt.pattern, p.glob, tt.path, got, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    error
	}{
		{"", ErrEmpty},
		{"//", ErrEmpty},
		{"./", ErrEmpty},
		{"src/[a", ErrMalformed},
		{`x\`, ErrMalformed},
		{"[[:nope:]]", ErrMalformed},
		{"[a-\\", ErrMalformed},
		{"[!", ErrMalformed},
	}
	for _, tt := range tests {
		if _, err := Compile(tt.pattern); !errors.Is(err, tt.want) {
			t.Errorf("Compile(%q) = %v, want %v", tt.pattern, err, tt.want)
		}
	}
	var zero Pattern
	if zero.Match("a") {
		t.Error("the zero Pattern matched")
	}
}

func TestSegment(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"*.go", "*.go"},
		{"a**b", "a*b"},
		{"{x,y}", `\{x\,y\}`},
		{"[abc]", `[\a\b\c]`},
		{"[!a-c]", `[^\a-\c]`},
		{"[]]", `[\]]`},
		{"[\\]-\\^]", `[\]-\^]`},
		{"[[:upper:]]", `[\A-\Z]`},
		{"[[:punct:]]", "[\\!-\\/\\:-\\@\\[-\\`\\{-\\~]"},
		{"[é-ü]", "[é-ü]"},
		{`\[`, `\[`},
	}
	for _, tt := range tests {
		got, ok := Segment(tt.in)
		if !ok || got != tt.want {
			t.Errorf("Segment(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// FuzzSegment: a segment that translates is a valid doublestar pattern,
// and matching any name with it neither panics nor errs.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"*.go", "[!a-c]x", "[]]", "[[:punct:]]", `\`, "[", "{a,b}", "é[é-ü]?", "a**b", `[\]-\^]`} {
		f.Add(s, "name")
	}
	f.Fuzz(func(t *testing.T, seg, name string) {
		d, ok := Segment(seg)
		if !ok {
			return
		}
		if !doublestar.ValidatePattern(d) {
			t.Fatalf("Segment(%q) = %q: not a valid doublestar pattern", seg, d)
		}
		if _, err := doublestar.Match(d, name); err != nil {
			t.Fatalf("Segment(%q) = %q on %q: %v", seg, d, name, err)
		}
	})
}

// FuzzCompile: any pattern compiles or is refused without panicking, and
// a compiled one matches any path without panicking.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"*_test.go", "/tests/**", "fixtures/", "a/**/b", "**", "[", `\`, "//"} {
		f.Add(s, "a/b/c_test.go")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		p.Match(name)
	})
}

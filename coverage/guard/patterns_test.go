package guard

import (
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pattern string
		path    string
		want    bool
	}{
		{"a Go test file at the root matches", "*_test.go", "foo_test.go", true},
		{"a Go test file deep in the tree matches", "*_test.go", "src/foo_test.go", true},
		{"a Go source file does not match", "*_test.go", "src/foo.go", false},
		{"a file named like the suffix only still matches", "*_test.go", "_test.go", true},
		{"testdata at the root matches", "testdata/**", "testdata/x.json", true},
		{"testdata at any depth matches", "testdata/**", "a/testdata/x/y.json", true},
		{"a file named testdata does not match testdata/**", "testdata/**", "a/testdata", false},
		{"a directory merely containing testdata in its name does not match", "testdata/**", "a/mytestdata/x.json", false},
		{"jest's __tests__ matches", "__tests__/**", "web/__tests__/a.js", true},
		{"tests at any depth matches", "tests/**", "pkg/tests/x.py", true},
		{"mytests is not tests", "tests/**", "mytests/x.go", false},
		{"tests-helpers is not tests", "tests/**", "tests-helpers/x.go", false},
		{"a .test. file matches", "*.test.*", "foo.test.ts", true},
		{"a nested .test. file matches", "*.test.*", "web/src/foo.test.tsx", true},
		{"a file ending in .test has no extension after it", "*.test.*", "foo.test", false},
		{"a .spec. file matches", "*.spec.*", "app/foo.spec.js", true},
		{"a pytest file with prefix matches", "test_*.py", "pkg/test_api.py", true},
		{"a pytest file with suffix matches", "*_test.py", "pkg/api_test.py", true},
		{"a Python source file does not match", "test_*.py", "pkg/api.py", false},
		{"Maven test sources match", "src/test/**", "src/test/java/a/FooTest.java", true},
		{"Maven test sources of a submodule match", "src/test/**", "core/src/test/java/FooTest.java", true},
		{"Maven main sources do not match", "src/test/**", "src/main/java/Foo.java", false},
		{"an anchored pattern matches at the root", "/tests/**", "tests/a.py", true},
		{"an anchored pattern does not match deeper", "/tests/**", "pkg/tests/a.py", false},
		{"a bare directory name does not cover its contents", "tests", "pkg/tests/a/b.py", false},
		{"a bare name matches a file of that name", "tests", "pkg/tests", true},
		{"a file pattern does not match a directory on the way", "*_test.go", "x_test.go/evil.go", false},
		{"a file pattern does not match a deep directory on the way", "*_test.go", "a/x_test.go/b/evil.go", false},
		{"a .test. pattern does not match a directory on the way", "*.test.*", "a.test.d/evil.js", false},
		{"a pytest pattern does not match a directory on the way", "test_*.py", "test_x.py/evil.sh", false},
		{"a trailing slash covers nested contents", "fixtures/", "fixtures/a/b.json", true},
		{"a trailing slash covers the contents", "fixtures/", "fixtures/a.json", true},
		{"a double star in the middle spans directories", "src/**/it/*.go", "src/a/b/it/x.go", true},
		{"a double star in the middle spans zero directories", "src/**/it/*.go", "src/it/x.go", true},
		{"a star does not cross a slash", "src/*.go", "src/a/x.go", false},
		{"a question mark matches one character", "test?.py", "test1.py", true},
		{"a class matches", "[ab]_test.go", "x/b_test.go", true},
		{"matching is case-sensitive", "*_test.go", "FOO_TEST.GO", false},
		{"a leading ./ of the path is ignored", "*_test.go", "./a/x_test.go", true},
		{"an empty pattern matches nothing", "", "a_test.go", false},
		{"a malformed pattern matches nothing", "[_test.go", "[_test.go", false},
		{"an empty path matches nothing", "*", "", false},
		{"a lone double star matches everything", "**", "a/b/c", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Match(tt.pattern, tt.path); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
			}
		})
	}
}

func TestDefaultPatterns(t *testing.T) {
	t.Parallel()
	pats := compilePatterns(nil)
	tests := []struct {
		path string
		want bool
	}{
		{"src/foo_test.go", true},
		{"a/testdata/x/y.json", true},
		{"web/__tests__/a.js", true},
		{"pkg/tests/x.py", true},
		{"foo.test.ts", true},
		{"mytests/x.go", false},
		{"main.go", false},
		{"README.md", false},
		{"src/main/java/Foo.java", false},
		{".github/workflows/ci.yml", false},
	}
	for _, tt := range tests {
		if got := matchAny(pats, splitPath(tt.path)); got != tt.want {
			t.Errorf("default patterns on %q = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestValidatePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pattern string
		wantErr bool
	}{
		{"a default pattern is valid", "*_test.go", false},
		{"an anchored pattern is valid", "/tests/**", false},
		{"an empty pattern is invalid", "", true},
		{"a pattern of slashes is invalid", "//", true},
		{"an unclosed class is invalid", "src/[a", true},
		{"a trailing backslash is invalid", `x\`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := ValidatePattern(tt.pattern); (err != nil) != tt.wantErr {
				t.Errorf("ValidatePattern(%q) = %v, want error %v", tt.pattern, err, tt.wantErr)
			}
		})
	}
}

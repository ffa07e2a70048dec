package guard

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/internal/pathmatch"
)

// DefaultPatterns are the test-path patterns of DESIGN §5.3, one or more per
// language: Go, JavaScript/TypeScript, Python and Maven/Gradle layouts.
var DefaultPatterns = []string{
	"*_test.go",
	"testdata/**",
	"*.test.*",
	"*.spec.*",
	"__tests__/**",
	"test_*.py",
	"*_test.py",
	"tests/**",
	"src/test/**",
}

// Match reports whether the slash-separated, repository-relative path name
// matches pattern. The semantics, close to .gitignore's:
//
//   - A pattern is a sequence of segments separated by "/". Within a
//     segment, "*" matches any run of characters except "/", "?" one such
//     character, and "[...]" a class as in .gitignore ("!" or "^" negates,
//     "[:digit:]" and the other POSIX classes); "\" escapes; braces are
//     literal. Matching goes through doublestar (internal/pathmatch).
//   - A segment that is exactly "**" matches zero or more whole segments;
//     a trailing "/**" matches one or more (everything inside a directory,
//     not the directory name itself).
//   - A pattern may match at any depth: "tests/**" matches "tests/a.py" and
//     "pkg/tests/a.py", "*_test.go" matches "src/foo_test.go". A leading
//     "/" anchors the pattern at the repository root instead
//     ("/tests/**" does not match "pkg/tests/a.py").
//   - A pattern matches the file's whole path, never a directory on the
//     way: "*_test.go" does not match "x_test.go/evil.go". Only a pattern
//     that says it spans directories reaches below one: a trailing "/**"
//     ("tests/**"), or a trailing "/" ("tests/" means "tests/**"). A bare
//     "tests" matches a file named tests only.
//   - Segments are whole: "tests/**" does not match "mytests/a.go", and
//     "*.test.*" does not match "foo.test" (the final "*" needs a "."
//     before it, which "foo.test" has not).
//   - Matching is case-sensitive, like Git paths on Linux. A leading "./"
//     of the path is ignored. An empty or malformed pattern (see
//     ValidatePattern) matches nothing.
func Match(pattern, name string) bool {
	pat, err := pathmatch.Compile(pattern)
	return err == nil && pat.Match(name)
}

// ValidatePattern reports whether pattern is well-formed: not empty, and
// every segment a valid glob. Configuration readers call it so a typo is
// an error rather than a pattern that silently matches nothing.
func ValidatePattern(pattern string) error {
	switch _, err := pathmatch.Compile(pattern); {
	case errors.Is(err, pathmatch.ErrEmpty):
		return fmt.Errorf("test pattern %q is empty", pattern)
	case err != nil:
		return fmt.Errorf("test pattern %q is malformed (unbalanced [ ] or trailing \\)", pattern)
	}
	return nil
}

// pattern is a compiled test-path pattern.
type pattern = pathmatch.Pattern

// compilePattern compiles p; ok is false for an empty or malformed
// pattern.
func compilePattern(p string) (pattern, bool) {
	c, err := pathmatch.Compile(p)
	return c, err == nil
}

// splitPath cleans a repository-relative slash path into its segments.
func splitPath(name string) []string {
	name = pathmatch.Clean(strings.TrimPrefix(name, "./"))
	if name == "" {
		return nil
	}
	return strings.Split(name, "/")
}

// matchAny reports whether any of the patterns matches the path of
// segments names.
func matchAny(pats []pattern, names []string) bool {
	name := strings.Join(names, "/")
	for _, p := range pats {
		if p.Match(name) {
			return true
		}
	}
	return false
}

// compilePatterns compiles the test patterns, dropping malformed ones.
func compilePatterns(ps []string) []pattern {
	if ps == nil {
		ps = DefaultPatterns
	}
	var out []pattern
	for _, p := range ps {
		if c, ok := compilePattern(p); ok {
			out = append(out, c)
		}
	}
	return out
}

package guard

import (
	"fmt"
	"path"
	"strings"
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
//     character, and "[...]" a class, as in path.Match; "\" escapes.
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
	pat, ok := compilePattern(pattern)
	if !ok {
		return false
	}
	return pat.match(splitPath(name))
}

// ValidatePattern reports whether pattern is well-formed: not empty, and
// every segment valid for path.Match. Configuration readers call it so a
// typo is an error rather than a pattern that silently matches nothing.
func ValidatePattern(pattern string) error {
	if _, ok := compilePattern(pattern); !ok {
		if strings.Trim(pattern, "/") == "" {
			return fmt.Errorf("test pattern %q is empty", pattern)
		}
		return fmt.Errorf("test pattern %q is malformed (unbalanced [ ] or trailing \\)", pattern)
	}
	return nil
}

// pattern is a compiled test-path pattern.
type pattern struct {
	segs     []string // "**" for any depth
	anchored bool
}

// compilePattern splits p into segments; ok is false for an empty or
// malformed pattern.
func compilePattern(p string) (pattern, bool) {
	anchored := strings.HasPrefix(p, "/")
	dir := strings.HasSuffix(p, "/")
	p = strings.Trim(p, "/")
	if p == "" {
		return pattern{}, false
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." {
			continue
		}
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return pattern{}, false
			}
		}
		// Collapse runs of "**": they mean the same as one.
		if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return pattern{}, false
	}
	if dir && segs[len(segs)-1] != "**" {
		segs = append(segs, "**")
	}
	if !anchored && segs[0] != "**" {
		segs = append([]string{"**"}, segs...)
	}
	return pattern{segs: segs, anchored: anchored}, true
}

// splitPath cleans a repository-relative slash path into its segments.
func splitPath(name string) []string {
	name = strings.TrimPrefix(name, "./")
	name = strings.Trim(path.Clean("/"+name), "/")
	if name == "" {
		return nil
	}
	return strings.Split(name, "/")
}

// match reports whether the pattern matches the whole path of segments
// names.
func (p pattern) match(names []string) bool {
	if len(names) == 0 {
		return false
	}
	segs := p.segs
	// A trailing "**" needs at least one segment: "x/**" is "x/*/**".
	if segs[len(segs)-1] == "**" {
		segs = append(segs[:len(segs)-1:len(segs)-1], "*", "**")
	}
	// reach[j] reports whether the pattern prefix matched so far can end
	// after names[:j]. Dynamic programming keeps "**" linear in the number
	// of segments times the path depth.
	reach := make([]bool, len(names)+1)
	reach[0] = true
	for _, s := range segs {
		next := make([]bool, len(names)+1)
		if s == "**" {
			seen := false
			for j := range reach {
				seen = seen || reach[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < len(names); j++ {
				if reach[j] {
					if ok, _ := path.Match(s, names[j]); ok {
						next[j+1] = true
					}
				}
			}
		}
		reach = next
	}
	// The pattern must consume the whole path: a match ending on a
	// directory would let "x_test.go/evil.go" pass as a test.
	return reach[len(names)]
}

// matchAny reports whether any of the patterns matches name.
func matchAny(pats []pattern, names []string) bool {
	for _, p := range pats {
		if p.match(names) {
			return true
		}
	}
	return false
}

// Package pathmatch matches slash-separated, repository-relative paths
// against patterns: the test-path patterns of the coverage guard
// (Compile) and the rules of .gitignore files (Gitignore). Both go through
// github.com/bmatcuk/doublestar/v4; this package adds what Git's rules say
// and doublestar does not: anchoring, a trailing "/" for directories, a
// trailing "/**" for what is inside a directory only, negation, rules of
// nested files and the exclusion of a parent directory, Git's character
// classes, and literal braces.
package pathmatch

import (
	"errors"
	"path"
	"strings"
)

// Pattern is a compiled test-path pattern.
type Pattern struct {
	glob string // doublestar's syntax, matched against the whole path
}

// Errors of Compile.
var (
	ErrEmpty     = errors.New("empty pattern")
	ErrMalformed = errors.New("malformed pattern (unbalanced [ ] or trailing \\)")
)

// Compile compiles a test-path pattern:
//
//   - A pattern is a sequence of segments separated by "/", each a glob of
//     Git's syntax (see Segment): "*", "?", "[...]" classes, "\" escapes.
//   - A segment that is exactly "**" matches zero or more whole segments;
//     a trailing "/**" matches one or more (everything inside a directory,
//     not the directory name itself).
//   - A pattern matches at any depth unless a leading "/" anchors it at the
//     root.
//   - A pattern matches the whole path, never a directory on the way; a
//     trailing "/" means "/**".
//
// An empty pattern (only slashes) is ErrEmpty, a malformed one
// ErrMalformed.
func Compile(p string) (Pattern, error) {
	anchored := strings.HasPrefix(p, "/")
	dir := strings.HasSuffix(p, "/")
	p = strings.Trim(p, "/")
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return Pattern{}, ErrEmpty
	}
	if dir {
		segs = append(segs, "**")
	}
	if !anchored {
		segs = append([]string{"**"}, segs...)
	}
	glob, ok := join(segs)
	if !ok {
		return Pattern{}, ErrMalformed
	}
	return Pattern{glob: glob}, nil
}

// Match reports whether p matches the path name; a leading "./", "."
// segments and repeated slashes of name are ignored, and an empty name
// matches nothing.
func (p Pattern) Match(name string) bool {
	name = Clean(strings.TrimPrefix(name, "./"))
	return name != "" && p.glob != "" && match(p.glob, name)
}

// Clean cleans a slash-separated repository-relative path: no leading
// "/", no trailing "/", no "." or empty segments.
func Clean(name string) string {
	return strings.TrimPrefix(path.Clean("/"+name), "/")
}

// join translates pattern segments into one doublestar pattern: empty
// segments are dropped, runs of
// "**" collapse into one, a trailing "**" matches one or more segments
// ("*/**"), every other segment goes through Segment. ok
// is false when a segment is malformed or none is left.
func join(segs []string) (string, bool) {
	out := make([]string, 0, len(segs)+1)
	for _, s := range segs {
		if s == "" {
			continue
		}
		if s == "**" {
			if len(out) > 0 && out[len(out)-1] == "**" {
				continue
			}
			out = append(out, s)
			continue
		}
		d, ok := Segment(s)
		if !ok {
			return "", false
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return "", false
	}
	if n := len(out); out[n-1] == "**" {
		out = append(out[:n-1], "*", "**")
	}
	return strings.Join(out, "/"), true
}

package pathmatch

import (
	"bytes"
	"path"
	"sort"
	"strings"
)

// Gitignore decides, like Git, whether an untracked path is ignored by the
// .gitignore files of a repository (and its .git/info/exclude).
//
// Supported: blank lines and "#" comments ("\#" is a literal "#"), "!"
// negation ("\!" a literal "!"), trailing spaces trimmed unless escaped
// with "\", a CR before the line end dropped, a leading UTF-8 byte-order
// mark skipped, a trailing "/" for directories only, a "/" at the start or
// in the middle anchoring the pattern at the directory of its file (a
// pattern without one matches the name at any depth below it), "*", "?",
// "[...]" classes with ranges, "!" or "^" negation and the POSIX classes
// [:alnum:] [:alpha:] [:blank:] [:cntrl:] [:digit:] [:graph:] [:lower:]
// [:print:] [:punct:] [:space:] [:upper:] [:xdigit:], "\" escapes, and
// "**" as a whole segment ("**/x", "a/**/b", "a/**"); any other "**" is a
// plain "*". A deeper .gitignore overrides a shallower one, a later line an
// earlier one, and every .gitignore overrides .git/info/exclude. Nothing
// inside an ignored directory can be re-included.
//
// Not supported: core.excludesFile (the global ignore file), core.ignoreCase
// (matching is case-sensitive, as on Linux), and a "/" inside a "[...]"
// class (the pattern then matches nothing). Matching goes through
// doublestar, by UTF-8 character: "?" matches one character where Git
// matches one byte, which differs for names of non-ASCII characters only.
// Braces are literal, as in Git.
//
// The zero value ignores nothing. Gitignore is not safe for concurrent Add.
type Gitignore struct {
	sources []ignoreSource
}

type ignoreSource struct {
	base  string // directory of the file, "" for the root
	depth int    // precedence: deeper first; -1 for .git/info/exclude
	seq   int    // order of addition, for equal depths
	rules []ignoreRule
}

type ignoreRule struct {
	negate   bool
	dirOnly  bool
	basename bool   // no "/" in the pattern: match the last path segment
	glob     string // doublestar's syntax: the basename's or the whole relative path's
}

// Add reads the rules of the .gitignore file in directory dir
// (slash-separated, relative to the repository root, "" for the root).
func (g *Gitignore) Add(dir string, data []byte) {
	dir = Clean(dir)
	depth := 0
	if dir != "" {
		depth = strings.Count(dir, "/") + 1
	}
	g.add(ignoreSource{base: dir, depth: depth}, data)
}

// AddExclude reads the rules of .git/info/exclude: root-relative, and
// overridden by every .gitignore file.
func (g *Gitignore) AddExclude(data []byte) {
	g.add(ignoreSource{depth: -1}, data)
}

func (g *Gitignore) add(src ignoreSource, data []byte) {
	src.rules = parseIgnore(data)
	if len(src.rules) == 0 {
		return
	}
	src.seq = len(g.sources)
	g.sources = append(g.sources, src)
	sort.SliceStable(g.sources, func(i, j int) bool {
		if g.sources[i].depth != g.sources[j].depth {
			return g.sources[i].depth < g.sources[j].depth
		}
		return g.sources[i].seq < g.sources[j].seq
	})
}

// Ignored reports whether the slash-separated, repository-relative path
// name is ignored; isDir says whether it names a directory. A path is
// ignored when it, or one of its leading directories, is.
func (g *Gitignore) Ignored(name string, isDir bool) bool {
	if g == nil || len(g.sources) == 0 {
		return false
	}
	name = Clean(name)
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && g.Excluded(name[:i], true) {
			return true
		}
	}
	return g.Excluded(name, isDir)
}

// Excluded applies the rules to the clean path name alone, not to its
// parents: for a walk that asks of each directory before going in.
func (g *Gitignore) Excluded(name string, isDir bool) bool {
	if g == nil {
		return false
	}
	for i := len(g.sources) - 1; i >= 0; i-- {
		src := g.sources[i]
		rel := name
		if src.base != "" {
			if !strings.HasPrefix(name, src.base+"/") {
				continue
			}
			rel = name[len(src.base)+1:]
		}
		for j := len(src.rules) - 1; j >= 0; j-- {
			r := src.rules[j]
			if r.dirOnly && !isDir {
				continue
			}
			if r.matches(rel) {
				return !r.negate
			}
		}
	}
	return false
}

func (r ignoreRule) matches(rel string) bool {
	if r.basename {
		return match(r.glob, path.Base(rel))
	}
	return match(r.glob, rel)
}

// parseIgnore parses the lines of one ignore file.
func parseIgnore(data []byte) []ignoreRule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if line = trimTrailingSpaces(line); line == "" {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if !strings.Contains(line, "/") {
			glob, ok := Segment(line)
			if !ok {
				continue // a malformed pattern matches nothing
			}
			r.basename, r.glob = true, glob
			rules = append(rules, r)
			continue
		}
		// "a//b" means "a/b"; a trailing "/**" matches one or more
		// segments.
		glob, ok := join(strings.Split(strings.TrimPrefix(line, "/"), "/"))
		if !ok {
			continue // a malformed pattern matches nothing
		}
		r.glob = glob
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces drops trailing spaces that are not escaped by "\".
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space.
		k := end - 1
		for k > 0 && s[k-1] == '\\' {
			k--
		}
		if (end-1-k)%2 == 1 {
			break // escaped
		}
		end--
	}
	return s[:end]
}

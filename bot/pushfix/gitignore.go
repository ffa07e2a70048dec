package pushfix

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
// class (the pattern then matches nothing). Matching is byte-wise, as in
// Git: "?" matches one byte, not one UTF-8 character.
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
	basename bool     // no "/" in the pattern: match the last path segment
	segs     []string // anchored pattern segments; "**" spans segments
	glob     string   // the basename pattern
}

// Add reads the rules of the .gitignore file in directory dir
// (slash-separated, relative to the repository root, "" for the root).
func (g *Gitignore) Add(dir string, data []byte) {
	dir = cleanRel(dir)
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
	name = cleanRel(name)
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && g.excluded(name[:i], true) {
			return true
		}
	}
	return g.excluded(name, isDir)
}

// excluded applies the rules to one path, ignoring its parents.
func (g *Gitignore) excluded(name string, isDir bool) bool {
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
		return matchSegment(r.glob, path.Base(rel))
	}
	return matchSegments(r.segs, strings.Split(rel, "/"))
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
			r.basename = true
			r.glob = line
			rules = append(rules, r)
			continue
		}
		line = strings.TrimPrefix(line, "/")
		var segs []string
		for _, s := range strings.Split(line, "/") {
			if s == "" {
				continue // "a//b" means "a/b"
			}
			if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue
			}
			segs = append(segs, s)
		}
		if len(segs) == 0 {
			continue
		}
		// A trailing "/**" matches one or more segments: one of any name,
		// then zero or more.
		if n := len(segs); n > 1 && segs[n-1] == "**" {
			segs = append(segs[:n-1], "*", "**")
		}
		r.segs = segs
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

// matchSegments matches pattern segments ("**" for zero or more path
// segments) against path segments, by dynamic programming so that several
// "**" cost no more than len(pat)*len(names).
func matchSegments(pat, names []string) bool {
	// ok[j] reports whether pat[:i] matches names[:j], for the current i.
	ok := make([]bool, len(names)+1)
	ok[0] = true
	for _, p := range pat {
		next := make([]bool, len(names)+1)
		if p == "**" {
			any := false
			for j := range ok {
				any = any || ok[j]
				next[j] = any
			}
		} else {
			for j := 1; j <= len(names); j++ {
				next[j] = ok[j-1] && matchSegment(p, names[j-1])
			}
		}
		ok = next
	}
	return ok[len(names)]
}

// matchSegment matches one glob segment ("*", "?", "[...]", "\") against a
// name without "/", byte by byte. A malformed class matches nothing.
func matchSegment(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				for px < len(p) && p[px] == '*' {
					px++
				}
				starP, starS = px, sx
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if sx < len(s) {
					ok, width, valid := matchClass(p[px:], s[sx])
					if !valid {
						return false
					}
					if ok {
						px += width
						sx++
						continue
					}
				}
			case '\\':
				if px+1 >= len(p) {
					return false // a trailing backslash matches nothing
				}
				if sx < len(s) && s[sx] == p[px+1] {
					px += 2
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if starP >= 0 && starS < len(s) {
			starS++
			px, sx = starP, starS
			continue
		}
		return false
	}
	return true
}

// posixClasses are the character classes "[[:name:]]" Git knows.
var posixClasses = map[string]func(byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') },
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// matchClass matches the class at the start of p (p[0] == '[') against c.
// width is the length of the class in p; valid is false when the class is
// not closed or names an unknown POSIX class.
func matchClass(p string, c byte) (ok bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for {
		if i >= len(p) {
			return false, 0, false
		}
		ch := p[i]
		if ch == ']' && !first {
			i++
			break
		}
		first = false
		if ch == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return false, 0, false
			}
			fn, known := posixClasses[p[i+2:i+2+end]]
			if !known {
				return false, 0, false
			}
			if fn(c) {
				matched = true
			}
			i += 2 + end + 2
			continue
		}
		if ch == '\\' {
			i++
			if i >= len(p) {
				return false, 0, false
			}
			ch = p[i]
		}
		lo := ch
		i++
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi := p[i+1]
			i += 2
			if hi == '\\' {
				if i >= len(p) {
					return false, 0, false
				}
				hi = p[i]
				i++
			}
			if lo <= c && c <= hi {
				matched = true
			}
			continue
		}
		if c == lo {
			matched = true
		}
	}
	return matched != negate, i, true
}

// cleanRel cleans a slash-separated repository-relative path: no leading
// "./" or "/", no trailing "/", no "." or empty segments.
func cleanRel(name string) string {
	name = path.Clean("/" + name)
	return strings.TrimPrefix(name, "/")
}

package guard

import (
	"path"
	"regexp"
	"strings"
)

// DefaultMarkers are the skip and silencing markers of DESIGN §5.3 that a
// test-only change may not add.
var DefaultMarkers = []string{
	"t.Skip",
	"it.skip",
	"xit",
	"describe.skip",
	"test.skip",
	".only",
	"@pytest.mark.skip",
	"@unittest.skip",
	"@Disabled",
	"@Ignore",
	"#[ignore]",
	"@ts-ignore",
	"@ts-expect-error",
	"as any",
	"eslint-disable",
}

// knownMarkers refine the default markers so that ordinary code does not
// trip them. Any other marker (from configuration) matches as a literal,
// case-sensitive substring of a line.
//
//	t.Skip            t.Skip(, t.Skipf( or t.SkipNow( on a receiver named t
//	                  (t.Skipped() is a query, not a skip)
//	it.skip           it.skip as a whole word (it.skip(, it.skip.each)
//	xit               xit( as a word: "exit(" and "xit" in prose do not match
//	describe.skip     describe.skip as a whole word
//	test.skip         test.skip as a whole word ("pytest.skip" does not match)
//	.only             .only( or .only. after describe, context, suite, it or
//	                  test ("options.only(" does not match)
//	@pytest.mark.skip pytest.mark.skip or pytest.mark.skipif, with or
//	                  without "@" (pytestmark = pytest.mark.skip counts)
//	@unittest.skip    unittest.skip, unittest.skipIf or unittest.skipUnless
//	@Disabled         the JUnit 5 annotation and its conditional variants
//	                  (@DisabledIf..., @DisabledOnOs, ...)
//	@Ignore           @Ignore or Spock's @IgnoreIf ("@JsonIgnore" does not match)
//	#[ignore]         the Rust attribute, also #[ignore = "reason"]
//	@ts-ignore        the TypeScript directive
//	@ts-expect-error  the TypeScript directive
//	as any            a TypeScript cast "as any" not followed by a word
//	                  ("as any other" does not match, "as any as T" does),
//	                  only in .ts, .tsx, .mts, .cts, .vue, .svelte and .astro
//	                  files
//	eslint-disable    eslint-disable, -line and -next-line comments
var knownMarkers = map[string]*regexp.Regexp{
	"t.Skip":            regexp.MustCompile(`\bt\.Skip(?:f|Now)?\(`),
	"it.skip":           regexp.MustCompile(`\bit\.skip\b`),
	"xit":               regexp.MustCompile(`\bxit\s*\(`),
	"describe.skip":     regexp.MustCompile(`\bdescribe\.skip\b`),
	"test.skip":         regexp.MustCompile(`\btest\.skip\b`),
	".only":             regexp.MustCompile(`\b(?:describe|context|suite|it|test)\.only\b\s*[(.]`),
	"@pytest.mark.skip": regexp.MustCompile(`\bpytest\.mark\.skip(?:if)?\b`),
	"@unittest.skip":    regexp.MustCompile(`\bunittest\.skip(?:If|Unless)?\b`),
	"@Disabled":         regexp.MustCompile(`@Disabled\w*`),
	"@Ignore":           regexp.MustCompile(`@Ignore(?:If)?\b`),
	"#[ignore]":         regexp.MustCompile(`#\[\s*ignore\b`),
	"@ts-ignore":        regexp.MustCompile(`@ts-ignore\b`),
	"@ts-expect-error":  regexp.MustCompile(`@ts-expect-error\b`),
	"as any":            regexp.MustCompile(`\bas\s+any\b`),
	"eslint-disable":    regexp.MustCompile(`\beslint-disable`),
}

// markerLiterals are substrings every hit of a refined marker contains:
// a fast filter before the regular expression runs.
var markerLiterals = map[string]string{
	"t.Skip":            "t.Skip",
	"it.skip":           "it.skip",
	"xit":               "xit",
	"describe.skip":     "describe.skip",
	"test.skip":         "test.skip",
	".only":             ".only",
	"@pytest.mark.skip": "pytest.mark.skip",
	"@unittest.skip":    "unittest.skip",
	"@Disabled":         "@Disabled",
	"@Ignore":           "@Ignore",
	"#[ignore]":         "#[",
	"@ts-ignore":        "@ts-ignore",
	"@ts-expect-error":  "@ts-expect-error",
	"as any":            "any",
	"eslint-disable":    "eslint-disable",
}

// tsExtensions are the file kinds where "as any" is a cast.
var tsExtensions = map[string]bool{
	".ts": true, ".tsx": true, ".mts": true, ".cts": true,
	".vue": true, ".svelte": true, ".astro": true,
}

// matcher finds one marker in lines of one file.
type matcher struct {
	name string
	re   *regexp.Regexp // nil: literal substring
	lit  string         // a substring every hit contains
}

// newMatcher returns the matcher of one marker name.
func newMatcher(name string) matcher {
	m := matcher{name: name, re: knownMarkers[name], lit: name}
	if m.re != nil {
		m.lit = markerLiterals[name]
	}
	return m
}

// compileMarkers turns marker names into matchers, dropping empty ones and
// duplicates.
func compileMarkers(names []string) []matcher {
	var out []matcher
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, newMatcher(n))
	}
	return out
}

// applies reports whether the marker is judged in the file at name.
func (m matcher) applies(name string) bool {
	if m.name == "as any" && m.re != nil {
		return tsExtensions[strings.ToLower(path.Ext(name))]
	}
	return true
}

// hit reports whether line carries the marker.
func (m matcher) hit(line string) bool {
	if !strings.Contains(line, m.lit) {
		return false
	}
	if m.re == nil {
		return true
	}
	if m.name != "as any" {
		return m.re.MatchString(line)
	}
	for _, loc := range m.re.FindAllStringIndex(line, -1) {
		if isCast(line[loc[1]:]) {
			return true
		}
	}
	return false
}

// isCast reports whether rest, the text after "as any", ends a TypeScript
// cast: nothing, punctuation, or a chained "as T".
func isCast(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" {
		return true
	}
	if !isWordByte(rest[0]) {
		return true
	}
	return strings.HasPrefix(rest, "as") && (len(rest) == 2 || !isWordByte(rest[2]))
}

// isWordByte reports whether b can continue an identifier.
func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// MarkerHit reports whether line of the file at name carries marker, with
// the refinements above for the default markers and a literal substring
// match for any other.
func MarkerHit(marker, name, line string) bool {
	if marker == "" {
		return false
	}
	m := newMatcher(marker)
	return m.applies(name) && m.hit(line)
}

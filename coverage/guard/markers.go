package guard

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// DefaultMarkers are the skip and silencing markers of DESIGN §5.3 that a
// test-only change may not add, per language. Every added line of a
// changed file is scanned for them; see knownMarkers for what each name
// matches and in which files.
var DefaultMarkers = []string{
	// Go
	".Skip(", "//go:build ignore",
	// JavaScript / TypeScript
	"xit", "xdescribe", "xtest", ".skip(", ".only(", ".todo(", "fit",
	"@ts-ignore", "@ts-expect-error", "@ts-nocheck", "as any", "eslint-disable",
	// Python
	"pytest.skip(", "@pytest.mark.skip", "skipif", "xfail", "@unittest.skip", "self.skipTest", "raise SkipTest",
	// JVM
	"@Disabled", "@Ignore", "assumeTrue(false)", "Assumptions.assume",
	// Rust
	"#[ignore]",
	// C#
	"[Ignore]", "Skip =",
	// Ruby
	"skip", "pending",
}

// Languages of test files, by extension; markers and test declarations
// are judged per language.
const (
	langGo   = "go"
	langJS   = "js"
	langPy   = "py"
	langJVM  = "jvm"
	langRust = "rust"
	langCS   = "cs"
	langRuby = "ruby"
)

// langOf returns the language of the file at name, "" when none is known.
func langOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return langGo
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte", ".astro":
		return langJS
	case ".py", ".pyi":
		return langPy
	case ".java", ".kt", ".kts", ".groovy", ".scala":
		return langJVM
	case ".rs":
		return langRust
	case ".cs":
		return langCS
	case ".rb":
		return langRuby
	}
	return ""
}

// knownMarker refines one marker name: the expression that finds it and
// the languages whose files it is judged in (none: every file).
type knownMarker struct {
	re    *regexp.Regexp
	langs []string
}

// knownMarkers refine the markers (compiled on first use) so that ordinary code does not trip
// them. Any other marker name (from configuration) matches as a literal,
// case-sensitive substring of a line in any file.
//
//	.Skip(             Go: .Skip(, .Skipf( or .SkipNow( on any receiver (t, tt, b, s)
//	//go:build ignore  Go: any //go:build or // +build line: a constraint
//	                   can switch a test file off ("never", "!linux", ...)
//	xit xdescribe xtest  JS/Ruby: the x-prefixed call as a word, followed by
//	                   "(", a quote or (Ruby) "do": "exit(" does not match
//	.skip( .only( .todo(  JS: on any receiver (it, describe, test, context,
//	                   suite, an alias), also .skip.each and tagged templates
//	fit                JS: the focused fit(/fdescribe(
//	@ts-ignore @ts-expect-error @ts-nocheck  the TypeScript directives
//	as any             a TypeScript cast "as any" not followed by a word, in
//	                   TS-like files only ("as any other" does not match)
//	eslint-disable     eslint-disable, -line and -next-line comments
//	pytest.skip(       Python: pytest.skip( and pytest.importorskip(
//	@pytest.mark.skip  Python: pytest.mark.skip or .skipif, with or without "@"
//	skipif             Python: skipif / skipIf / skipUnless as a word
//	xfail              Python: xfail and unittest's expectedFailure as a word
//	@unittest.skip     Python: unittest.skip, skipIf, skipUnless
//	self.skipTest      Python: a .skipTest( call on any receiver
//	raise SkipTest     Python: raise SkipTest / raise unittest.SkipTest
//	@Disabled          JUnit 5's annotation and its conditional variants
//	@Ignore            JUnit 4's @Ignore, Spock's @IgnoreIf ("@JsonIgnore" does not match)
//	assumeTrue(false)  JVM: any assumption call (assumeTrue, assumeFalse,
//	                   assumeThat, assume...): a failed one skips the test
//	Assumptions.assume JVM: the same through the Assumptions/Assume classes
//	#[ignore]          Rust: the attribute, also #[ignore = "reason"]
//	[Ignore]           C#: NUnit/MSTest [Ignore] / [Ignore("why")]
//	Skip =             C#: xUnit's Skip = "..." named argument
//	skip pending       Ruby: the statement (skip, skip "why", pending "why")
var knownMarkers = sync.OnceValue(func() map[string]knownMarker {
	return map[string]knownMarker{
		".Skip(":             {regexp.MustCompile(`\.Skip(?:f|Now)?\s*\(`), []string{langGo}},
		"//go:build ignore":  {regexp.MustCompile(`^\s*//\s*(?:go:build\b|\+build\b)`), []string{langGo}},
		"xit":                {regexp.MustCompile(`(?:^|[^\w$.])xit\b\s*(?:[("'\x60]|do\b)`), []string{langJS, langRuby}},
		"xdescribe":          {regexp.MustCompile(`(?:^|[^\w$.])x(?:describe|context|specify)\b\s*(?:[("'\x60]|do\b)`), []string{langJS, langRuby}},
		"xtest":              {regexp.MustCompile(`(?:^|[^\w$.])xtest\b\s*[("'\x60]`), []string{langJS}},
		".skip(":             {regexp.MustCompile(`\.skip\b\s*[(.\x60]`), []string{langJS}},
		".only(":             {regexp.MustCompile(`\.only\b\s*[(.\x60]`), []string{langJS}},
		".todo(":             {regexp.MustCompile(`\.todo\b\s*[(.\x60]`), []string{langJS}},
		"fit":                {regexp.MustCompile(`(?:^|[^\w$.])f(?:it|describe)\b\s*[("'\x60]`), []string{langJS}},
		"@ts-ignore":         {regexp.MustCompile(`@ts-ignore\b`), nil},
		"@ts-expect-error":   {regexp.MustCompile(`@ts-expect-error\b`), nil},
		"@ts-nocheck":        {regexp.MustCompile(`@ts-nocheck\b`), nil},
		"as any":             {regexp.MustCompile(`\bas\s+any\b`), []string{"ts"}},
		"eslint-disable":     {regexp.MustCompile(`\beslint-disable`), nil},
		"pytest.skip(":       {regexp.MustCompile(`\bpytest\.(?:skip|importorskip)\s*\(`), []string{langPy}},
		"@pytest.mark.skip":  {regexp.MustCompile(`\bpytest\.mark\.skip(?:if)?\b`), []string{langPy}},
		"skipif":             {regexp.MustCompile(`\bskip(?:if|If|IF|Unless)\b`), []string{langPy}},
		"xfail":              {regexp.MustCompile(`\b(?:xfail|expectedFailure)\b`), []string{langPy}},
		"@unittest.skip":     {regexp.MustCompile(`\bunittest\.skip(?:If|Unless)?\b`), []string{langPy}},
		"self.skipTest":      {regexp.MustCompile(`\.skipTest\s*\(`), []string{langPy}},
		"raise SkipTest":     {regexp.MustCompile(`\braise\s+(?:\w+\.)*Skip(?:Test)?\b`), []string{langPy}},
		"@Disabled":          {regexp.MustCompile(`@Disabled\w*`), nil},
		"@Ignore":            {regexp.MustCompile(`@Ignore(?:If)?\b`), nil},
		"assumeTrue(false)":  {regexp.MustCompile(`\bassume\w*\s*\(`), []string{langJVM}},
		"Assumptions.assume": {regexp.MustCompile(`\bAssum(?:ptions|e)\s*\.`), []string{langJVM}},
		"#[ignore]":          {regexp.MustCompile(`#\[\s*ignore\b`), nil},
		"[Ignore]":           {regexp.MustCompile(`\[\s*(?:\w+\s*,\s*)*Ignore\b`), []string{langCS}},
		"Skip =":             {regexp.MustCompile(`\bSkip\s*=[^=]`), []string{langCS}},
		"skip":               {regexp.MustCompile(`(?:^|[;{]|\bdo\b|\bthen\b)\s*skip\b(?:\s*$|\s*[("'#;}]|\s+\w)`), []string{langRuby}},
		"pending":            {regexp.MustCompile(`(?:^|[;{]|\bdo\b|\bthen\b)\s*pending\b(?:\s*$|\s*[("'#;}]|\s+\w)`), []string{langRuby}},
		// Names of earlier defaults, still understood in configuration.
		"t.Skip":        {regexp.MustCompile(`\.Skip(?:f|Now)?\s*\(`), []string{langGo}},
		"it.skip":       {regexp.MustCompile(`\bit\.skip\b`), nil},
		"describe.skip": {regexp.MustCompile(`\bdescribe\.skip\b`), nil},
		"test.skip":     {regexp.MustCompile(`\btest\.skip\b`), nil},
		".only":         {regexp.MustCompile(`\.only\b\s*[(.\x60]`), []string{langJS}},
	}
})

// tsExtensions are the file kinds where "as any" is a cast.
var tsExtensions = map[string]bool{
	".ts": true, ".tsx": true, ".mts": true, ".cts": true,
	".vue": true, ".svelte": true, ".astro": true,
}

// matcher finds one marker in lines of one file.
type matcher struct {
	name  string
	re    *regexp.Regexp // nil: literal substring
	langs []string
}

// newMatcher returns the matcher of one marker name.
func newMatcher(name string) matcher {
	k, ok := knownMarkers()[name]
	if !ok {
		return matcher{name: name}
	}
	return matcher{name: name, re: k.re, langs: k.langs}
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
	if len(m.langs) == 0 {
		return true
	}
	lang := langOf(name)
	for _, l := range m.langs {
		if l == lang || l == "ts" && tsExtensions[strings.ToLower(path.Ext(name))] {
			return true
		}
	}
	return false
}

// hit reports whether line carries the marker.
func (m matcher) hit(line string) bool {
	if m.re == nil {
		return strings.Contains(line, m.name)
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
// the refinements above for the known markers and a literal substring
// match for any other.
func MarkerHit(marker, name, line string) bool {
	if marker == "" {
		return false
	}
	m := newMatcher(marker)
	return m.applies(name) && m.hit(line)
}

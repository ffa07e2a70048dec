package guard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/gcloop/gcloop/internal/lazyre"
)

// maxDecls caps the test declarations read from one file, so that no
// input makes the analysis grow without bound; past it the rest of the
// file is not analyzed (and noted by the caller).
const maxDecls = 20000

// decl is one test declaration found in a file's content.
type decl struct {
	key  string // language and name: "go:TestTotal", "js:adds two items"
	name string
	line int // 1-based line of the declaration
	// Counted over the body (from the line that opens it to the line that
	// closes it):
	asserts int // lines with an assertion
	// earlyReturns counts return statements on lines before the body's
	// first assertion (all of them when it has none).
	earlyReturns int
	// noAsserts is true for kinds that assert nothing by design
	// (benchmarks, examples): the assertion rules skip them.
	noAsserts bool
}

// langRules are the line expressions of one language.
type langRules struct {
	assert *regexp.Regexp // a line that asserts
	ret    *regexp.Regexp // a line that returns from the test early
}

// rules per language, compiled on first use. The assertion expressions recognize the common
// assertion forms; a test whose assertions go through helpers the
// expressions do not know has none, and the assertion rules then stay
// silent for it (they only fire when a recognized assertion disappears).
var rules = sync.OnceValue(func() map[string]langRules {
	// A return statement as a word not part of a longer name or a member.
	returnRE := regexp.MustCompile(`(?:^|[^\w$.])return\b`)
	return map[string]langRules{
		langGo: {
			assert: regexp.MustCompile(`\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(?:assert|require|is|qt|check)\.\w+\s*\(|\bpanic\s*\(`),
			ret:    returnRE,
		},
		langJS: {
			assert: regexp.MustCompile(`\bexpect(?:TypeOf)?\s*[(.]|\bassert\w*\b|\.should\b|\.(?:is|deepEqual|true|false|throws|notThrows|snapshot)\s*\(|\bfail\s*\(`),
			ret:    returnRE,
		},
		langPy: {
			assert: regexp.MustCompile(`\bassert\b|\.assert\w*\s*\(|\bpytest\.(?:raises|warns|fail)\b|\.fail\s*\(|\bassert_\w+\s*\(`),
			ret:    returnRE,
		},
		langJVM: {
			assert: regexp.MustCompile(`\bassert\w*\s*[(!]|\bassert\s|\bAssert\w*\.\w+\s*\(|\bverify\w*\s*\(|\bfail\s*\(|\bexpect\w*\s*[({]|\bshould\w*\b|\bthen\s*:|\bexpect\s*:`),
			ret:    returnRE,
		},
		langRust: {
			assert: regexp.MustCompile(`\b(?:debug_)?assert(?:_eq|_ne|_matches)?!|\bpanic!|\bunreachable!`),
			ret:    returnRE,
		},
		langCS: {
			assert: regexp.MustCompile(`\bAssert\w*\.\w+\s*\(|\.Should\w*\s*\(|\bVerify\w*\s*\(`),
			ret:    returnRE,
		},
		langRuby: {
			assert: regexp.MustCompile(`\bexpect\b|\bassert\w*\b|\brefute\w*\b|\.(?:should|must_\w+|wont_\w+)\b|\bflunk\b`),
			ret:    regexp.MustCompile(`(?:^|[^\w$.:])(?:return|next)\b`),
		},
	}
})

// Declarations per language.
var (
	goDeclRE = lazyre.New(`^func\s+((Test|Fuzz|Benchmark|Example)\w*)\s*\(`)
	// it("name", test('name', specify(`name`, also it.each(...)("name".
	// Skipped and focused forms (it.skip, xit, fit) are declarations too:
	// turning a test into one is a marker, not a removal.
	jsDeclRE = lazyre.New(`(?:^|[^\w$.])(?:x|f)?(?:it|test|specify)\s*(?:\.\s*(?:each|concurrent|failing|sequential|skip|only|todo)\b[^"'\x60]*?)*\(\s*(["'\x60])((?:\\.|[^\\])*?)(["'\x60])`)
	pyDeclRE = lazyre.New(`^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(`)
	// JVM and C# test annotations/attributes; the method follows.
	jvmAnnRE    = lazyre.New(`@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property)\b`)
	csAttrRE    = lazyre.New(`\[\s*(?:\w+\s*,\s*)*(?:Fact|Theory|Test|TestMethod|TestCase|DataTestMethod)\b`)
	rustAttRE   = lazyre.New(`#\[\s*(?:(?:\w+::)*test|rstest|test_case\b[^\]]*)\s*(?:\]|\()`)
	jvmAnnStrip = lazyre.New(`@[\w.]+(?:\s*\([^)]*\))?`)
	csAttrStrip = lazyre.New(`\[[^\]]*\]`)
	methodRE    = lazyre.New("(\\w+|`[^`]+`)\\s*(?:<[^>]*>\\s*)?\\(")
	rustFnRE    = lazyre.New(`\bfn\s+(\w+)`)
	rubyDecl    = lazyre.New(`^(\s*)(?:(?:it|specify|scenario|test|example)\s*\(?\s*(["'])((?:\\.|[^\\])*?)(["'])|def\s+(test_\w+))`)
	// Words that are not method names before "(" on a JVM/C# line.
	notMethod = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "new": true, "throw": true, "synchronized": true}
)

// declsOf finds the test declarations in the lines of a file of language
// lang. It is a line analysis, careful but not a parser: see DESIGN §5.3
// and docs/design.md for what it recognizes.
func declsOf(lang string, lines []string) []decl {
	r, ok := rules()[lang]
	if !ok {
		return nil
	}
	a := newLineFacts(r, lines)
	var out []decl
	add := func(d decl, open, end int) {
		if len(out) >= maxDecls {
			return
		}
		d.asserts, d.earlyReturns = a.body(open, end)
		out = append(out, d)
	}
	switch lang {
	case langGo:
		sp := newSpans(lang, lines)
		for i, l := range lines {
			m := goDeclRE().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			open, end := sp.after(i, 0, '{')
			add(decl{key: "go:" + m[1], name: m[1], line: i + 1, noAsserts: m[2] == "Benchmark" || m[2] == "Example"}, open, end)
		}
	case langJS:
		sp := newSpans(lang, lines)
		for i, l := range lines {
			for _, m := range jsDeclRE().FindAllStringSubmatchIndex(l, -1) {
				name := l[m[4]:m[5]]
				// The call's parenthesis, the last before the name,
				// closes at the end of the test.
				open, end := sp.after(i, strings.LastIndexByte(l[:m[2]], '('), '(')
				add(decl{key: "js:" + name, name: name, line: i + 1}, open, end)
			}
		}
	case langPy:
		for i, l := range lines {
			m := pyDeclRE().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			end := indentEnd(lines, i, len(expandTabs(m[1])))
			add(decl{key: "py:" + m[2], name: m[2], line: i + 1}, i, end)
		}
	case langRuby:
		for i, l := range lines {
			m := rubyDecl().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			name := m[3]
			if m[5] != "" {
				name = m[5]
			}
			end := rubyEnd(lines, i, len(expandTabs(m[1])))
			add(decl{key: "ruby:" + name, name: name, line: i + 1}, i, end)
		}
	case langJVM, langCS, langRust:
		sp := newSpans(lang, lines)
		ann := jvmAnnRE()
		if lang == langCS {
			ann = csAttrRE()
		} else if lang == langRust {
			ann = rustAttRE()
		}
		for i := 0; i < len(lines); i++ {
			if !ann.MatchString(lines[i]) {
				continue
			}
			at, name := methodAfter(lang, lines, i)
			if at < 0 {
				continue
			}
			open, end := sp.after(at, 0, '{')
			add(decl{key: lang + ":" + name, name: name, line: at + 1}, open, end)
			i = at
		}
	}
	return out
}

// methodAfter finds the method an annotation on line i applies to: the
// first line at or after i (within 20 lines) that names one, skipping
// further annotations. It returns the line and the name, or -1.
func methodAfter(lang string, lines []string, i int) (int, string) {
	for j := i; j < len(lines) && j < i+20; j++ {
		l := lines[j]
		if lang == langRust {
			if m := rustFnRE().FindStringSubmatch(l); m != nil {
				return j, m[1]
			}
			continue
		}
		// Drop the annotations or attributes on the line.
		rest := l
		if lang == langCS {
			rest = csAttrStrip().ReplaceAllString(rest, "")
		} else {
			rest = jvmAnnStrip().ReplaceAllString(rest, "")
		}
		if t := strings.TrimSpace(rest); t == "" || strings.HasPrefix(t, "@") || strings.HasPrefix(t, "[") {
			continue
		}
		for _, m := range methodRE().FindAllStringSubmatch(rest, -1) {
			if !notMethod[m[1]] {
				return j, strings.Trim(m[1], "`")
			}
		}
	}
	return -1, ""
}

// lineFacts hold, per line, whether it asserts and whether it returns,
// with prefix sums so a body is judged in constant time.
type lineFacts struct {
	asserts, returns []int // prefix sums: [i] counts lines before i
	nextAssert       []int // first asserting line at or after i, len(lines) if none
}

func newLineFacts(r langRules, lines []string) lineFacts {
	n := len(lines)
	f := lineFacts{asserts: make([]int, n+1), returns: make([]int, n+1), nextAssert: make([]int, n+1)}
	isAssert := make([]bool, n)
	for i, l := range lines {
		code := stripLineComment(l)
		isAssert[i] = r.assert.MatchString(code)
		f.asserts[i+1] = f.asserts[i]
		if isAssert[i] {
			f.asserts[i+1]++
		}
		f.returns[i+1] = f.returns[i]
		if r.ret.MatchString(code) {
			f.returns[i+1]++
		}
	}
	f.nextAssert[n] = n
	for i := n - 1; i >= 0; i-- {
		f.nextAssert[i] = f.nextAssert[i+1]
		if isAssert[i] {
			f.nextAssert[i] = i
		}
	}
	return f
}

// body counts the asserting lines of lines open..end and the returns on
// lines before the first of them.
func (f lineFacts) body(open, end int) (asserts, early int) {
	if open < 0 || end < open {
		return 0, 0
	}
	asserts = f.asserts[end+1] - f.asserts[open]
	first := min(f.nextAssert[open], end+1)
	return asserts, f.returns[first] - f.returns[open]
}

// stripLineComment drops a trailing "//" or "#" comment that starts the
// line or follows blank space; good enough to keep commented-out code from
// counting as assertions or returns.
func stripLineComment(l string) string {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return ""
	}
	return l
}

// expandTabs counts a tab as 8 columns of indentation.
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "        ") }

// indentOf returns the indentation width of l and whether l is blank.
func indentOf(l string) (int, bool) {
	t := strings.TrimLeft(l, " \t")
	if strings.TrimSpace(t) == "" {
		return 0, true
	}
	return len(expandTabs(l[:len(l)-len(t)])), false
}

// indentEnd returns the last line of a Python block whose header starts on
// line i at indentation ind: the header may span lines inside brackets;
// the block runs while lines are blank or indented deeper.
func indentEnd(lines []string, i, ind int) int {
	depth := 0
	j := i
	for ; j < len(lines); j++ {
		depth += strings.Count(lines[j], "(") + strings.Count(lines[j], "[") - strings.Count(lines[j], ")") - strings.Count(lines[j], "]")
		if depth <= 0 {
			break
		}
	}
	end := min(j, len(lines)-1)
	for k := j + 1; k < len(lines); k++ {
		w, blank := indentOf(lines[k])
		if blank {
			continue
		}
		if w <= ind {
			break
		}
		end = k
	}
	return end
}

// rubyEnd returns the last line of a Ruby block that starts on line i at
// indentation ind: the line of its "end" (or "}") at the same indentation,
// or the line itself when the block closes on it.
func rubyEnd(lines []string, i, ind int) int {
	l := strings.TrimSpace(lines[i])
	if strings.HasSuffix(l, "end") || strings.HasSuffix(l, "}") {
		return i
	}
	for k := i + 1; k < len(lines); k++ {
		w, blank := indentOf(lines[k])
		if blank {
			continue
		}
		if w < ind {
			return k - 1
		}
		if w == ind {
			t := strings.TrimSpace(lines[k])
			if t == "end" || strings.HasPrefix(t, "end ") || strings.HasPrefix(t, "end.") || strings.HasPrefix(t, "}") {
				return k
			}
			return k - 1
		}
	}
	return len(lines) - 1
}

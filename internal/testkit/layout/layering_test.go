package layout

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// layer ranks the module's parts: an import points to its own layer or
// one below, never up. Test kits stand aside: only tests import them.
type layer int

const (
	leaf          layer = iota // internal/* (and the root package, action.yml's text)
	decideLayer                // decide and its readers
	coverageLayer              // coverage and its sub-packages
	botLayer                   // bot/*: everything that talks to GitHub
	cmdLayer                   // cmd/*: the binary
	kitLayer                   // internal/testkit/*: imported by tests only
	noLayer                    // a top-level directory the layout does not have
)

var layerNames = [...]string{"internal leaves", "decide", "coverage", "bot", "cmd", "test kits", "no layer"}

func (l layer) String() string { return layerNames[l] }

// layerOf places a module-relative package.
func layerOf(rel string) layer {
	switch {
	case rel == ".":
		return leaf
	case under(rel, "internal/testkit"):
		return kitLayer
	case under(rel, "internal"):
		return leaf
	case under(rel, "decide"):
		return decideLayer
	case under(rel, "coverage"):
		return coverageLayer
	case under(rel, "bot"):
		return botLayer
	case under(rel, "cmd"):
		return cmdLayer
	}
	return noLayer
}

// edge is one import, from a package to another, both module-relative.
type edge struct{ from, to string }

func (e edge) String() string { return e.from + " → " + e.to }

// layeringAllowed are the imports that break the rules today, each with
// what ends it: other branches move these packages (internal/load becomes
// the evidence registry under bot/, internal/config goes to bot/). Once
// they are merged an entry that no import needs any more fails the test,
// so that the list only ever shrinks; the goal is an empty list.
var layeringAllowed = map[edge]string{}

// githubLibs are the libraries only bot and cmd may import: GitHub's REST
// client and the websocket library.
var githubLibs = []string{"github.com/google/go-github/", "github.com/gorilla/"}

// importRule says why an import from → to is against the layout, or "".
func importRule(from, to string) string {
	lf, lt := layerOf(from), layerOf(to)
	switch {
	case lf == kitLayer:
		return "" // a test kit may use what it tests
	case lt == kitLayer:
		return "product code imports a test kit; only tests may"
	case from == "decide":
		return "decide imports nothing of this module"
	case lf == leaf && lt != leaf:
		return "internal packages are leaves: they import nothing of this module but other leaves"
	case lt == noLayer:
		return "the imported package is outside the layout"
	case lt > lf:
		return fmt.Sprintf("the import runs back up (%s above %s)", lt, lf)
	case lf == coverageLayer && lt == decideLayer && to != "decide":
		return "coverage imports only decide and internal leaves"
	}
	return ""
}

// checkLayering returns every import of pkgs that breaks the layout and
// that allowed does not list, and every entry of allowed no import needs.
func checkLayering(pkgs []pkg, allowed map[edge]string) []string {
	var problems []string
	used := map[edge]bool{}
	for _, p := range pkgs {
		from, ok := modRel(p.ImportPath)
		if !ok {
			continue
		}
		if layerOf(from) == noLayer {
			problems = append(problems, fmt.Sprintf("%s: outside bot, cmd, coverage, decide and internal (no new top-level directories)", from))
		}
		for _, imp := range p.Imports {
			to, ok := modRel(imp)
			if !ok {
				continue
			}
			why := importRule(from, to)
			if why == "" {
				continue
			}
			e := edge{from, to}
			if _, ok := allowed[e]; ok {
				used[e] = true
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s", e, why))
		}
		if under(from, "bot") || under(from, "cmd") {
			continue
		}
		for _, imps := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range imps {
				for _, lib := range githubLibs {
					if strings.HasPrefix(imp, lib) {
						problems = append(problems, fmt.Sprintf("%s imports %s: nothing but bot and cmd talks to GitHub's client or the websocket library", from, imp))
					}
				}
			}
		}
	}
	for e, why := range allowed {
		if !used[e] {
			problems = append(problems, fmt.Sprintf("allow-list entry %s (%s): no import needs it any more; remove it", e, why))
		}
	}
	sort.Strings(problems)
	return problems
}

func TestModuleLayering(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t, false, "./...")
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; the module has dozens", len(pkgs))
	}
	for _, p := range checkLayering(pkgs, layeringAllowed) {
		t.Error(p)
	}
}

func TestLayeringRules(t *testing.T) {
	t.Parallel()
	m := func(rel string) string {
		if rel == "." {
			return module
		}
		return module + "/" + rel
	}
	p := func(rel string, imports ...string) pkg {
		q := pkg{ImportPath: m(rel)}
		for _, i := range imports {
			q.Imports = append(q.Imports, m(i))
		}
		return q
	}
	withLib := func(q pkg, lib string) pkg {
		q.Imports = append(q.Imports, lib)
		return q
	}
	tests := []struct {
		name    string
		pkgs    []pkg
		allowed map[edge]string
		want    []string // substrings, one per problem, in sorted order
	}{
		{name: "arrows that point down are fine", pkgs: []pkg{
			p("cmd/gcloop", "bot/round", "coverage", "decide", "internal/lazyre", "."),
			withLib(p("bot/round", "bot/report", "coverage/guard", "decide/evidence", "internal/wfcmd"), "github.com/google/go-github/v62/github"),
			p("coverage/guard", "coverage", "decide", "internal/lazyre"),
			p("decide/evidence", "decide", "internal/jsonscan"),
			withLib(p("decide"), "strings"),
			withLib(p("internal/lazyre"), "regexp"),
			p("internal/jsonscan", "internal/parse"),
			p("internal/testkit/ghkit", "bot/ghfake", "decide"),
		}},
		{name: "decide imports nothing of the module, not even a leaf", pkgs: []pkg{p("decide", "internal/lazyre")},
			want: []string{"decide → internal/lazyre: decide imports nothing"}},
		{name: "an internal package is a leaf", pkgs: []pkg{p("internal/config", "decide")},
			want: []string{"internal/config → decide: internal packages are leaves"}},
		{name: "coverage does not import a reader of decide", pkgs: []pkg{p("coverage", "decide/evidence")},
			want: []string{"coverage → decide/evidence: coverage imports only decide"}},
		{name: "coverage does not import bot", pkgs: []pkg{p("coverage", "bot/report")},
			want: []string{"coverage → bot/report: the import runs back up (bot above coverage)"}},
		{name: "bot does not import cmd", pkgs: []pkg{p("bot/action", "cmd/gcloop/internal/cli")},
			want: []string{"bot/action → cmd/gcloop/internal/cli: the import runs back up (cmd above bot)"}},
		{name: "a reader does not import coverage", pkgs: []pkg{p("decide/evidence", "coverage")},
			want: []string{"decide/evidence → coverage: the import runs back up (coverage above decide)"}},
		{name: "product code does not import a test kit", pkgs: []pkg{p("bot/server", "internal/testkit/pgtest")},
			want: []string{"bot/server → internal/testkit/pgtest: product code imports a test kit"}},
		{name: "a test may import a test kit", pkgs: []pkg{{ImportPath: m("bot/store"), TestImports: []string{m("internal/testkit/pgtest")}}}},
		{name: "a new top-level directory", pkgs: []pkg{p("util", "decide")},
			want: []string{"util: outside bot, cmd"}},
		{name: "an import of a package outside the layout", pkgs: []pkg{p("bot/round", "util")},
			want: []string{"bot/round → util: the imported package is outside"}},
		{name: "go-github outside bot and cmd, even in a test kit", pkgs: []pkg{withLib(p("internal/testkit/ghkit"), "github.com/google/go-github/v62/github")},
			want: []string{"internal/testkit/ghkit imports github.com/google/go-github/v62/github"}},
		{name: "gorilla in a test of coverage", pkgs: []pkg{{ImportPath: m("coverage"), XTestImports: []string{"github.com/gorilla/websocket"}}},
			want: []string{"coverage imports github.com/gorilla/websocket"}},
		{name: "an allowed import is not reported", pkgs: []pkg{p("internal/config", "decide")},
			allowed: map[edge]string{{"internal/config", "decide"}: "moves"}},
		{name: "an allow-list entry no import needs is reported", pkgs: []pkg{p("bot/config", "decide")},
			allowed: map[edge]string{{"internal/config", "decide"}: "moves"},
			want:    []string{"allow-list entry internal/config → decide (moves): no import needs it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := checkLayering(tt.pkgs, tt.allowed)
			if len(got) != len(tt.want) {
				t.Fatalf("problems:\n\t%s\nwant %d:\n\t%s", strings.Join(got, "\n\t"), len(tt.want), strings.Join(tt.want, "\n\t"))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("problem %d: %q, want it to hold %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

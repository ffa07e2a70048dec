package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The end-to-end tests of the test-only guard (DESIGN §5.3): the built
// `gcloop run` judges a coverage round's workspace against the fake GitHub;
// a refused round makes no commit and no ref update, and its report says
// "reverted" and why.

// guardTestFile is the PR's test file: TestTotal passes, TestDiscount is
// the failing test a generator may be tempted to delete.
const guardTestFile = `package cart

import "testing"

func TestTotal(t *testing.T) {
	if Total(nil) != 0 {
		t.Fatal("empty cart")
	}
}

func TestDiscount(t *testing.T) {
	if Discount(10) != 9 {
		t.Errorf("discount")
	}
}
`

// guardJUnit is the round's test results: both tests pass.
const guardJUnit = `<testsuites><testsuite name="cart"><testcase classname="cart" name="TestTotal" file="cart_test.go"/><testcase classname="cart" name="TestDiscount" file="cart_test.go"/></testsuite></testsuites>`

// wsEdit is one generator edit of the workspace.
type wsEdit struct {
	path    string
	content string // written when !remove and link == ""
	remove  bool
	link    string // a symbolic link to this target
	mode    os.FileMode
}

// guardRun configures one guarded coverage round.
type guardRun struct {
	edits   []wsEdit
	inputs  map[string]string // beside the coverage inputs
	files   map[string]string // more workspace files (baseline, evidence)
	junit   string            // the round's JUnit; default guardJUnit
	event   string
	payload map[string]any
	extra   map[string]string
	// checkout is the commit the workspace holds; default the PR head.
	checkout string
}

// guardRound checks out the PR head into a workspace, applies the
// generator's edits and runs a coverage round on it.
func (w *world) guardRound(t *testing.T, g guardRun) run {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "workspace")
	write := func(p string, body []byte, mode os.FileMode) {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(full, body, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	checkout := g.checkout
	if checkout == "" {
		checkout = w.head
	}
	for p, body := range w.gh.TreeFiles(owner, repo, checkout) {
		write(p, body, 0)
	}
	for _, e := range g.edits {
		full := filepath.Join(ws, filepath.FromSlash(e.path))
		switch {
		case e.remove:
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
		case e.link != "":
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(e.link, full); err != nil {
				t.Fatal(err)
			}
		default:
			write(e.path, []byte(e.content), e.mode)
		}
	}
	junit := g.junit
	if junit == "" {
		junit = guardJUnit
	}
	files := map[string]string{"gcloop-evidence/lcov.info": lcovHigh, "gcloop-evidence/junit.xml": junit}
	for k, v := range g.files {
		files[k] = v
	}
	in := map[string]string{"loop": "coverage", "evidence": "gcloop-evidence/*", "layer": "L1"}
	for k, v := range g.inputs {
		in[k] = v
	}
	return w.runAction(step{event: g.event, payload: g.payload, inputs: in, files: files, ws: ws, extra: g.extra})
}

// mustNotPush fails when the round committed or moved the branch, and
// checks that the report says the change was reverted and why.
func (w *world) mustNotPush(t *testing.T, r run, head string, why ...string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, m := range w.mutations(0) {
		if strings.HasPrefix(m, "POST /repos/"+owner+"/"+repo+"/git/commits") || strings.HasPrefix(m, "PATCH /repos/"+owner+"/"+repo+"/git/refs") {
			t.Errorf("a refused round made %s", m)
		}
	}
	if got := w.gh.Ref(owner, repo, "heads/feature/cart"); r.outputs["commit"] != "" || got != head {
		t.Errorf("commit output %q, branch at %s; want no commit and the branch at %s", r.outputs["commit"], got, head)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) == 0 {
		t.Fatalf("no report comment\n%s", r.stderr)
	}
	mustContain(t, "the report", comments[0].Body, append([]string{"reverted"}, why...)...)
}

func TestGuardRefusesWhatAChangeDoesToTheTests(t *testing.T) {
	t.Parallel()
	withBody := func(old, new string) string { return strings.Replace(guardTestFile, old, new, 1) }
	discountBody := "\tif Discount(10) != 9 {\n\t\tt.Errorf(\"discount\")\n\t}\n"
	tests := []struct {
		name  string
		head  map[string]string // more files at the PR head
		edits []wsEdit
		why   []string
	}{
		{"a deleted failing test", nil,
			[]wsEdit{{path: "cart_test.go", content: strings.Split(guardTestFile, "func TestDiscount")[0]}},
			[]string{`test\_removed`, "TestDiscount"}},
		{"a deleted test file", nil,
			[]wsEdit{{path: "cart_test.go", remove: true}},
			[]string{`test\_removed`, "TestTotal", "TestDiscount"}},
		{"an emptied body", nil,
			[]wsEdit{{path: "cart_test.go", content: withBody(discountBody, "\t_ = Discount(10)\n")}},
			[]string{`assertions\_removed`, "TestDiscount"}},
		{"an early return", nil,
			[]wsEdit{{path: "cart_test.go", content: withBody(discountBody, "\treturn\n"+discountBody)}},
			[]string{`early\_return`, "TestDiscount"}},
		{"a NUL byte late in the file", nil,
			[]wsEdit{{path: "cart_test.go", content: guardTestFile + strings.Repeat("// padding\n", 1000) + "\x00\nfunc TestX(t *testing.T) { t.Skip() }\n"}},
			[]string{`binary\_file`}},
		{"a marker swapped from one test to another", map[string]string{"cart_test.go": withBody(discountBody, "\tt.Skip(\"flaky\")\n"+discountBody)},
			[]wsEdit{{path: "cart_test.go", content: withBody("\tif Total(nil) != 0 {\n", "\tt.Skip(\"flaky\")\n\tif Total(nil) != 0 {\n")}},
			[]string{`forbidden\_marker`}},
		{"a source file below a directory named like a test", nil,
			[]wsEdit{{path: "x_test.go/evil.go", content: "package evil\n"}},
			[]string{`non\_test\_file`, "x\\_test.go/evil.go"}},
		{"a symbolic link", nil,
			[]wsEdit{{path: "testdata/link", link: "../cart.go"}},
			[]string{"symbolic link"}},
		{"a mode change", nil,
			[]wsEdit{{path: "cart_test.go", content: guardTestFile, mode: 0o755}},
			[]string{`file\_mode`, "100755"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			head := map[string]string{"cart_test.go": guardTestFile}
			for k, v := range tt.head {
				head[k] = v
			}
			w := newWorld(t, head)
			r := w.guardRound(t, guardRun{edits: tt.edits})
			w.mustNotPush(t, r, w.head, tt.why...)
		})
	}
}

func TestGuardRefusesEveryMarkerClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, content, marker string
	}{
		{"Go .Skip( on a subtest's tt", "cart_test.go", strings.Replace(guardTestFile, "\tif Total(nil) != 0 {\n", "\ttt := t\n\ttt.Skip(\"later\")\n\tif Total(nil) != 0 {\n", 1), `".Skip("`},
		{"Go build constraint", "cart_test.go", "//go:build ignore\n\n" + guardTestFile, `"//go:build ignore"`},
		{"JS xdescribe", "web/cart.test.js", "xdescribe('cart', () => {\n  it('adds', () => { expect(add(1)).toBe(1) })\n})\n", `"xdescribe"`},
		{"JS .todo(", "web/cart.test.js", "it.todo('adds')\n", `".todo("`},
		{"Python pytest.skip(", "tests/test_cart.py", "import pytest\n\ndef test_total():\n    pytest.skip('later')\n    assert total() == 0\n", `"pytest.skip("`},
		{"Python self.skipTest", "tests/test_cart.py", "class T:\n    def test_total(self):\n        self.skipTest('later')\n        self.assertEqual(total(), 0)\n", `"self.skipTest"`},
		{"Python xfail", "tests/test_cart.py", "import pytest\n\n@pytest.mark.xfail\ndef test_total():\n    assert total() == 0\n", `"xfail"`},
		{"JVM assumeTrue(false)", "src/test/java/CartTest.java", "class CartTest {\n  @Test\n  void total() {\n    assumeTrue(false);\n    assertEquals(0, total());\n  }\n}\n", `"assumeTrue(false)"`},
		{"C# Skip =", "tests/CartTests.cs", "public class CartTests {\n    [Fact(Skip = \"later\")]\n    public void Total() {\n        Assert.Equal(0, Cart.Total());\n    }\n}\n", `"Skip ="`},
		{"Ruby skip", "tests/cart_spec.rb", "describe Cart do\n  it 'totals' do\n    skip 'later'\n    expect(total).to eq(0)\n  end\nend\n", `"skip"`},
		{"Rust #[ignore]", "tests/cart.rs", "#[test]\n#[ignore]\nfn total() {\n    assert_eq!(total(), 0);\n}\n", `"#\[ignore\]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
			r := w.guardRound(t, guardRun{edits: []wsEdit{{path: tt.path, content: tt.content}}})
			w.mustNotPush(t, r, w.head, `forbidden\_marker`, tt.marker)
		})
	}
}

func TestGuardRefusesADispatchedRoundAfterAConcurrentPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
	checkedOut := w.head
	// The generator works on the checkout of checkedOut (GITHUB_SHA of
	// the dispatched run); meanwhile a person pushes a test fixture. Judged
	// against the new head, the workspace would "delete" the fixture — a
	// test-only change that reverts the person's push.
	edits := []wsEdit{{path: "cart_test.go", content: guardTestFile + "\nfunc TestMore(t *testing.T) {\n\tif Total([]int{1}) != 1 {\n\t\tt.Error(\"one\")\n\t}\n}\n"}}
	human := w.push(map[string]string{"testdata/fixture.json": "{\"by\": \"a person\"}\n"})
	r := w.guardRound(t, guardRun{edits: edits, event: "workflow_dispatch", checkout: checkedOut,
		payload: map[string]any{"inputs": map[string]any{"pr": "1"}, "ref": "refs/heads/feature/cart"},
		extra:   map[string]string{"GITHUB_SHA": checkedOut}})
	w.mustNotPush(t, r, human, "conflict", "moved", shortOf(human), shortOf(checkedOut))
	if _, ok := w.gh.TreeFiles(owner, repo, w.gh.Ref(owner, repo, "heads/feature/cart"))["testdata/fixture.json"]; !ok {
		t.Error("the person's push was reverted: testdata/fixture.json is gone")
	}
}

func TestGuardRefusesATestLostAgainstTheBaseline(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
	// go test -json of the unchanged head: both tests pass. The round's
	// JUnit lacks TestDiscount (the generator renamed it in a helper file
	// the line analysis cannot see through).
	base := `{"Action":"run","Package":"cart","Test":"TestTotal"}
{"Action":"pass","Package":"cart","Test":"TestTotal"}
{"Action":"run","Package":"cart","Test":"TestDiscount"}
{"Action":"pass","Package":"cart","Test":"TestDiscount"}
`
	junit := `<testsuites><testsuite name="cart"><testcase classname="cart" name="TestTotal" file="cart_test.go"/><testcase classname="cart" name="TestMore" file="more_test.go"/></testsuite></testsuites>`
	r := w.guardRound(t, guardRun{
		edits:  []wsEdit{{path: "more_test.go", content: "package cart\n\nimport \"testing\"\n\nfunc TestMore(t *testing.T) {\n\tif Total(nil) != 0 {\n\t\tt.Error(\"x\")\n\t}\n}\n"}},
		inputs: map[string]string{"baseline": "gcloop-baseline/go-test.json"},
		files:  map[string]string{"gcloop-baseline/go-test.json": base},
		junit:  junit,
	})
	w.mustNotPush(t, r, w.head, `test\_lost`, "cart.TestDiscount")
}

func TestGuardPushesALegitimateTestOnlyChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event string
		extra func(w *world) (map[string]any, map[string]string)
	}{
		{"on pull_request", "", func(*world) (map[string]any, map[string]string) { return nil, nil }},
		{"on a dispatched round without a concurrent push", "workflow_dispatch", func(w *world) (map[string]any, map[string]string) {
			return map[string]any{"inputs": map[string]any{"pr": "1"}}, map[string]string{"GITHUB_SHA": w.head}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
			head := w.head
			payload, extra := tt.extra(w)
			// A new assertion in an existing test and a new test, beside
			// a baseline the round keeps.
			content := strings.Replace(guardTestFile, "\t\tt.Fatal(\"empty cart\")\n\t}\n", "\t\tt.Fatal(\"empty cart\")\n\t}\n\tif Total([]int{}) != 0 {\n\t\tt.Fatal(\"zero items\")\n\t}\n", 1) +
				"\nfunc TestTwo(t *testing.T) {\n\tif Total([]int{1, 1}) != 2 {\n\t\tt.Errorf(\"two\")\n\t}\n}\n"
			base := `<testsuite name="cart"><testcase classname="cart" name="TestTotal"/><testcase classname="cart" name="TestDiscount"/></testsuite>`
			r := w.guardRound(t, guardRun{edits: []wsEdit{{path: "cart_test.go", content: content}}, event: tt.event, payload: payload, extra: extra,
				inputs: map[string]string{"baseline": "base/junit.xml"}, files: map[string]string{"base/junit.xml": base}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			sha := r.outputs["commit"]
			if sha == "" || w.gh.Ref(owner, repo, "heads/feature/cart") != sha {
				t.Fatalf("not pushed: commit %q\n%s\n%s", sha, r.stderr, w.gh.Comments(owner, repo, w.pr)[0].Body)
			}
			c := w.gh.Commit(owner, repo, sha)
			if len(c.Parents) != 1 || c.Parents[0] != head {
				t.Errorf("parents %v, want [%s] (the checked-out commit)", c.Parents, head)
			}
			files := w.gh.TreeFiles(owner, repo, sha)
			if string(files["cart_test.go"]) != content {
				t.Errorf("cart_test.go not pushed as written")
			}
			for p := range files {
				if strings.HasPrefix(p, "base/") || strings.HasPrefix(p, "gcloop-evidence/") {
					t.Errorf("the round's own file %s was pushed", p)
				}
			}
		})
	}
}

// shortOf is the 7-digit form of a sha the report shows.
func shortOf(sha string) string { return sha[:7] }

func TestGuardRefusesAPullRequestRoundWhoseHeadMoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
	checkedOut := w.head
	payload := w.pullPayload() // the event names the head it was sent for
	human := w.push(map[string]string{"testdata/fixture.json": "{}\n"})
	edits := []wsEdit{{path: "cart_test.go", content: guardTestFile + "\nfunc TestMore(t *testing.T) {\n\tif Total([]int{1}) != 1 {\n\t\tt.Error(\"one\")\n\t}\n}\n"}}
	r := w.guardRound(t, guardRun{edits: edits, checkout: checkedOut, payload: payload, extra: map[string]string{"GITHUB_SHA": checkedOut}})
	w.mustNotPush(t, r, human, "conflict", "moved", shortOf(checkedOut))
	for _, q := range w.gh.Requests() {
		if q.Method == "POST" && strings.Contains(q.Path, "/git/") {
			t.Errorf("a conflicting round created Git objects: %s %s", q.Method, q.Path)
		}
	}
}

// A round past the cap is judged and recorded, but its generator's
// changes are a fix effect: they are not pushed until /gc retry grants a
// round.
func TestGuardPushesNothingPastTheRoundCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": guardTestFile})
	in := map[string]string{"max-rounds": "1"}
	if r := w.guardRound(t, guardRun{inputs: in}); r.code != 0 || r.outputs["round"] != "1" {
		t.Fatalf("round 1: exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	head := w.push(map[string]string{"cart.go": "package cart // a person's fix\n"})
	from := len(w.gh.Requests())
	r := w.guardRound(t, guardRun{inputs: in, edits: []wsEdit{{path: "cart_more_test.go", content: "package cart\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Total([]int{1, 1}) != 2 {\n\t\tt.Errorf(\"two\")\n\t}\n}\n"}}})
	if r.outputs["round"] != "2" || r.outputs["decision"] == "fix" {
		t.Fatalf("round 2: outputs %v, want round 2 past the cap and no fix\n%s", r.outputs, r.stderr)
	}
	w.mustNotPush(t, r, head, `round\_cap`, "/gc retry")
	for _, m := range w.mutations(from) {
		if strings.Contains(m, "/git/") || strings.Contains(m, "/dispatches") {
			t.Errorf("a round past the cap made %s", m)
		}
	}
}

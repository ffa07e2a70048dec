package guard

import (
	"testing"
)

func TestMarkerHit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		marker string
		file   string
		line   string
		want   bool
	}{
		{"t.Skip with a reason hits", "t.Skip", "a_test.go", `	t.Skip("flaky")`, true},
		{"t.Skipf hits", "t.Skip", "a_test.go", `t.Skipf("later %d", n)`, true},
		{"t.SkipNow hits", "t.Skip", "a_test.go", `t.SkipNow()`, true},
		{"t.Skipped is a query, not a skip", "t.Skip", "a_test.go", `if t.Skipped() {`, false},
		{"another receiver hits", "t.Skip", "a_test.go", `tt.Skip("x")`, true},
		{"it.skip hits", "it.skip", "a.test.js", `it.skip('works', () => {})`, true},
		{"it.skip.each hits", "it.skip", "a.test.js", `it.skip.each([1])('x', f)`, true},
		{"edit.skip is not it.skip", "it.skip", "a.test.js", `edit.skip(1)`, false},
		{"xit as a call hits", "xit", "a.spec.js", `xit('works', () => {})`, true},
		{"xit with a space hits", "xit", "a.spec.js", `  xit ('works', f)`, true},
		{"exit( does not hit xit", "xit", "a_test.py", `sys.exit(1)`, false},
		{"xit in prose does not hit", "xit", "a.spec.js", `// xit is jasmine's skip`, false},
		{"describe.skip hits", "describe.skip", "a.test.ts", `describe.skip('suite', () => {`, true},
		{"test.skip hits", "test.skip", "a.test.ts", `test.skip('x', () => {})`, true},
		{"pytest.skip is not test.skip", "test.skip", "test_a.py", `pytest.skip("no")`, false},
		{"latest.skipped is not test.skip", "test.skip", "a.test.ts", `latest.skipped = 1`, false},
		{"describe.only hits", ".only", "a.test.ts", `describe.only('suite', () => {`, true},
		{"it.only hits", ".only", "a.test.ts", `it.only("x", f)`, true},
		{"test.only.each hits", ".only", "a.test.ts", `test.only.each([1])("x", f)`, true},
		{".only( on any receiver hits (an alias of it)", ".only", "a.test.ts", `t.only(1)`, true},
		{"it.onlyIf does not hit", ".only", "a.test.ts", `it.onlyIf(x)`, false},
		{"a pytest skip decorator hits", "@pytest.mark.skip", "test_a.py", `@pytest.mark.skip(reason="x")`, true},
		{"a pytest skipif decorator hits", "@pytest.mark.skip", "test_a.py", `@pytest.mark.skipif(True, reason="x")`, true},
		{"a module-level pytestmark hits", "@pytest.mark.skip", "test_a.py", `pytestmark = pytest.mark.skip`, true},
		{"pytest.mark.skipper does not hit", "@pytest.mark.skip", "test_a.py", `pytest.mark.skipper`, false},
		{"a unittest skip decorator hits", "@unittest.skip", "test_a.py", `@unittest.skip("x")`, true},
		{"a unittest skipIf decorator hits", "@unittest.skip", "test_a.py", `@unittest.skipIf(True, "x")`, true},
		{"@Disabled hits", "@Disabled", "FooTest.java", `  @Disabled("flaky")`, true},
		{"@DisabledOnOs hits", "@Disabled", "FooTest.java", `@DisabledOnOs(OS.WINDOWS)`, true},
		{"isDisabled does not hit", "@Disabled", "FooTest.java", `if (isDisabled()) {`, false},
		{"@Ignore hits", "@Ignore", "FooTest.java", `@Ignore`, true},
		{"@IgnoreIf hits", "@Ignore", "FooSpec.groovy", `@IgnoreIf({ os.windows })`, true},
		{"@JsonIgnore does not hit", "@Ignore", "FooTest.java", `@JsonIgnore`, false},
		{"@IgnoredField does not hit", "@Ignore", "FooTest.java", `@IgnoredField`, false},
		{"the Rust ignore attribute hits", "#[ignore]", "tests/a.rs", `#[ignore]`, true},
		{"the Rust ignore attribute with a reason hits", "#[ignore]", "tests/a.rs", `#[ignore = "slow"]`, true},
		{"a Rust ignore_me attribute does not hit", "#[ignore]", "tests/a.rs", `#[ignore_me]`, false},
		{"@ts-ignore hits", "@ts-ignore", "a.test.ts", `// @ts-ignore`, true},
		{"@ts-expect-error hits", "@ts-expect-error", "a.test.ts", `// @ts-expect-error wrong type`, true},
		{"an as any cast hits", "as any", "a.test.ts", `const x = (y as any).foo;`, true},
		{"an as any cast at the end of a line hits", "as any", "a.test.tsx", `const x = y as any`, true},
		{"a chained as any as T cast hits", "as any", "a.test.ts", `f(y as any as Foo)`, true},
		{"as any in prose does not hit", "as any", "a.test.ts", `// behaves as any other value`, false},
		{"as anything does not hit", "as any", "a.test.ts", `y as anything`, false},
		{"has any does not hit", "as any", "a.test.ts", `if (has any) {}`, false},
		{"as any in a Python file does not hit", "as any", "test_a.py", `x = y as any;`, false},
		{"eslint-disable hits", "eslint-disable", "a.test.js", `/* eslint-disable */`, true},
		{"eslint-disable-next-line hits", "eslint-disable", "a.test.js", `// eslint-disable-next-line no-console`, true},
		{"eslint-enable does not hit", "eslint-disable", "a.test.js", `/* eslint-enable */`, false},
		{"a custom marker is a literal substring", "FIXME(skip)", "a_test.go", `// FIXME(skip) later`, true},
		{"a custom marker is case-sensitive", "FIXME(skip)", "a_test.go", `// fixme(skip) later`, false},
		{"an empty marker never hits", "", "a_test.go", `anything`, false},
		// The per-language defaults of DESIGN §5.3.
		{"Go .Skip( on tt hits", ".Skip(", "a_test.go", `tt.Skip("later")`, true},
		{"Go .SkipNow( on b hits", ".Skip(", "a_test.go", `b.SkipNow()`, true},
		{"Go .Skipf( hits", ".Skip(", "a_test.go", `s.Skipf("x %d", 1)`, true},
		{"Go .Skipped() does not hit", ".Skip(", "a_test.go", `if t.Skipped() {`, false},
		{"C# LINQ .Skip( is not a Go skip", ".Skip(", "ATests.cs", `var x = list.Skip(3);`, false},
		{"Go build ignore hits", "//go:build ignore", "a_test.go", `//go:build ignore`, true},
		{"any Go build constraint hits", "//go:build ignore", "a_test.go", `//go:build never`, true},
		{"an old-style build line hits", "//go:build ignore", "a_test.go", `// +build ignore`, true},
		{"a comment mentioning go:build later in a line does not hit", "//go:build ignore", "a_test.go", `x := 1 // see //go:build`, false},
		{"xdescribe hits", "xdescribe", "a.test.js", `xdescribe('suite', () => {`, true},
		{"xcontext hits", "xdescribe", "a.test.js", `xcontext("c", f)`, true},
		{"xtest hits", "xtest", "a.test.ts", `xtest('x', () => {})`, true},
		{"a variable named xtest does not hit", "xtest", "a.test.ts", `const xtest = 1`, false},
		{".skip( on an alias hits", ".skip(", "a.test.ts", `t.skip('x', f)`, true},
		{".skip.each hits", ".skip(", "a.test.ts", `it.skip.each([1])('x', f)`, true},
		{".skip in a Python file is not JS", ".skip(", "test_a.py", `x.skip(1)`, false},
		{".only( hits", ".only(", "a.test.ts", `describe.only('s', f)`, true},
		{".todo( hits", ".todo(", "a.test.ts", `it.todo('later')`, true},
		{"fit hits", "fit", "a.spec.ts", `fit('focus', f)`, true},
		{"fdescribe hits", "fit", "a.spec.ts", `fdescribe('focus', f)`, true},
		{"profit( does not hit fit", "fit", "a.spec.ts", `profit(1)`, false},
		{"pytest.skip( hits", "pytest.skip(", "test_a.py", `    pytest.skip("no")`, true},
		{"pytest.importorskip( hits", "pytest.skip(", "test_a.py", `np = pytest.importorskip("numpy")`, true},
		{"skipif hits", "skipif", "test_a.py", `@mark.skipif(sys.platform == "win32", reason="x")`, true},
		{"unittest skipUnless hits", "skipif", "test_a.py", `@skipUnless(HAVE_X, "x")`, true},
		{"xfail hits", "xfail", "test_a.py", `@pytest.mark.xfail`, true},
		{"expectedFailure hits", "xfail", "test_a.py", `@unittest.expectedFailure`, true},
		{"self.skipTest hits", "self.skipTest", "test_a.py", `        self.skipTest("later")`, true},
		{"raise SkipTest hits", "raise SkipTest", "test_a.py", `raise unittest.SkipTest("x")`, true},
		{"raise nose's SkipTest hits", "raise SkipTest", "test_a.py", `raise SkipTest`, true},
		{"assumeTrue(false) hits", "assumeTrue(false)", "FooTest.java", `assumeTrue(false);`, true},
		{"any assumption hits", "assumeTrue(false)", "FooTest.java", `assumeThat(System.getenv("CI"), notNullValue());`, true},
		{"Assumptions.assume hits", "Assumptions.assume", "FooTest.kt", `Assumptions.assumeTrue(false)`, true},
		{"JUnit 4 Assume hits", "Assumptions.assume", "FooTest.java", `Assume.assumeFalse(true);`, true},
		{"assume in a Go file is not JVM", "assumeTrue(false)", "a_test.go", `assumeTrue(false)`, false},
		{"C# [Ignore] hits", "[Ignore]", "CartTests.cs", `[Test, Ignore("later")]`, true},
		{"C# [Ignore] alone hits", "[Ignore]", "CartTests.cs", `  [Ignore]`, true},
		{"C# Skip = hits", "Skip =", "CartTests.cs", `[Fact(Skip = "flaky")]`, true},
		{"C# Skip == is a comparison", "Skip =", "CartTests.cs", `if (Skip == 1) {}`, false},
		{"Ruby skip statement hits", "skip", "cart_spec.rb", `    skip "later"`, true},
		{"Ruby bare skip hits", "skip", "cart_test.rb", `  skip`, true},
		{"Ruby skip in a block hits", "skip", "cart_spec.rb", `it "x" do skip end`, true},
		{"Ruby method .skip does not hit", "skip", "cart_spec.rb", `list.skip(1)`, false},
		{"Ruby :skip symbol does not hit", "skip", "cart_spec.rb", `opts = { mode: :skip }`, false},
		{"Ruby pending hits", "pending", "cart_spec.rb", `  pending "not done"`, true},
		{"Ruby xit without parentheses hits", "xit", "cart_spec.rb", `  xit "adds" do`, true},
		{"skip in a Go file is not Ruby", "skip", "a_test.go", `skip := true`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := MarkerHit(tt.marker, tt.file, tt.line); got != tt.want {
				t.Errorf("MarkerHit(%q, %q, %q) = %v, want %v", tt.marker, tt.file, tt.line, got, tt.want)
			}
		})
	}
}

func TestEveryDefaultMarkerIsRefined(t *testing.T) {
	t.Parallel()
	for _, m := range DefaultMarkers {
		if _, ok := knownMarkers()[m]; !ok {
			t.Errorf("default marker %q has no refined matcher", m)
		}
	}
}

package guard

import (
	"regexp"
	"strings"
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
		{"another receiver ending in t does not hit", "t.Skip", "a_test.go", `st.Skip("x")`, false},
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
		{"options.only( does not hit", ".only", "a.test.ts", `options.only(1)`, false},
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
		if knownMarkers[m] == nil {
			t.Errorf("default marker %q has no refined matcher", m)
		}
	}
	for m, re := range knownMarkers {
		lit := markerLiterals[m]
		if lit == "" || !strings.Contains(re.String(), regexp.QuoteMeta(lit)) && !strings.Contains(re.String(), lit) {
			t.Errorf("marker %q: literal %q is not part of %s", m, lit, re)
		}
	}
	if len(knownMarkers) != len(DefaultMarkers) {
		t.Errorf("%d refined matchers for %d default markers", len(knownMarkers), len(DefaultMarkers))
	}
}

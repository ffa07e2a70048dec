package guard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDeclsOf(t *testing.T) {
	t.Parallel()
	type d struct {
		Key          string
		Line         int
		Asserts      int
		EarlyReturns int
	}
	tests := []struct {
		name string
		file string
		src  string
		want []d
	}{
		{"Go tests, fuzz targets, benchmarks and examples", "a_test.go",
			"package a\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatalf(\"x\")\n\t}\n}\n\nfunc BenchmarkA(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n\nfunc FuzzA(f *testing.F) {}\n\nfunc ExampleA() {}\n\nfunc helper() {}\n",
			[]d{{"go:TestA", 3, 1, 0}, {"go:BenchmarkA", 9, 0, 0}, {"go:FuzzA", 14, 0, 0}, {"go:ExampleA", 16, 0, 0}}},
		{"Go early return before the first assertion", "a_test.go",
			"func TestA(t *testing.T) {\n\treturn\n\tt.Error(\"x\")\n}\n",
			[]d{{"go:TestA", 1, 1, 1}}},
		{"Go return after the assertion is not early", "a_test.go",
			"func TestA(t *testing.T) {\n\tif x {\n\t\tt.Error(\"x\")\n\t\treturn\n\t}\n}\n",
			[]d{{"go:TestA", 1, 1, 0}}},
		{"Go braces in strings, runes and comments do not end the body", "a_test.go",
			"func TestA(t *testing.T) {\n\ts := \"}\" + `}` + string('}') // }\n\t/* } */\n\trequire.Equal(t, s, \"x\")\n}\n",
			[]d{{"go:TestA", 1, 1, 0}}},
		{"Go a commented-out assertion does not count", "a_test.go",
			"func TestA(t *testing.T) {\n\t// t.Fatal(\"x\")\n}\n",
			[]d{{"go:TestA", 1, 0, 0}}},
		{"JS it and test with bodies", "a.test.ts",
			"describe('cart', () => {\n  it('adds', () => {\n    expect(add(1)).toBe(1)\n  })\n  test(\"removes\", async () => {\n    return\n    expect(x).toBe(2)\n  })\n  it.each([1, 2])('each %d', (n) => { expect(n).toBeTruthy() })\n})\n",
			[]d{{"js:adds", 2, 1, 0}, {"js:removes", 5, 1, 1}, {"js:each %d", 9, 1, 0}}},
		{"JS skipped and focused forms are declarations", "a.spec.js",
			"it.skip('a', () => {})\nxit('b', () => {})\nfit(`c`, () => {})\n",
			[]d{{"js:a", 1, 0, 0}, {"js:b", 2, 0, 0}, {"js:c", 3, 0, 0}}},
		{"Python functions and methods", "test_a.py",
			"import pytest\n\ndef test_a():\n    assert a() == 1\n\nclass TestB:\n    def test_b(self):\n        return\n        self.assertEqual(b(), 2)\n\ndef helper():\n    return 1\n",
			[]d{{"py:test_a", 3, 1, 0}, {"py:test_b", 7, 1, 1}}},
		{"Python multi-line signature", "test_a.py",
			"def test_a(\n    fixture,\n):\n    with pytest.raises(ValueError):\n        f()\n",
			[]d{{"py:test_a", 1, 1, 0}}},
		{"Java @Test methods", "src/test/java/ATest.java",
			"class ATest {\n  @Test\n  void adds() {\n    assertEquals(1, add(1));\n  }\n\n  @ParameterizedTest @ValueSource(ints = {1})\n  public void each(int n) {\n    if (n > 0) return;\n    assertThat(n).isPositive();\n  }\n}\n",
			[]d{{"jvm:adds", 3, 1, 0}, {"jvm:each", 8, 1, 1}}},
		{"Kotlin backtick names", "src/test/kotlin/ATest.kt",
			"class ATest {\n    @Test fun `adds two`() {\n        assertEquals(2, add(1, 1))\n    }\n}\n",
			[]d{{"jvm:adds two", 2, 1, 0}}},
		{"Rust #[test] functions", "tests/a.rs",
			"#[test]\nfn adds() {\n    let s: &'static str = \"}\";\n    assert_eq!(add(1), 1);\n}\n\n#[tokio::test]\nasync fn waits() {\n    return;\n}\n",
			[]d{{"rust:adds", 2, 1, 0}, {"rust:waits", 8, 0, 1}}},
		{"C# xUnit and NUnit", "tests/CartTests.cs",
			"public class CartTests {\n    [Fact]\n    public void Adds() {\n        Assert.Equal(1, Add(1));\n    }\n    [Test, Category(\"x\")]\n    public async Task Waits() {\n        result.Should().Be(1);\n    }\n}\n",
			[]d{{"cs:Adds", 3, 1, 0}, {"cs:Waits", 7, 1, 0}}},
		{"Ruby RSpec and minitest", "spec/cart_spec.rb",
			"describe Cart do\n  it \"adds\" do\n    expect(cart.add(1)).to eq(1)\n  end\n\n  it 'waits' do\n    next\n    expect(x).to be\n  end\nend\n\nclass CartTest < Minitest::Test\n  def test_total\n    assert_equal 1, total\n  end\nend\n",
			[]d{{"ruby:adds", 2, 1, 0}, {"ruby:waits", 6, 1, 1}, {"ruby:test_total", 13, 1, 0}}},
		{"a file of no known language has no declarations", "testdata/a.txt", "func TestA(t *testing.T) {}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []d
			for _, x := range declsOf(langOf(tt.file), splitLines([]byte(tt.src))) {
				got = append(got, d{x.key, x.line, x.asserts, x.earlyReturns})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("declarations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckJudgesWhatTheChangeDoesToTheTests covers the declaration rules
// of DESIGN §5.3 in each language: a removed test, a test stripped of its
// assertions, an added early return — and the legitimate changes beside
// them (a moved test, a new assertion, a new test).
func TestCheckJudgesWhatTheChangeDoesToTheTests(t *testing.T) {
	t.Parallel()
	goOld := "package a\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n\nfunc TestB(t *testing.T) {\n\tif B() != 2 {\n\t\tt.Errorf(\"B\")\n\t}\n}\n"
	pyOld := "def test_a():\n    assert a() == 1\n\ndef test_b():\n    assert b() == 2\n"
	jsOld := "describe('x', () => {\n  it('a', () => {\n    expect(a()).toBe(1)\n  })\n  it('b', () => {\n    expect(b()).toBe(2)\n  })\n})\n"
	javaOld := "class ATest {\n  @Test\n  void a() {\n    assertEquals(1, a());\n  }\n  @Test\n  void b() {\n    assertEquals(2, b());\n  }\n}\n"
	rustOld := "#[test]\nfn a() {\n    assert_eq!(a(), 1);\n}\n\n#[test]\nfn b() {\n    assert_eq!(b(), 2);\n}\n"
	csOld := "class ATests {\n    [Fact]\n    public void A() {\n        Assert.Equal(1, A());\n    }\n    [Fact]\n    public void B() {\n        Assert.Equal(2, B());\n    }\n}\n"
	rbOld := "describe X do\n  it 'a' do\n    expect(a).to eq(1)\n  end\n  it 'b' do\n    expect(b).to eq(2)\n  end\nend\n"
	type want struct {
		kind string
		line int
	}
	tests := []struct {
		name    string
		changes []Change
		want    []want
	}{
		{"Go: a deleted failing test", []Change{modified("a_test.go", goOld, strings.Split(goOld, "func TestB")[0])}, []want{{TestRemoved, 0}}},
		{"Go: a deleted test file", []Change{deleted("a_test.go", goOld)}, []want{{TestRemoved, 0}, {TestRemoved, 0}}},
		{"Go: an emptied body", []Change{modified("a_test.go", goOld, strings.Replace(goOld, "\tif B() != 2 {\n\t\tt.Errorf(\"B\")\n\t}\n", "", 1))}, []want{{AssertionsGone, 9}}},
		{"Go: an early return as the first line", []Change{modified("a_test.go", goOld, strings.Replace(goOld, "func TestB(t *testing.T) {\n", "func TestB(t *testing.T) {\n\treturn\n", 1))}, []want{{EarlyReturn, 9}}},
		{"Go: an early return hidden in an if", []Change{modified("a_test.go", goOld, strings.Replace(goOld, "func TestB(t *testing.T) {\n", "func TestB(t *testing.T) {\n\tif true { return }\n", 1))}, []want{{EarlyReturn, 9}}},
		{"Go: a renamed test is a removed one", []Change{modified("a_test.go", goOld, strings.Replace(goOld, "TestB", "TestBRenamed", 1))}, []want{{TestRemoved, 0}}},
		{"Go: a test moved to another file is not lost", []Change{
			modified("a_test.go", goOld, strings.Split(goOld, "func TestB")[0]),
			added("b_test.go", "package a\n\nfunc TestB(t *testing.T) {\n\tif B() != 2 {\n\t\tt.Errorf(\"B\")\n\t}\n}\n"),
		}, nil},
		{"Go: a new assertion and a new test are fine", []Change{modified("a_test.go", goOld, strings.Replace(goOld, "\t\tt.Errorf(\"B\")\n", "\t\tt.Errorf(\"B\")\n\t}\n\tif B() == 3 {\n\t\tt.Errorf(\"3\")\n", 1)+"\nfunc TestC(t *testing.T) {\n\tif C() != 3 {\n\t\tt.Error(\"C\")\n\t}\n}\n")}, nil},
		{"Go: a benchmark without assertions may be rewritten", []Change{modified("a_test.go", "func BenchmarkA(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t}\n}\n", "func BenchmarkA(b *testing.B) {\n\tfor b.Loop() {\n\t\tA()\n\t}\n}\n")}, nil},
		{"Python: a deleted test", []Change{modified("test_a.py", pyOld, "def test_a():\n    assert a() == 1\n")}, []want{{TestRemoved, 0}}},
		{"Python: an emptied body", []Change{modified("test_a.py", pyOld, "def test_a():\n    assert a() == 1\n\ndef test_b():\n    pass\n")}, []want{{AssertionsGone, 4}}},
		{"Python: an early return", []Change{modified("test_a.py", pyOld, "def test_a():\n    assert a() == 1\n\ndef test_b():\n    return\n    assert b() == 2\n")}, []want{{EarlyReturn, 4}}},
		{"Python: a new assertion is fine", []Change{modified("test_a.py", pyOld, pyOld+"    assert b() != 3\n")}, nil},
		{"JS: a deleted test", []Change{modified("a.test.js", jsOld, "describe('x', () => {\n  it('a', () => {\n    expect(a()).toBe(1)\n  })\n})\n")}, []want{{TestRemoved, 0}}},
		{"JS: an emptied body", []Change{modified("a.test.js", jsOld, strings.Replace(jsOld, "    expect(b()).toBe(2)\n", "", 1))}, []want{{AssertionsGone, 5}}},
		{"JS: an early return", []Change{modified("a.test.js", jsOld, strings.Replace(jsOld, "  it('b', () => {\n", "  it('b', () => {\n    return\n", 1))}, []want{{EarlyReturn, 5}}},
		{"Java: a deleted @Test", []Change{modified("src/test/java/ATest.java", javaOld, strings.Replace(javaOld, "  @Test\n  void b() {\n    assertEquals(2, b());\n  }\n", "", 1))}, []want{{TestRemoved, 0}}},
		{"Java: an emptied body", []Change{modified("src/test/java/ATest.java", javaOld, strings.Replace(javaOld, "    assertEquals(2, b());\n", "", 1))}, []want{{AssertionsGone, 7}}},
		{"Java: an early return", []Change{modified("src/test/java/ATest.java", javaOld, strings.Replace(javaOld, "  void b() {\n", "  void b() {\n    if (true) return;\n", 1))}, []want{{EarlyReturn, 7}}},
		{"Rust: a deleted #[test]", []Change{modified("tests/a.rs", rustOld, strings.Split(rustOld, "\n#[test]\nfn b")[0])}, []want{{TestRemoved, 0}}},
		{"Rust: an early return", []Change{modified("tests/a.rs", rustOld, strings.Replace(rustOld, "fn b() {\n", "fn b() {\n    return;\n", 1))}, []want{{EarlyReturn, 7}}},
		{"C#: an emptied body", []Change{modified("tests/ATests.cs", csOld, strings.Replace(csOld, "        Assert.Equal(2, B());\n", "", 1))}, []want{{AssertionsGone, 7}}},
		{"Ruby: a deleted example", []Change{modified("tests/a_spec.rb", rbOld, "describe X do\n  it 'a' do\n    expect(a).to eq(1)\n  end\nend\n")}, []want{{TestRemoved, 0}}},
		{"Ruby: next before the expectation", []Change{modified("tests/a_spec.rb", rbOld, strings.Replace(rbOld, "  it 'b' do\n", "  it 'b' do\n    next\n", 1))}, []want{{EarlyReturn, 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := Check(tt.changes, nil, nil, improved, Options{})
			var got []want
			for _, v := range res.Violations {
				got = append(got, want{v.Kind, v.Line})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%s", diff, fmt.Sprint(res.Violations))
			}
		})
	}
}

package coverage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// The fixtures under testdata/{go,lcov,cobertura,jacoco} were written by the
// real tools (testdata/gen/gen.sh), which also saved what each tool printed
// to <fixture>.tool.txt. These tests hold the readers to those printed
// numbers.

func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toolLines returns the submatches of re over the lines of a tool output.
func toolLines(t *testing.T, path, re string) [][]string {
	t.Helper()
	rx := regexp.MustCompile(re)
	var out [][]string
	for _, l := range strings.Split(string(readFixture(t, path)), "\n") {
		if m := rx.FindStringSubmatch(l); m != nil {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no line matches %s", path, re)
	}
	return out
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pkgPercent is the statement coverage of the files directly in pkg.
func pkgPercent(f *decide.CoverageFacts, pkg string) (float64, bool) {
	var c, n int64
	for _, fc := range f.Files {
		if filepath.ToSlash(filepath.Dir(fc.Path)) == pkg {
			c += fc.Covered
			n += fc.Total
		}
	}
	return 100 * float64(c) / float64(n), n > 0
}

func TestReadGoProfileMatchesGoTestCover(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"go/set.out", "go/count.out", "go/atomic.out", "go/coverpkg.out"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			facts, err := ReadGoProfile(fixture, bytes.NewReader(readFixture(t, fixture)))
			if err != nil {
				t.Fatal(err)
			}
			// "ok  <pkg>  coverage: 38.5% of statements" (go test -cover) or
			// "<pkg>  coverage: 61.5% of statements" (go tool covdata percent
			// over the merged -coverpkg run).
			tool := strings.TrimSuffix(fixture, ".out") + ".tool.txt"
			for _, m := range toolLines(t, tool, `^(?:ok)?\s+(\S+)\s+coverage: ([0-9.]+)% of statements$`) {
				got, ok := pkgPercent(facts, m[1])
				if !ok {
					t.Fatalf("no file of package %s in %s", m[1], fixture)
				}
				if s := fmt.Sprintf("%.1f", got); s != m[2] {
					t.Errorf("%s: package %s: got %s%%, the go tool printed %s%%", fixture, m[1], s, m[2])
				}
			}
		})
	}
}

// go tool cover -func counts only statements inside function declarations;
// the one block outside any (calc.go's package-level func literal Double,
// see testdata/gen/gomod/calc/calc.go) is the whole difference.
func TestReadGoProfileMatchesCoverFuncWithoutFuncLiterals(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"go/set.out", "go/count.out", "go/atomic.out", "go/coverpkg.out"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			var kept []byte
			for _, l := range bytes.SplitAfter(readFixture(t, fixture), []byte("\n")) {
				if !bytes.Contains(l, []byte("calc/calc.go:7.30,9.2 ")) {
					kept = append(kept, l...)
				}
			}
			facts, err := ReadGoProfile(fixture, bytes.NewReader(kept))
			if err != nil {
				t.Fatal(err)
			}
			tool := strings.TrimSuffix(fixture, ".out") + ".tool.txt"
			m := toolLines(t, tool, `^total:\s+\(statements\)\s+([0-9.]+)%$`)[0]
			got := fmt.Sprintf("%.1f", 100*float64(facts.Covered)/float64(facts.Total))
			if got != m[1] {
				t.Errorf("got %s%%, go tool cover -func printed %s%%", got, m[1])
			}
		})
	}
}

func TestReadLCOVMatchesLcovSummary(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"lcov/c.info", "lcov/concat.info", "lcov/python.info", "lcov/hand-lflh.info"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			facts, err := ReadLCOV(fixture, bytes.NewReader(readFixture(t, fixture)))
			if err != nil {
				t.Fatal(err)
			}
			m := toolLines(t, fixture+".tool.txt", `lines\.+: [0-9.]+% \((\d+) of (\d+) lines\)`)[0]
			if facts.Covered != atoi(t, m[1]) || facts.Total != atoi(t, m[2]) {
				t.Errorf("got %d of %d lines, lcov --summary printed %s of %s", facts.Covered, facts.Total, m[1], m[2])
			}
		})
	}
}

func TestReadCoberturaMatchesToolTotals(t *testing.T) {
	t.Parallel()
	t.Run("gcovr", func(t *testing.T) {
		t.Parallel()
		facts, err := ReadCobertura("gcovr.xml", bytes.NewReader(readFixture(t, "cobertura/gcovr.xml")))
		if err != nil {
			t.Fatal(err)
		}
		// gcovr: "TOTAL   lines   exec   cover%"
		m := toolLines(t, "cobertura/gcovr.xml.tool.txt", `^TOTAL\s+(\d+)\s+(\d+)\s+\d+%$`)[0]
		if facts.Total != atoi(t, m[1]) || facts.Covered != atoi(t, m[2]) {
			t.Errorf("got %d of %d lines, gcovr printed %s of %s", facts.Covered, facts.Total, m[2], m[1])
		}
	})
	t.Run("coverage.py", func(t *testing.T) {
		t.Parallel()
		facts, err := ReadCobertura("python.xml", bytes.NewReader(readFixture(t, "cobertura/python.xml")))
		if err != nil {
			t.Fatal(err)
		}
		// coverage report: "TOTAL   stmts   miss   cover%"
		m := toolLines(t, "cobertura/python.xml.tool.txt", `^TOTAL\s+(\d+)\s+(\d+)\s+\d+%$`)[0]
		if facts.Total != atoi(t, m[1]) || facts.Covered != atoi(t, m[1])-atoi(t, m[2]) {
			t.Errorf("got %d of %d lines, coverage report printed %s statements, %s missed", facts.Covered, facts.Total, m[1], m[2])
		}
	})
}

func TestReadJaCoCoMatchesJaCoCoLineCounter(t *testing.T) {
	t.Parallel()
	facts, err := ReadJaCoCo("demo.xml", bytes.NewReader(readFixture(t, "jacoco/demo.xml")))
	if err != nil {
		t.Fatal(err)
	}
	m := toolLines(t, "jacoco/demo.xml.tool.txt", `^jacoco LINE covered=(\d+) missed=(\d+) total=(\d+)$`)[0]
	if facts.Covered != atoi(t, m[1]) || facts.Total != atoi(t, m[3]) {
		t.Errorf("got %d of %d lines, JaCoCo counted %s of %s", facts.Covered, facts.Total, m[1], m[3])
	}
}

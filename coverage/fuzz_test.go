package coverage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// Fuzz property for every reader: no panic, and an error is always a
// one-line *parse.Error.

func fuzzSeeds(f *testing.F, dir string, extra ...string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	for _, p := range paths {
		if filepath.Ext(p) == ".txt" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

func fuzzCheck(t *testing.T, err error) {
	if err == nil {
		return
	}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %T %v is not a *parse.Error", err, err)
	}
	if bytes.ContainsAny([]byte(err.Error()), "\n") {
		t.Fatalf("error spans several lines: %q", err)
	}
}

func fuzzCoverage(t *testing.T, data []byte, read func(string, io.Reader) (*decide.CoverageFacts, error)) {
	facts, err := read("fuzz", bytes.NewReader(data))
	fuzzCheck(t, err)
	if err != nil {
		return
	}
	var c, n int64
	for _, f := range facts.Files {
		if f.Covered < 0 || f.Covered > f.Total {
			t.Fatalf("file %+v: covered outside 0..total", f)
		}
		c, n = c+f.Covered, n+f.Total
	}
	if c != facts.Covered || n != facts.Total {
		t.Fatalf("totals %d/%d differ from the files' %d/%d", facts.Covered, facts.Total, c, n)
	}
}

func FuzzReadGoProfile(f *testing.F) {
	fuzzSeeds(f, "go", "mode: set\na.go:1.1,2.2 1 1\nb.go:1.1,2.2 1 0\na.go:1.1,2.2 1 0\n", "mode: count\na.go:3.1,4.2 2 0\na.go:1.1,2.2 3 7\na.go:1.1,2.2 3 0\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzCoverage(t, data, ReadGoProfile) })
}

func FuzzReadLCOV(f *testing.F) {
	fuzzSeeds(f, "lcov", "SF:a\nDA:1,1\nDA:1,0\nDA:9000000,1\nend_of_record\nSF:a\nDA:2,1,x\nend_of_record\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzCoverage(t, data, ReadLCOV) })
}

func FuzzReadCobertura(f *testing.F) {
	fuzzSeeds(f, "cobertura", `<!DOCTYPE coverage [<!ENTITY a "b">]><coverage>&a;</coverage>`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzCoverage(t, data, ReadCobertura) })
}

func FuzzReadClover(f *testing.F) {
	fuzzSeeds(f, "clover", `<coverage clover="3"><project><file path="a"><line num="1" type="cond" truecount="1" falsecount="0"/></file></project></coverage>`,
		`<coverage><project><file path="m.js"><line num="9" count="0" type="cond" truecount="1" falsecount="2"/><line num="9" type="stmt" count="0"/></file></project></coverage>`)
	fuzzSeeds(f, "upstream/php-code-coverage/tests/_files/Report/OpenClover")
	fuzzSeeds(f, "upstream/gcovr/const-functions/reference/gcc-14")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzCoverage(t, data, ReadClover) })
}

func FuzzReadJaCoCo(f *testing.F) {
	fuzzSeeds(f, "jacoco", jacocoHead+`<report><package name="p"><sourcefile name="A"><counter type="LINE" missed="1" covered="2"/></sourcefile></package></report>`,
		`<report><package name="p"><sourcefile name="A"><line nr="1"/><line nr="2" ci="1"/><line nr="3" mi=""/></sourcefile></package></report>`)
	fuzzSeeds(f, "upstream/sonar-jacoco/src/test/resources")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzCoverage(t, data, ReadJaCoCo) })
}

func FuzzReadRunJSON(f *testing.F) {
	f.Add([]byte(`{"layer":"L1","framework":"jest","pass_rate":0.95,"coverage":82.5,"tests_passed":19,"tests_failed":1,"all_passed":false,"defect_patterns":["x",{"name":"y"}]}`))
	f.Add([]byte(`{"coverage":null,"all_passed":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ReadRunJSON("fuzz", bytes.NewReader(data))
		fuzzCheck(t, err)
		if err == nil && e.Coverage == nil {
			t.Fatal("no coverage facts")
		}
	})
}

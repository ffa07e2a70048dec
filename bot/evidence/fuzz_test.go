package evidence

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// fixtureSeeds adds every small evidence fixture of the repository to f,
// with a number to pick a loop or a format by.
func fixtureSeeds(f *testing.F) {
	dirs := []string{"testdata/examples", "decide/evidence/testdata", "coverage/testdata/lcov", "coverage/testdata/go",
		"coverage/testdata/junit", "coverage/testdata/cobertura", "coverage/testdata/jacoco", "coverage/testdata/clover"}
	n := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join("..", "..", dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil || info.Size() > 32<<10 {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.Add(filepath.Base(p), string(data), uint8(n))
			n++
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	if n == 0 {
		f.Fatal("no fixtures found")
	}
}

// FuzzRead reads arbitrary content, under an arbitrary name, as any loop's
// evidence: the one entry point the action and the bot use. Read never
// panics; an error names the file and is one line; evidence it returns
// names its source and merges on its own; a critique loop never fails on
// content it cannot read.
func FuzzRead(f *testing.F) {
	fixtureSeeds(f)
	f.Add("x.json", `{"review_score": 1e999}`, uint8(0))
	f.Add("x.xml", `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`, uint8(0))
	f.Add("validation-report.json", `{"passed": tr`, uint8(4))
	loops := append([]decide.Loop{""}, decide.Loops...)
	f.Fuzz(func(t *testing.T, name, content string, l uint8) {
		if name == "" || strings.ContainsAny(name, "\r\n") {
			return // names come from clean artifact and workspace paths
		}
		loop := loops[int(l)%len(loops)]
		e, err := Read(name, strings.NewReader(content), loop)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name %q: %v", name, err)
			}
			var pe *parse.Error
			if loop == decide.Critique && errors.As(err, &pe) {
				t.Fatalf("a critique loop failed on unreadable content: %v", err)
			}
			return
		}
		if e == nil {
			t.Fatal("no evidence and no error")
		}
		found := false
		for _, s := range e.Sources {
			found = found || strings.Contains(s, name)
		}
		if !found {
			t.Fatalf("sources %q do not name %q", e.Sources, name)
		}
		if _, err := decide.Merge(e); err != nil {
			t.Fatalf("one piece of evidence does not merge: %v", err)
		}
	})
}

// FuzzSniff sniffs arbitrary bytes and reads them with the reader of the
// format sniffed, and with each family's reader (ReadReport): no panic, and
// an error is a *parse.Error that names the file.
func FuzzSniff(f *testing.F) {
	fixtureSeeds(f)
	f.Add("f", `{"pass_rate":1}`, uint8(0))
	f.Add("f", "<?xml?><!-- x --><testsuites>", uint8(0))
	f.Add("f", "\ufeff<coverage clover=\"1\"><project>", uint8(0))
	f.Fuzz(func(t *testing.T, _ string, content string, _ uint8) {
		const name = "fuzz/in.put"
		check := func(err error) {
			t.Helper()
			var pe *parse.Error
			if err != nil && (!errors.As(err, &pe) || pe.File != name) {
				t.Fatalf("error %T %v is not a ParseError naming %s", err, err, name)
			}
		}
		if f, ok := Sniff([]byte(content), Any); ok {
			if Known([]byte(content)) != true {
				t.Fatal("Known disagrees with Sniff")
			}
			e, err := f.Read(name, strings.NewReader(content))
			check(err)
			if err == nil && e == nil {
				t.Fatalf("%s: no evidence and no error", f.Name)
			}
		}
		_, _, err := ReadReport(name, strings.NewReader(content))
		check(err)
	})
}

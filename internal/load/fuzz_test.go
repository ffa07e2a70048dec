package load

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// fixtureSeeds adds every small evidence fixture of the repository to f.
func fixtureSeeds(f *testing.F) {
	dirs := []string{"../../testdata/examples", "../../decide/evidence/testdata", "../../coverage/testdata/lcov",
		"../../coverage/testdata/go", "../../coverage/testdata/junit", "../../coverage/testdata/cobertura", "../../coverage/testdata/jacoco"}
	n := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
// evidence: the one entry point the action uses for files of an artifact.
// Read never panics; an error names the file and is one line; evidence it
// returns names its source and merges on its own; a critique loop never
// fails on content it cannot read (DESIGN §2.2).
func FuzzRead(f *testing.F) {
	fixtureSeeds(f)
	f.Add("x.json", `{"review_score": 1e999}`, uint8(0))
	f.Add("x.xml", `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`, uint8(0))
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
			var pe *decide.ParseError
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

package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// module is the module's path; mod-relative names in this package drop it
// ("bot/round", and "." for the root package).
const module = "github.com/gcloop/gcloop"

// pkg is what the tests need of one `go list -json` entry.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// goTool returns the go command on PATH, the one running the tests.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	return p
}

// goCmd runs the go command in the module's root and returns its output.
func goCmd(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	rootOnce.Do(func() {
		out, err := exec.Command(goTool(t), "env", "GOMOD").Output()
		switch {
		case err != nil:
			rootErr = fmt.Errorf("go env GOMOD: %w", err)
		case strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == "/dev/null":
			rootErr = errors.New("go env GOMOD: not in a module")
		default:
			rootDir = filepath.Dir(strings.TrimSpace(string(out)))
		}
	})
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return rootDir
}

// listPackages lists the packages that patterns match (with -deps, their
// dependencies too), failing t on any package go list could not load.
func listPackages(t *testing.T, deps bool, patterns ...string) []pkg {
	t.Helper()
	args := []string{"list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error"}
	if deps {
		args = append(args, "-deps")
	}
	out := goCmd(t, append(args, patterns...)...)
	pkgs, err := decodePackages(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if p.Error != nil {
			t.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
	}
	return pkgs
}

// decodePackages reads go list's stream of JSON objects.
func decodePackages(r io.Reader) ([]pkg, error) {
	var pkgs []pkg
	dec := json.NewDecoder(r)
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode go list output (package %d): %w", len(pkgs)+1, err)
		}
		pkgs = append(pkgs, p)
	}
}

// modRel returns p relative to the module ("." for its root package) and
// whether p is in the module at all.
func modRel(p string) (string, bool) {
	if p == module {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(p, module+"/"); ok {
		return rest, true
	}
	return "", false
}

// under reports whether rel is dir or a package below it.
func under(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

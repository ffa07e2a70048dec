package evidence

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the list of formats in README.md from the registry")

// The README's list of formats sits between these markers.
const (
	formatsBegin = "<!-- formats: generated from the evidence registry (bot/evidence); go test ./bot/evidence -run TestREADME -update rewrites it -->\n"
	formatsEnd   = "<!-- end of formats -->\n"
)

// formatsTable is the README's list of formats, in the order the rules are
// tried.
func formatsTable() string {
	var b strings.Builder
	b.WriteString("| format | family | file | recognised by |\n|---|---|---|---|\n")
	for _, f := range Formats() {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Name, f.Family, f.What, f.Sniffs)
	}
	return b.String()
}

// TestREADMEListsTheRegistry keeps the README's list of formats what the
// registry holds; -update rewrites it.
func TestREADMEListsTheRegistry(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok := strings.Cut(doc, formatsBegin)
	if !ok {
		t.Fatalf("README.md has no line %q", formatsBegin)
	}
	shown, after, ok := strings.Cut(rest, formatsEnd)
	if !ok {
		t.Fatalf("README.md has no line %q after the list of formats", formatsEnd)
	}
	want := formatsTable()
	if shown == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+formatsBegin+want+formatsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's list of formats differs from the registry (-registry +README); run go test ./bot/evidence -run TestREADME -update\n%s", cmp.Diff(want, shown))
}

package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryLinks checks every link of the README and docs/.
func TestRepositoryLinks(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	docs := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	broken, err := Check(root, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
	if n := len(Links("README.md", mustRead(t, filepath.Join(root, "README.md")))); n == 0 {
		t.Error("README.md has no links: the link parser is broken")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/other.md", "# Other doc\n\n## The `bot` — set-up\n\n## Usage\n\n## Usage\n")
	write("docs/wf/a.yml", "on: push\n")
	write("README.md", strings.Join([]string{
		"# Title",
		"",
		"[ok](docs/other.md) [dir](docs/wf/) [anchor](#title) [there](docs/other.md#the-bot--set-up)",
		"[dup](docs/other.md#usage-1) [web](https://example.com/x) [img](docs/wf/a.yml)",
		"",
		"[missing](docs/nope.md)",
		"",
		"[bad anchor](#nowhere)",
		"",
		"[bad there](docs/other.md#usage-2)",
		"",
		"[out](../secret.md) [abs](/docs/other.md) [nohost](https:///x)",
		"",
		"```",
		"[in code](nope.md)",
		"```",
	}, "\n"))
	got, err := Check(root, []string{"README.md", "docs/other.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:6: docs/nope.md: no such file or directory",
		"README.md:8: #nowhere: no heading with anchor #nowhere in README.md",
		"README.md:10: docs/other.md#usage-2: no heading with anchor #usage-2 in docs/other.md",
		"README.md:12: ../secret.md: outside the repository",
		"README.md:12: /docs/other.md: absolute path: links must be relative to the document",
		"README.md:12: https:///x: no host",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Try it without GitHub (dry run)": "try-it-without-github-dry-run",
		"The bot — set-up":                "the-bot--set-up",
		"Inputs/outputs":                  "inputsoutputs",
		"`gcloop decide`":                 "gcloop-decide",
		"Ünïcode_ok 2":                    "ünïcode_ok-2",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

package imagetest

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// docFiles are the Markdown pages users read: the README and every page
// under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// markdownDoc is one parsed page: its links and its headings' anchors.
type markdownDoc struct {
	links   []string
	anchors map[string]bool
}

func parseDoc(t *testing.T, name string) markdownDoc {
	t.Helper()
	src := readRoot(t, name)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	tree := md.Parser().Parse(text.NewReader(src))
	doc := markdownDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	err := ast.Walk(tree, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			doc.links = append(doc.links, string(n.Destination))
		case *ast.Image:
			doc.links = append(doc.links, string(n.Destination))
		case *ast.Heading:
			slug := githubSlug(headingText(n, src))
			if k := seen[slug]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// headingText is a heading's text as GitHub reads it for the anchor: the
// text of every inline, code spans included.
func headingText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// githubSlug is the anchor GitHub gives a heading: lower case, letters,
// digits, '-' and '_' kept, spaces to '-', everything else dropped.
func githubSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestGithubSlug(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Try it without GitHub (dry run)": "try-it-without-github-dry-run",
		"`gcloop decide`":                 "gcloop-decide",
		"The CLI on monorepo reports: `coverage report`, Go profiles, SARIF (25 November)": "the-cli-on-monorepo-reports-coverage-report-go-profiles-sarif-25-november",
		"Generator–critic loops": "generatorcritic-loops",
	}
	for in, want := range tests {
		if got := githubSlug(in); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every link of the README and docs/ resolves: an anchor to a heading of
// its page, a relative path to a file of the repository (and its anchor),
// an absolute URL to a well-formed https address. Nothing is fetched.
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	docs := map[string]markdownDoc{}
	for _, name := range docFiles(t) {
		docs[name] = parseDoc(t, name)
	}
	anchorsOf := func(name string) (map[string]bool, bool) {
		if d, ok := docs[name]; ok {
			return d.anchors, true
		}
		if strings.HasSuffix(name, ".md") {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err == nil {
				d := parseDoc(t, name)
				docs[name] = d
				return d.anchors, true
			}
		}
		return nil, false
	}
	checked := 0
	for _, name := range docFiles(t) {
		for _, link := range docs[name].links {
			checked++
			u, err := url.Parse(link)
			switch {
			case err != nil:
				t.Errorf("%s: link %q does not parse: %v", name, link, err)
			case u.Scheme == "mailto":
			case u.Scheme != "":
				if u.Scheme != "https" || u.Host == "" {
					t.Errorf("%s: link %q: want an https address", name, link)
				}
			case u.Path == "":
				if anchors, _ := anchorsOf(name); !anchors[u.Fragment] {
					t.Errorf("%s: link %q names no heading of the page", name, link)
				}
			default:
				target := path.Clean(path.Join(path.Dir(name), u.Path))
				if strings.HasPrefix(target, "../") {
					t.Errorf("%s: link %q leaves the repository", name, link)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("%s: link %q: %s does not exist", name, link, target)
					continue
				}
				if u.Fragment != "" {
					if anchors, ok := anchorsOf(target); ok && !anchors[u.Fragment] {
						t.Errorf("%s: link %q names no heading of %s", name, link, target)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no link found in the docs")
	}
}

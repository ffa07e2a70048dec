// Package doclinks checks the links of the repository's Markdown documents
// (the README and docs/): every relative link names a file or directory of
// the repository, and every #anchor a heading of the document it points
// into, as GitHub renders them. Its test runs in CI; links to other sites
// are checked for form only, since CI has no network.
package doclinks

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Link is one link of a document.
type Link struct {
	Doc    string // the document's path, relative to the repository root
	Line   int    // 1-based
	Target string // as written
}

// Links returns the links and images of a Markdown document.
func Links(doc string, src []byte) []Link {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	root := md.Parser().Parse(text.NewReader(src))
	var out []Link
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest = n.Destination
		default:
			return ast.WalkContinue, nil
		}
		out = append(out, Link{Doc: doc, Line: lineOf(src, n), Target: string(dest)})
		return ast.WalkContinue, nil
	})
	return out
}

// lineOf is the line of the first text segment at or under n (0 when n has
// none).
func lineOf(src []byte, n ast.Node) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() == ast.TypeInline {
			if t, ok := c.(*ast.Text); ok {
				return 1 + bytes.Count(src[:t.Segment.Start], []byte("\n"))
			}
		} else if l := c.Lines(); l != nil && l.Len() > 0 {
			return 1 + bytes.Count(src[:l.At(0).Start], []byte("\n"))
		}
	}
	if p := n.Parent(); p != nil {
		return lineOf(src, p)
	}
	return 0
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// document: the heading's text lower-cased, spaces turned into hyphens,
// other punctuation dropped, repeats numbered -1, -2, ….
func Anchors(src []byte) map[string]bool {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	root := md.Parser().Parse(text.NewReader(src))
	seen := map[string]int{}
	out := map[string]bool{}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		slug := Slug(plain(h, src))
		if k := seen[slug]; k > 0 {
			out[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

// plain is the text of a node and its children, code spans included.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Slug is GitHub's anchor of a heading's text.
func Slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Check returns one line per broken link of the documents docs (paths
// relative to root).
func Check(root string, docs []string) ([]string, error) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		anchors[rel] = Anchors(src)
		return anchors[rel], nil
	}
	var broken []string
	for _, doc := range docs {
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", doc, err)
		}
		for _, l := range Links(doc, src) {
			if msg := check(root, l, anchorsOf); msg != "" {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", l.Doc, l.Line, l.Target, msg))
			}
		}
	}
	return broken, nil
}

func check(root string, l Link, anchorsOf func(string) (map[string]bool, error)) string {
	u, err := url.Parse(l.Target)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return "no host"
		}
		return ""
	case "mailto":
		return ""
	case "":
	default:
		return "unknown scheme " + u.Scheme
	}
	if strings.HasPrefix(u.Path, "/") {
		return "absolute path: links must be relative to the document"
	}
	target := l.Doc
	if u.Path != "" {
		target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(l.Doc), u.Path)))
		if target == ".." || strings.HasPrefix(target, "../") {
			return "outside the repository"
		}
		info, err := os.Stat(filepath.Join(root, target))
		if err != nil {
			return "no such file or directory"
		}
		if info.IsDir() || u.Fragment == "" || !strings.HasSuffix(target, ".md") {
			return ""
		}
	}
	if u.Fragment == "" {
		return ""
	}
	a, err := anchorsOf(target)
	if err != nil {
		return err.Error()
	}
	if !a[u.Fragment] {
		return "no heading with anchor #" + u.Fragment + " in " + target
	}
	return ""
}

package command

import (
	"bytes"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// markdown parses comments as GitHub renders them: CommonMark with GFM
// tables (a table cell is no paragraph text).
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// textLine is a line of a comment that starts with paragraph text.
type textLine struct {
	line int    // 1-based
	text string // the source line from where the text starts
}

// textLines lists, in order, the lines of body whose first non-blank
// character starts plain paragraph text: a text node directly in a
// paragraph (or a tight list item's text) that is not inside a block
// quote, and that nothing but spaces precedes on its source line — not a
// list marker, a code span, an HTML comment, a link or emphasis opened on
// an earlier line. Code blocks, HTML blocks, headings and table cells are
// no paragraph text at all.
func textLines(body string) []textLine {
	src := []byte(normalizeNewlines(body))
	doc := markdown.Parser().Parse(text.NewReader(src))
	var breaks []int // offsets of the line breaks, for line numbers
	for i, c := range src {
		if c == '\n' {
			breaks = append(breaks, i)
		}
	}
	var out []textLine
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindBlockquote, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindHTMLBlock, ast.KindHeading:
			return ast.WalkSkipChildren, nil
		case ast.KindParagraph, ast.KindTextBlock:
			out = append(out, paragraphLines(src, breaks, n)...)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// paragraphLines lists the lines of a paragraph that start with one of
// its own text nodes; breaks are the offsets of src's line breaks.
func paragraphLines(src []byte, breaks []int, para ast.Node) []textLine {
	var out []textLine
	for c := para.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		start := t.Segment.Start
		line := sort.SearchInts(breaks, start) // breaks before start
		lineStart, end := 0, len(src)
		if line > 0 {
			lineStart = breaks[line-1] + 1
		}
		if line < len(breaks) {
			end = breaks[line]
		}
		if len(bytes.Trim(src[lineStart:start], " \t")) != 0 {
			continue
		}
		out = append(out, textLine{line: line + 1, text: string(src[start:end])})
	}
	return out
}

// normalizeNewlines turns the CommonMark line endings \r\n and \r into
// \n, which keeps the line numbers.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

package command

import (
	"bytes"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// commentParser parses comments as GitHub renders them: CommonMark with
// GFM tables (a table cell is no paragraph text). It is built on first use.
var commentParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		parser.WithParagraphTransformers(util.Prioritized(tableCutter{}, 200)),
	)
})

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
	return textLinesOf(commentParser(), body)
}

// textLinesOf is textLines with the parser p.
func textLinesOf(p parser.Parser, body string) []textLine {
	src := []byte(normalizeNewlines(body))
	doc := p.Parse(text.NewReader(src))
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

// tableCutter takes GFM tables out of paragraphs. The lines of a paragraph
// from a table's header row on are a table, and a table cell is no
// paragraph text, so it cuts them off the paragraph, and drops a paragraph
// that was all table. GFM's rule for where a table starts is goldmark's
// table extension's: a delimiter row (cells of dashes with optional colons,
// split by pipes) under a header row with as many cells. That extension
// is not used itself because it brings goldmark's linkify, whose
// expressions every start of the gcloop binary would compile.
type tableCutter struct{}

// Transform cuts the first table in para, and everything after it, off it.
func (tableCutter) Transform(para *ast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := para.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delim, header := lines.At(i), lines.At(i-1)
		cols := delimiterCells(delim.Value(src))
		if cols == 0 {
			continue
		}
		if rowCells(header.Value(src)) != cols {
			return
		}
		lines.SetSliced(0, i-1)
		if lines.Len() == 0 {
			para.Parent().RemoveChild(para.Parent(), para)
			return
		}
		last := lines.At(i - 2)
		last.Stop-- // the line break before the table
		lines.Set(i-2, last)
		return
	}
}

// markdownSpace is what CommonMark counts as white space in a line.
const markdownSpace = " \t\n\v\f\r"

// delimiterCells returns the number of cells of a GFM table delimiter row,
// or 0 if line is none: at most three columns of indentation, then cells
// of the form `:?-+:?` split by pipes, with optional outer pipes.
func delimiterCells(line []byte) int {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return 0
	}
	if bytes.ContainsAny(line, "\v\f") {
		return 0 // a vertical tab or form feed is content to a delimiter row, not space
	}
	if len(bytes.Trim(line, markdownSpace+"-|:")) != 0 {
		return 0
	}
	cols := bytes.Split(line, []byte{'|'})
	if len(bytes.Trim(cols[0], markdownSpace)) == 0 {
		cols = cols[1:]
	}
	if len(cols) > 0 && len(bytes.Trim(cols[len(cols)-1], markdownSpace)) == 0 {
		cols = cols[:len(cols)-1]
	}
	for _, c := range cols {
		c = bytes.Trim(c, " \t\n\f\r")
		c = bytes.TrimPrefix(c, []byte{':'})
		c = bytes.TrimSuffix(c, []byte{':'})
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return 0
		}
	}
	return len(cols)
}

// rowCells returns the number of cells of a GFM table row: the line
// without its outer pipes, split at every pipe that no backslash escapes.
func rowCells(line []byte) int {
	line = bytes.Trim(line, markdownSpace)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	n := 0
	for pos < limit {
		end := pos
		for end < limit && (line[end] != '|' || end > 0 && line[end-1] == '\\') {
			end++
		}
		n++
		pos = end + 1
	}
	return n
}

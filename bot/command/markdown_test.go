package command

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// gfmTables is goldmark's own GFM table extension: the reference that
// tableCutter must agree with on which lines are paragraph text, except
// where goldmark departs from GitHub (see fewerHeaderCells).
func gfmTables() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()
}

// fewerHeaderCells reports whether body has a line that could be a header
// row with fewer cells than the delimiter row under it — as it stands, or
// as the paragraph text of a list item or block quote it opens ("* |"
// holds the row "|"). GitHub (and the GFM specification) then sees no
// table, and neither does tableCutter; goldmark pads the header row and
// sees one.
func fewerHeaderCells(body string) bool {
	lines := strings.Split(normalizeNewlines(body), "\n")
	for i := 1; i < len(lines); i++ {
		d := delimiterCells([]byte(lines[i]))
		if d == 0 {
			continue
		}
		for header := lines[i-1]; ; {
			if rowCells([]byte(header)) < d {
				return true
			}
			inner := containerMarker.ReplaceAllString(header, "")
			if inner == header {
				break
			}
			header = inner
		}
	}
	return false
}

// containerMarker is the marker of a list item or block quote at the start
// of a line, with the spaces after it.
var containerMarker = regexp.MustCompile(`^[ \t]*(?:[*+>-]|[0-9]{1,9}[.)])[ \t]*`)

func TestHeaderRowWithFewerCellsIsNoTable(t *testing.T) {
	t.Parallel()
	body := "| a |\n|---|---|\n/gc retry"
	want := []textLine{{1, "| a |"}, {2, "|---|---|"}, {3, "/gc retry"}}
	if got := textLines(body); !reflect.DeepEqual(got, want) {
		t.Errorf("textLines(%q) = %+v, want %+v: GitHub renders no table", body, got, want)
	}
	if !fewerHeaderCells(body) {
		t.Error("fewerHeaderCells misses the case")
	}
}

// tableBodies are comments around GFM tables: where one starts, where it
// is not one, and the odd cells.
var tableBodies = []string{
	"| a |\n|---|\n/gc retry",
	"| a |\n|-|\n/gc retry",
	"a | b\n--|--\n/gc retry | x",
	"/gc retry\n| a | b |\n| :- | -: |\n| c | d |",
	"/gc approve\nsome text\n| a | b |\n|:-:|---|\n/gc retry",
	"| a | b |\n| --- |\n/gc retry",   // header and delimiter differ: no table
	"| a \\| b |\n| --- |\n/gc retry", // an escaped pipe is no cell border
	"a\n---\n/gc retry",               // a setext heading, not a table
	"a\n|---\n/gc retry",              // one cell
	"a|\n|\n/gc retry",                // a lone pipe is no delimiter row
	"a\n    |---|\n/gc retry",         // indented four columns
	"a\n\t|---|\n/gc retry",           // a tab is four columns too
	"a\n   |---|\n/gc retry",          // three columns is still a delimiter
	"a\n| :--: |\n/gc retry",          // centred
	"a\n| :-:: |\n/gc retry",          // two colons
	"a\n| : - |\n/gc retry",           // a space inside the cell
	"a\n| - \v|\n/gc retry",           // a vertical tab
	"| `a|b` |\n|---|---|\n/gc retry",
	"| `a\\|b` |\n|---|\n/gc retry",
	"|a||\n|---|\n/gc retry",
	"a||b\n-|-|-\n/gc retry",
	"> | a |\n> |---|\n/gc retry",
	"- | a |\n  |---|\n  /gc retry",
	"/gc retry\n\n| a |\n|---|\n\n/gc abort",
	"text\n| a |\n|---|",
	"| a |\n|---|",
}

func TestTableCutterAgreesWithGoldmarksTables(t *testing.T) {
	t.Parallel()
	ref := gfmTables()
	for _, body := range tableBodies {
		if fewerHeaderCells(body) {
			t.Fatalf("%q: goldmark differs from GitHub on it; TestHeaderRowWithFewerCellsIsNoTable covers it", body)
		}
		if got, want := textLines(body), textLinesOf(ref, body); !reflect.DeepEqual(got, want) {
			t.Errorf("textLines(%q)\n got %+v\nwant %+v (goldmark's table extension)", body, got, want)
		}
	}
}

func TestDelimiterAndRowCells(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line         string
		delim, cells int
	}{
		{"|---|", 1, 1},
		{"| :-- | --: | :-: |\n", 3, 3},
		{"---", 1, 1},
		{"|", 0, 0},
		{"", 0, 0},
		{"| - | x |", 0, 2},
		{"a \\| b", 0, 1},
		{"    |---|", 0, 1},
		{"|:|", 0, 1},
	} {
		if got := delimiterCells([]byte(tt.line)); got != tt.delim {
			t.Errorf("delimiterCells(%q) = %d, want %d", tt.line, got, tt.delim)
		}
		if got := rowCells([]byte(tt.line)); got != tt.cells {
			t.Errorf("rowCells(%q) = %d, want %d", tt.line, got, tt.cells)
		}
	}
}

// FuzzTableCutter checks that the lines taken for paragraph text are
// goldmark's, with its table extension, for any comment.
func FuzzTableCutter(f *testing.F) {
	for _, b := range tableBodies {
		f.Add(b)
	}
	ref := gfmTables()
	f.Fuzz(func(t *testing.T, body string) {
		if fewerHeaderCells(body) {
			t.Skip("goldmark pads a short header row; GitHub does not")
		}
		if got, want := textLines(body), textLinesOf(ref, body); !reflect.DeepEqual(got, want) {
			t.Errorf("textLines(%q)\n got %+v\nwant %+v (goldmark's table extension)", body, got, want)
		}
	})
}

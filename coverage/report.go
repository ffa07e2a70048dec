package coverage

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// ReportSchema identifies the JSON of `gcloop coverage report`.
const ReportSchema = "gcloop/coverage/v1"

// Report is the output of `gcloop coverage report` (DESIGN §8):
//
//	{"schema":"gcloop/coverage/v1","format","lines":{"covered","total","percent"},
//	 "files":[{"path","covered","total","percent"}],
//	 "tests":{"passed","failed","skipped","pass_rate","failures":[{"name","file","message","category"}]}}
//
// Percentages are rounded to two decimals; files are sorted by path;
// absent values are null, never omitted: "lines" is null without a coverage
// report, its covered/total are null when only a percentage is known
// (run-<layer>.json), and "tests" is null without a test report.
type Report struct {
	Schema string       `json:"schema"`
	Format string       `json:"format"`
	Lines  *ReportLines `json:"lines"`
	Files  []ReportFile `json:"files"`
	Tests  *ReportTests `json:"tests"`
}

// ReportLines holds the line totals.
type ReportLines struct {
	Covered *int64   `json:"covered"`
	Total   *int64   `json:"total"`
	Percent *float64 `json:"percent"`
}

// ReportFile is the line coverage of one file.
type ReportFile struct {
	Path    string  `json:"path"`
	Covered int64   `json:"covered"`
	Total   int64   `json:"total"`
	Percent float64 `json:"percent"`
}

// ReportTests holds test results.
type ReportTests struct {
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Skipped  int             `json:"skipped"`
	PassRate *float64        `json:"pass_rate"`
	Failures []ReportFailure `json:"failures"`
}

// ReportFailure is one failing test.
type ReportFailure struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Message  string `json:"message"`
	Category string `json:"category"`
}

// NewReport builds the report of merged evidence; formats are the formats
// read, in order, and become the "format" field joined with "+" (each
// named once).
func NewReport(e *decide.Evidence, formats []Format) Report {
	rep := Report{Schema: ReportSchema, Files: []ReportFile{}}
	var seen []string
	for _, f := range formats {
		if !slices.Contains(seen, string(f)) {
			seen = append(seen, string(f))
		}
	}
	rep.Format = strings.Join(seen, "+")
	if e == nil {
		return rep
	}
	if c := e.Coverage; c != nil {
		l := &ReportLines{}
		hasTotals := c.Total > 0 || len(c.Files) > 0
		switch {
		case !hasTotals && c.Percent != nil:
			p := round2(*c.Percent)
			l.Percent = &p
		case !hasTotals && c.Format == string(FormatRunJSON):
			l = nil // a run-<layer>.json without a coverage figure
		default:
			cov, tot := c.Covered, c.Total
			l.Covered, l.Total = &cov, &tot
			if tot > 0 {
				p := round2(100 * float64(cov) / float64(tot))
				l.Percent = &p
			}
		}
		rep.Lines = l
		for _, f := range c.Files {
			rep.Files = append(rep.Files, ReportFile{Path: f.Path, Covered: f.Covered, Total: f.Total, Percent: round2(f.Percent())})
		}
		slices.SortStableFunc(rep.Files, func(a, b ReportFile) int { return cmp.Compare(a.Path, b.Path) })
	}
	if t := e.Tests; t != nil {
		rt := &ReportTests{Passed: t.Passed, Failed: t.Failed, Skipped: t.Skipped, Failures: []ReportFailure{}}
		if r := t.Rate(); r != nil {
			v := math.Round(*r*10000) / 10000
			rt.PassRate = &v
		}
		for _, f := range t.Failures() {
			cat := f.Category
			if cat == "" {
				cat = Categorize(f.Message)
			}
			rt.Failures = append(rt.Failures, ReportFailure{Name: f.Name, File: f.File, Message: f.Message, Category: cat})
		}
		rep.Tests = rt
	}
	return rep
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// WriteJSON writes the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// MaxMarkdownRows caps the file and failure tables of WriteMarkdown.
const MaxMarkdownRows = 50

// WriteMarkdown writes a compact summary: the line total, the files with
// the lowest coverage first (at most MaxMarkdownRows, the rest counted),
// and the test results with their failures.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Coverage report (%s)\n\n", cmp.Or(r.Format, "no report"))
	switch l := r.Lines; {
	case l == nil:
		b.WriteString("No coverage report.\n")
	case l.Percent == nil:
		b.WriteString("**Lines:** no instrumented lines.\n")
	case l.Total == nil:
		fmt.Fprintf(&b, "**Lines:** %.2f%%\n", *l.Percent)
	default:
		fmt.Fprintf(&b, "**Lines:** %.2f%% (%d of %d)\n", *l.Percent, *l.Covered, *l.Total)
	}
	if len(r.Files) > 0 {
		files := slices.Clone(r.Files)
		slices.SortStableFunc(files, func(a, b ReportFile) int {
			return cmp.Or(cmp.Compare(a.Percent, b.Percent), cmp.Compare(b.Total-b.Covered, a.Total-a.Covered), cmp.Compare(a.Path, b.Path))
		})
		b.WriteString("\n| File | Covered | Lines | % |\n|---|---:|---:|---:|\n")
		for i, f := range files {
			if i == MaxMarkdownRows {
				fmt.Fprintf(&b, "\n… and %d more files.\n", len(files)-MaxMarkdownRows)
				break
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %.2f |\n", mdCell(f.Path, 120), f.Covered, f.Total, f.Percent)
		}
	}
	if t := r.Tests; t != nil {
		fmt.Fprintf(&b, "\n**Tests:** %d passed, %d failed, %d skipped", t.Passed, t.Failed, t.Skipped)
		if t.PassRate != nil {
			fmt.Fprintf(&b, " (pass rate %.2f%%)", 100**t.PassRate)
		}
		b.WriteString("\n")
		if len(t.Failures) > 0 {
			b.WriteString("\n| Failing test | Category | Message |\n|---|---|---|\n")
			for i, f := range t.Failures {
				if i == MaxMarkdownRows {
					fmt.Fprintf(&b, "\n… and %d more failures.\n", len(t.Failures)-MaxMarkdownRows)
					break
				}
				fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(f.Name, 120), mdCell(f.Category, 40), mdCell(f.Message, 200))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell makes s safe inside a table cell: one line, pipes and markup
// escaped, at most max bytes.
func mdCell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	r := strings.NewReplacer("\\", "\\\\", "|", "\\|", "<", "&lt;", ">", "&gt;", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]")
	return r.Replace(s)
}

package coverage

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
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
//
// Beyond the contract's keys (DESIGN §11: bounded memory), "files" lists
// the WorstFiles files of lowest coverage unless all files are asked for
// (ListAll, streamed by WriteJSON); "file_count" is the number of distinct
// files, "files_listed" says "worst" or "all", and "directories" rolls the
// files up by directory (at most MaxDirectories, then OtherDirectories).
type Report struct {
	Schema      string       `json:"schema"`
	Format      string       `json:"format"`
	Lines       *ReportLines `json:"lines"`
	Files       []ReportFile `json:"files"`
	FileCount   int          `json:"file_count"`
	FilesListed string       `json:"files_listed"`
	Directories []ReportDir  `json:"directories"`
	Tests       *ReportTests `json:"tests"`

	all   []decide.FileCoverage // ListAll: every file, sorted by path, written by WriteJSON
	worst []ReportFile          // ListAll: the worst files, for WriteMarkdown
}

// Listing tells which files a report lists.
type Listing int

// The listings of `coverage report --files worst|all`.
const (
	ListWorst Listing = iota // the WorstFiles files of lowest coverage
	ListAll                  // every file, streamed
)

// ParseListing reads the value of --files.
func ParseListing(s string) (Listing, error) {
	switch s {
	case "worst":
		return ListWorst, nil
	case "all":
		return ListAll, nil
	}
	return 0, fmt.Errorf("--files %q: want worst or all", s)
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
// named once). With ListAll it sorts e's files by path in place and keeps
// them for WriteJSON to stream, copying none.
func NewReport(e *decide.Evidence, formats []Format, list Listing) Report {
	return newReport(e, formats, list, nil)
}

// NewRolledUpReport is NewReport for coverage whose files were streamed
// into ru (StreamLCOV) rather than listed in e.
func NewRolledUpReport(e *decide.Evidence, formats []Format, ru *RollUp) Report {
	return newReport(e, formats, ListWorst, ru)
}

func newReport(e *decide.Evidence, formats []Format, list Listing, ru *RollUp) Report {
	rep := Report{Schema: ReportSchema, Files: []ReportFile{}, FilesListed: "worst", Directories: []ReportDir{}}
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
		if ru == nil {
			n := WorstFiles
			if list == ListAll {
				rep.FilesListed = "all"
				slices.SortStableFunc(c.Files, func(a, b decide.FileCoverage) int { return cmp.Compare(a.Path, b.Path) })
				rep.all = c.Files
			}
			ru = newRollUp(n)
			for _, f := range c.Files {
				ru.Add(f)
			}
		}
		rep.FileCount = ru.files
		rep.Files, rep.Directories = ru.result()
		if rep.all != nil {
			rep.worst, rep.Files = rep.Files, []ReportFile{}
		}
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

// WriteJSON writes the report as one indented JSON object. With ListAll
// the files are written one at a time, as they are encoded.
func (r Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	if r.all == nil {
		_, err := w.Write(buf.Bytes())
		return err
	}
	// The top-level "files" is the empty array; put the files in its place.
	head, tail, ok := bytes.Cut(buf.Bytes(), []byte("\n  \"files\": [],\n"))
	if !ok {
		return fmt.Errorf("coverage report: no files array in the JSON to fill")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString("\n  \"files\": [")
	var line []byte
	var str bytes.Buffer // one path, encoded as encoding/json does
	strEnc := json.NewEncoder(&str)
	strEnc.SetEscapeHTML(false)
	for i, f := range r.all {
		if i > 0 {
			bw.WriteByte(',')
		}
		line = line[:0]
		line = append(line, "\n    {\n      \"path\": "...)
		str.Reset()
		if err := strEnc.Encode(f.Path); err != nil {
			return err
		}
		line = append(line, bytes.TrimSuffix(str.Bytes(), []byte("\n"))...)
		line = fmt.Appendf(line, ",\n      \"covered\": %d,\n      \"total\": %d,\n      \"percent\": ", f.Covered, f.Total)
		line = strconv.AppendFloat(line, round2(f.Percent()), 'f', -1, 64)
		line = append(line, "\n    }"...)
		bw.Write(line)
	}
	if len(r.all) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n")
	bw.Write(tail)
	return bw.Flush()
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
	listed := r.Files
	if r.all != nil {
		listed = r.worst
	}
	if len(listed) > 0 {
		files := slices.Clone(listed)
		slices.SortStableFunc(files, worseFile)
		b.WriteString("\n| File | Covered | Lines | % |\n|---|---:|---:|---:|\n")
		for i, f := range files {
			if i == MaxMarkdownRows {
				break
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %.2f |\n", mdCell(f.Path, 120), f.Covered, f.Total, f.Percent)
		}
		if shown := min(len(files), MaxMarkdownRows); r.FileCount > shown {
			fmt.Fprintf(&b, "\n… and %d more files.\n", r.FileCount-shown)
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

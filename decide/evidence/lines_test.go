package evidence

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func lnF64(v float64) *float64 { return &v }

// lnOpen opens a fixture under testdata.
func lnOpen(t *testing.T, name string) io.Reader {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// lnHead returns the first 8 KiB of a fixture, as the dispatcher sniffs.
func lnHead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 8<<10 {
		b = b[:8<<10]
	}
	return b
}

// lnCheckErr fails unless err is a *decide.ParseError whose text is want.
func lnCheckErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	var pe *decide.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is %T, want *decide.ParseError", err, err)
	}
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err.Error(), want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q spans lines", err.Error())
	}
}

// lnFuzzCheck is the property every fuzz target checks.
func lnFuzzCheck(t *testing.T, ev *decide.Evidence, err error) {
	if err != nil {
		var pe *decide.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %v is %T, want *decide.ParseError", err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q spans lines", err.Error())
		}
		return
	}
	if ev == nil {
		t.Fatal("nil evidence without error")
	}
	for _, f := range ev.Findings {
		if f.Severity < decide.Critical || f.Severity > decide.Low {
			t.Fatalf("finding with severity %d", f.Severity)
		}
	}
}

func TestSplitFileLine(t *testing.T) {
	t.Parallel()
	type out struct {
		File string
		Line int
		OK   bool
	}
	for _, tc := range []struct {
		name, in string
		want     out
	}{
		{"a path and line split at the colon", "src/a.ts:42", out{"src/a.ts", 42, true}},
		{"a column after the line is dropped", "src/a.go:42:7", out{"src/a.go", 42, true}},
		{"a line range keeps its first line", "src/x.tsx:42-50", out{"src/x.tsx", 42, true}},
		{"backticks are trimmed", "`src/a.ts:3`", out{"src/a.ts", 3, true}},
		{"a path without line is all path", "src/a.ts", out{"src/a.ts", 0, true}},
		{"a windows drive is not a line", `C:\src\a.go:9`, out{`C:\src\a.go`, 9, true}},
		{"a non-numeric tail is part of the path", "http://host/x", out{"http://host/x", 0, true}},
		{"an empty value is not ok", " ", out{"", 0, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, l, ok := lnSplitFileLine(tc.in)
			if d := cmp.Diff(tc.want, out{f, l, ok}); d != "" {
				t.Errorf("lnSplitFileLine(%q) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}

func TestFindingsKeepTheMostSevere(t *testing.T) {
	t.Parallel()
	k := &keeper{max: 2}
	for _, s := range []decide.Severity{decide.Low, decide.Medium, decide.Critical, decide.Low, decide.High} {
		k.push(decide.Finding{Severity: s, Message: s.String()})
	}
	got := k.findings()
	want := []decide.Finding{{Severity: decide.Critical, Message: "critical"}, {Severity: decide.High, Message: "high"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if d := cmp.Diff(decide.Counts{Medium: 1, Low: 2}, k.omitted); d != "" {
		t.Errorf("omitted (-want +got):\n%s", d)
	}
}

func TestLineReaderSkipsOverlongLinesWithoutBuffering(t *testing.T) {
	t.Parallel()
	in := "short\n" + strings.Repeat("x", 300) + "\n\ufefflast"
	lr := newLnReader(strings.NewReader("\ufeff"+in), 100)
	type line struct {
		N       int
		Text    string
		TooLong bool
	}
	var got []line
	for {
		b, long, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, line{lr.line, string(b), long})
		if cap(lr.buf) > 4096+200 {
			t.Fatalf("buffer grew to %d bytes", cap(lr.buf))
		}
	}
	want := []line{{1, "short", false}, {2, "", true}, {3, "\ufefflast", false}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

// lnRepeat is an endless stream of one byte.
type lnRepeat byte

func (r lnRepeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestFileOverTheCapIsAnError(t *testing.T) {
	t.Parallel()
	_, err := ReadDiscoveries("big.ndjson", io.LimitReader(lnRepeat('x'), lnMaxFile+10))
	lnCheckErr(t, err, "big.ndjson: byte 67108864: file exceeds the 64 MiB limit for evidence files")
	_, err = ReadReviewJSON("big.json", io.MultiReader(strings.NewReader(`{"x":[`), lnRepeat(' ')))
	lnCheckErr(t, err, "big.json: byte 67108864: file exceeds the 64 MiB limit for evidence files")
}

func TestCapReader(t *testing.T) {
	t.Parallel()
	c := &lnCapReader{r: strings.NewReader("abcdef"), max: 4}
	b, err := io.ReadAll(c)
	if !errors.Is(err, errLnTooLarge) || string(b) != "abcde" {
		t.Errorf("ReadAll = %q, %v; want \"abcde\", errLnTooLarge", b, err)
	}
	c = &lnCapReader{r: strings.NewReader("abcd"), max: 4}
	if b, err := io.ReadAll(c); err != nil || string(b) != "abcd" {
		t.Errorf("ReadAll = %q, %v; want \"abcd\", nil", b, err)
	}
}

func TestSniffers(t *testing.T) {
	t.Parallel()
	sniffers := map[string]func([]byte) bool{
		"reviewjson":  isReviewJSON,
		"reviewmd":    isReviewMarkdown,
		"taskscsv":    isTasksCSV,
		"discoveries": isDiscoveries,
		"auditmd":     isAuditMarkdown,
	}
	for _, tc := range []struct {
		name string
		head string
		want string // the one sniffer that must say yes; "" for none
	}{
		{"review results JSON", "{\n  \"review_score\": 7,\n  \"gc_signal\": \"CONVERGED\"}", "reviewjson"},
		{"an agent result with a gc_signal", `{"id":"REVIEW-001","status":"completed","gc_signal":"CONVERGED"}`, "reviewjson"},
		{"a review report", "# Code Review — Round 1\n\n**Quality Score**: 8/10\n", "reviewmd"},
		{"a findings list alone", "Notes\n\n- **[HIGH]** Token expiry (src/a.ts:4)\n", "reviewmd"},
		{"a tasks.csv with review columns", "id,title,status,findings,review_score,gc_signal,error\n1,a,pending,,,,\n", "taskscsv"},
		{"a tasks.csv with a BOM and quoted header", "\ufeff\"id\",\"severity_summary\"\n", "taskscsv"},
		{"a discoveries log", `{"ts":"2026-03-08T10:00:00Z","worker":"A","type":"review_finding","data":{}}` + "\n", "discoveries"},
		{"a discoveries log whose first line is cut", `{"ts":"2026","type":"critique","data":{"challenge":"` + strings.Repeat("x", 100), "discoveries"},
		{"an audit report", "# Design Audit Report: AUDIT-001\n\n## Overall Score: 8.4/10\n", "auditmd"},
		{"an audit report with only a verdict", "Summary\n\n## Verdict: audit_passed\n", "auditmd"},
		{"an audit heading with counted sections", "# UI audit\n\n### Critical (0)\n(none)\n", "auditmd"},
		{"a README is none of them", "# Project\n\nSome text with [link](x).\n", ""},
		{"a SARIF log is none of them", `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[]}`, ""},
		{"a CSV without loop columns is none of them", "id,title,status\n", ""},
		{"a JSON array is none of them", `[{"type":"x"}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for name, sniff := range sniffers {
				if got := sniff([]byte(tc.head)); got != (name == tc.want) {
					t.Errorf("%s = %v, want %v", name, got, name == tc.want)
				}
			}
		})
	}
}

func TestSniffersOnFixtures(t *testing.T) {
	t.Parallel()
	for file, sniff := range map[string]func([]byte) bool{
		"review-results.json":  isReviewJSON,
		"review-002.md":        isReviewMarkdown,
		"tasks-iterdev.csv":    isTasksCSV,
		"tasks-brainstorm.csv": isTasksCSV,
		"tasks-uidesign.csv":   isTasksCSV,
		"discoveries.ndjson":   isDiscoveries,
		"audit-001.md":         isAuditMarkdown,
	} {
		if !sniff(lnHead(t, file)) {
			t.Errorf("%s is not recognised", file)
		}
	}
	if isReviewMarkdown(lnHead(t, "audit-001.md")) {
		t.Error("audit-001.md sniffs as a review report")
	}
}

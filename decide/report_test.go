package decide

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func repF(v float64) *float64 { return &v }
func repI(v int) *int         { return &v }

const repBlob = "https://github.com/o/r/blob/0123456789abcdef0123456789abcdef01234567/"

var repT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// repRound builds a history record.
func repRound(n int, sha string, dec Outcome, verdict string, score *float64, c Counts, tasks []string, issues []int) RoundRecord {
	return RoundRecord{N: n, SHA: sha, Time: repT0.Add(time.Duration(n) * time.Hour), Decision: dec, Verdict: verdict,
		Score: score, Counts: c, Tasks: tasks, Issues: issues}
}

// repCases are the decisions rendered to golden files.
func repCases() map[string]*Decision {
	reviewFindings := []Finding{
		{Severity: Medium, File: "internal/api/handler.go", Line: 88, Rule: "error-handling", Message: "error from Close is ignored"},
		{Severity: Critical, File: "internal/auth/token.go", Line: 42, Rule: "security", Message: "token compared with == (timing attack)", Suggestion: "use subtle.ConstantTimeCompare"},
		{Severity: High, File: "internal/api/handler.go", Line: 17, Rule: "correctness", Message: "request body is never closed"},
		{Severity: Low, Message: "README does not mention the new flag"},
		{Severity: High, File: "internal/auth/token.go", Line: 90, Message: "token logged at debug level"},
	}
	reviewTasks := []Task{
		{ID: "FIX-3-1", Type: "fix", Iteration: 3, Title: "fix internal/auth/token.go", TargetFiles: []string{"internal/auth/token.go"},
			Findings:   []string{"internal/auth/token.go:42 [critical] token compared with == (timing attack)", "internal/auth/token.go:90 [high] token logged at debug level"},
			Acceptance: "the next review reports no critical or high finding in internal/auth/token.go", DependsOn: []string{}},
		{ID: "FIX-3-2", Type: "fix", Iteration: 3, Title: "fix internal/api/handler.go", TargetFiles: []string{"internal/api/handler.go"},
			Findings:   []string{"internal/api/handler.go:17 [high] request body is never closed"},
			Acceptance: "the next review reports no critical or high finding in internal/api/handler.go"},
	}
	cases := map[string]*Decision{}

	cases["review-fix"] = &Decision{Loop: Review, ID: "review", Outcome: Fix, Verdict: "FIX", Round: 2, MaxRounds: 3,
		Score: repF(4.5), Signal: "REVISION_NEEDED", Counts: CountFindings(reviewFindings), Tasks: reviewTasks,
		Findings: reviewFindings, SHA: "89abcdef0123456789abcdef0123456789abcdef", Status: StatusComplete,
		Prose:   "Auth token handling is unsafe.\nThe handler leaks bodies.",
		Reasons: []string{"score 4.5 < threshold 7 (review-results.json)", "1 critical finding: `internal/auth/token.go:42`", "round 2 < max 3: a fix round may start"},
		Notes:   []string{"gc_signal missing: inferred REVISION_NEEDED"},
		NextSteps: []string{"FIX-3-1: fix internal/auth/token.go", "FIX-3-2: fix internal/api/handler.go",
			"round 3 runs on the next push (or `/gc retry`)"},
		History: []RoundRecord{
			repRound(1, "1111111aaaaaaa", Fix, "FIX", repF(3), Counts{2, 3, 1, 0}, []string{"FIX-2-1", "FIX-2-2"}, []int{11, 12}),
			repRound(2, "89abcdef0123456789", Fix, "FIX", repF(4.5), Counts{1, 2, 1, 1}, []string{"FIX-3-1", "FIX-3-2"}, []int{13, 14}),
		},
	}
	cases["review-escalate"] = &Decision{Loop: Review, ID: "review", Outcome: Escalate, Verdict: "ESCALATE", Round: 3, MaxRounds: 3,
		Score: repF(5), Signal: "REVISION_NEEDED", Counts: Counts{High: 2, Medium: 1},
		Findings: []Finding{
			{Severity: High, File: "cmd/app/main.go", Line: 12, Message: "flag parsing panics on empty input"},
			{Severity: High, File: "cmd/app/main.go", Line: 40, Message: "exit code ignores errors"},
			{Severity: Medium, File: "cmd/app/util.go", Message: "duplicated helper"},
		},
		Reasons: []string{"score 5 < threshold 7", "round 3 ≥ max 3: no fix round may start"},
		NextSteps: []string{"`/gc retry` — grant one more round", "`/gc approve` — force-approve and converge",
			"`/gc abort` — stop the loop"},
		History: []RoundRecord{
			repRound(1, "aaaaaaa1", Fix, "FIX", repF(3.5), Counts{1, 3, 2, 0}, []string{"FIX-2-1"}, []int{21}),
			repRound(2, "bbbbbbb2", Fix, "FIX", repF(4), Counts{0, 3, 1, 0}, []string{"FIX-3-1", "FIX-3-2"}, []int{22, 23}),
			repRound(3, "ccccccc3", Escalate, "ESCALATE", repF(5), Counts{0, 2, 1, 0}, nil, nil),
		},
	}
	cases["review-converge-advisory"] = &Decision{Loop: Review, ID: "review", Outcome: Converge, Verdict: "CONVERGE (minor issues)",
		Advisory: true, Round: 1, MaxRounds: 3, Score: repF(8), Signal: "REVISION_NEEDED", Counts: Counts{Medium: 1, Low: 1},
		Findings: []Finding{
			{Severity: Low, File: "docs/usage.md", Line: 3, Message: "typo: recieve"},
			{Severity: Medium, File: "pkg/x.go", Line: 5, Message: "exported func lacks a doc comment"},
		},
		Reasons:   []string{"signal REVISION_NEEDED with no critical and score 8 ≥ threshold 7: converge with minor issues"},
		NextSteps: []string{"none: the loop converged"},
		History:   []RoundRecord{repRound(1, "abcdef0123", Converge, "CONVERGE (minor issues)", repF(8), Counts{0, 0, 1, 1}, nil, nil)},
	}
	cases["critique-revision"] = &Decision{Loop: Critique, ID: "critique", Outcome: Fix, Verdict: "REVISION", Round: 1, MaxRounds: 2,
		Counts: Counts{High: 2, Medium: 3, Low: 3}, Prose: "Two ideas rest on untested assumptions.",
		Findings: []Finding{
			{Severity: High, Rule: "idea-2", Message: "caching plan ignores invalidation"},
			{Severity: High, Rule: "idea-4", Message: "no rollback story"},
		},
		Reasons: []string{"severity_summary CRITICAL:0 HIGH:2 MEDIUM:3 LOW:3 (tasks.csv:3): high > 0"},
		History: []RoundRecord{repRound(1, "", Fix, "REVISION", nil, Counts{0, 2, 3, 3}, nil, nil)},
	}
	cases["critique-forced"] = &Decision{Loop: Critique, ID: "critique", Outcome: Converge, Verdict: "CONVERGE", Forced: true,
		Round: 2, MaxRounds: 2, Counts: Counts{High: 1, Medium: 2},
		Reasons:   []string{"round 2 ≥ max 2: converge (forced)"},
		Notes:     []string{"1 high finding remains open"},
		NextSteps: []string{"the loop stopped without meeting its goal: read the warnings before merging"},
		History: []RoundRecord{
			repRound(1, "", Fix, "REVISION", nil, Counts{1, 2, 2, 0}, nil, nil),
			repRound(2, "", Converge, "CONVERGE", nil, Counts{0, 1, 2, 0}, nil, nil),
		},
	}
	ten := 10.0
	cases["audit-converge-advisory"] = &Decision{Loop: Audit, ID: "design-audit", Outcome: Converge, Verdict: "CONVERGE (advisory)",
		Advisory: true, Round: 2, MaxRounds: 3, Score: repF(7), Signal: "audit_result", Counts: Counts{Medium: 2},
		Dimensions: []Dimension{{Name: "consistency", Score: 8, Max: &ten}, {Name: "accessibility", Score: 6.5, Max: &ten}, {Name: "performance", Score: 7}},
		Findings: []Finding{
			{Severity: Medium, File: "design/tokens.json", Line: 14, Message: "contrast of muted text is 4.2:1"},
			{Severity: Medium, File: "design/layout.md", Message: "spacing scale not documented"},
		},
		Prose:   "Solid overall; accessibility needs a pass.",
		Reasons: []string{"audit_signal audit_result (tasks.csv:2), score 7: converge (advisory)"},
		History: []RoundRecord{
			repRound(1, "1234567890", Fix, "REVISION", repF(5), Counts{1, 1, 2, 0}, []string{"DESIGN-fix-1", "AUDIT-re-1"}, []int{31, 32}),
			repRound(2, "2345678901", Converge, "CONVERGE (advisory)", repF(7), Counts{0, 0, 2, 0}, nil, nil),
		},
	}
	cases["audit-revision"] = &Decision{Loop: Audit, ID: "design-audit", Outcome: Fix, Verdict: "REVISION", Round: 1, MaxRounds: 3,
		Score: repF(4), Signal: "fix_required", Counts: Counts{Critical: 1, High: 1},
		Findings: []Finding{
			{Severity: Critical, File: "design/checkout.md", Line: 7, Message: "payment errors are not shown to the user"},
			{Severity: High, File: "design/tokens.json", Line: 3, Message: "brand colour fails contrast"},
		},
		Tasks: []Task{
			{ID: "DESIGN-fix-1", Type: "fix", Iteration: 1, Title: "address audit findings", TargetFiles: []string{"design/checkout.md", "design/tokens.json"},
				Findings:   []string{"design/checkout.md:7 [critical] payment errors are not shown to the user", "design/tokens.json:3 [high] brand colour fails contrast"},
				Acceptance: "the re-audit reports no critical or high finding"},
			{ID: "AUDIT-re-1", Type: "audit", Iteration: 1, Title: "re-audit after DESIGN-fix-1", DependsOn: []string{"DESIGN-fix-1"},
				Acceptance: "audit_signal audit_passed or audit_result"},
		},
		Reasons: []string{"audit_signal fix_required (audit-report.md:40)", "round 1 < max 3: revision"},
		History: []RoundRecord{repRound(1, "fedcba9876", Fix, "REVISION", repF(4), Counts{1, 1, 0, 0}, []string{"DESIGN-fix-1", "AUDIT-re-1"}, []int{41, 42})},
	}
	cases["validation-retry"] = &Decision{Loop: Validation, ID: "validation", Outcome: Fix, Verdict: "retry", Round: 1, MaxRounds: 3,
		Regressions: repI(3),
		Checks: []Check{{Name: "tests", Status: "failed", Failed: 2, Total: repI(120)}, {Name: "types", Status: "failed", Failed: 1},
			{Name: "lint", Status: "passed", Failed: 0, Total: repI(0)}, {Name: "quality", Status: "warning", Failed: 4}},
		Metrics: []Metric{{Name: "debt score", Before: repF(42), After: repF(30)}, {Name: "improvement", After: repF(28.57), Unit: "%"}},
		Tasks: []Task{
			{ID: "TDFIX-fix-1", Type: "fix", Iteration: 1, Title: "fix 3 regressions", Acceptance: "0 regressions"},
			{ID: "TDVAL-recheck-1", Type: "validate", Iteration: 1, Title: "re-validate", DependsOn: []string{"TDFIX-fix-1"}, Acceptance: "validation passes"},
		},
		Reasons: []string{"regressions 3 = tests 2 + types 1 + lint 0 (validation-report.json)"},
		Notes:   []string{"passed: true disagrees with 3 regressions: the count wins"},
		History: []RoundRecord{{N: 1, SHA: "0a0a0a0a0a", Decision: Fix, Verdict: "retry", Regressions: repI(3), Tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}}},
	}
	cases["validation-accept-forced"] = &Decision{Loop: Validation, ID: "validation", Outcome: Converge, Verdict: "accept", Forced: true,
		Round: 3, MaxRounds: 3, Regressions: repI(1),
		Checks:  []Check{{Name: "tests", Status: "failed", Failed: 1, Total: repI(120)}},
		Metrics: []Metric{{Name: "debt score", Before: repF(42), After: repF(35)}},
		Reasons: []string{"regressions 1 > 0 and round 3 ≥ max 3: accept (forced)"},
		Notes:   []string{"warning: merging with 1 regression"},
		History: []RoundRecord{
			{N: 1, SHA: "0a0a0a0a0a", Decision: Fix, Verdict: "retry", Regressions: repI(5)},
			{N: 2, SHA: "0b0b0b0b0b", Decision: Fix, Verdict: "retry", Regressions: repI(2)},
			{N: 3, SHA: "0c0c0c0c0c", Decision: Converge, Verdict: "accept", Regressions: repI(1)},
		},
	}
	cases["coverage-fix"] = &Decision{Loop: Coverage, ID: "coverage", Outcome: Fix, Verdict: "FIX", Round: 1, MaxRounds: 3,
		Coverage: repF(61.25), PassRate: repF(0.9), Target: repF(80), Layer: "L1",
		Summary: "Round 1 for L1: coverage 55% -> 61.25% (delta: +6.25%)",
		Failures: []TestCase{
			{Name: "pkg/cart.TestTotal", File: "pkg/cart/cart_test.go", Status: Failed, Message: "got 10, want 12", Category: "assertion_mismatch"},
			{Name: "pkg/cart.TestLoad", File: "pkg/cart/load_test.go", Status: Failed, Message: "panic: runtime error: invalid memory address or nil pointer dereference", Category: "null_reference"},
			{Name: "web/Cart.spec.ts > renders", File: "web/Cart.spec.ts", Status: Failed, Message: "Cannot find module './Cart' from 'Cart.spec.ts'", Category: "missing_import"},
			{Name: "web/Cart.spec.ts > totals", File: "web/Cart.spec.ts", Status: Failed, Message: "expected 3 to be 4", Category: "assertion_mismatch"},
		},
		Reasons: []string{"coverage 61.25% < target 80% (coverage.out)", "4 tests fail (junit.xml)"},
		History: []RoundRecord{{N: 1, SHA: "c0ffee0000", Decision: Fix, Verdict: "FIX", Coverage: repF(61.25), PassRate: repF(0.9)}},
	}
	cases["coverage-accept-forced-stalled"] = &Decision{Loop: Coverage, ID: "coverage-l2", Outcome: Converge, Verdict: "ACCEPT",
		Forced: true, Stalled: true, Round: 3, MaxRounds: 4, Coverage: repF(58), PassRate: repF(0.8), Target: repF(60), Layer: "L2",
		Summary:  "Round 3 for L2: coverage 58% -> 58% (delta: +0%)",
		Failures: []TestCase{{Name: "TestFlaky", Status: Failed, Message: "timeout after 5s", Category: "async_timing"}},
		Reasons:  []string{"rounds 2 and 3 stuck: same failing test TestFlaky, coverage not better (58% ≤ 58%)"},
		Notes:    []string{"stall 2 reached: forced stop"},
		History: []RoundRecord{
			{N: 1, SHA: "d1d1d1d1d1", Decision: Fix, Verdict: "FIX", Coverage: repF(50), PassRate: repF(0.7)},
			{N: 2, SHA: "d2d2d2d2d2", Decision: Fix, Verdict: "FIX", Coverage: repF(58), PassRate: repF(0.8), Stalled: true},
			{N: 3, SHA: "d3d3d3d3d3", Decision: Converge, Verdict: "ACCEPT", Coverage: repF(58), PassRate: repF(0.8), Stalled: true},
		},
	}
	hostile := "<!-- gcloop:state review eyJ4IjoxfQ --> <img src=x onerror=alert(1)> @octocat | a | b | ```js\nalert(1)\n``` [x](javascript:alert(1)) ![i](http://x) \u202Eexe.txt\x00 #12"
	cases["hostile"] = &Decision{Loop: Review, ID: "review", Outcome: Fix, Verdict: "FIX", Round: 1, MaxRounds: 3, Score: repF(2),
		Counts: Counts{Critical: 1, High: 1}, Prose: hostile + "\n# heading\n> quote\n- item",
		Summary: "summary with `<b>` code and `@octocat` and `fine/code.go:1`",
		Findings: []Finding{
			{Severity: Critical, File: "../../evil/repo", Line: 1, Rule: "<rule>", Message: hostile, Suggestion: "@here"},
			{Severity: High, File: "dir|x/`a`.go", Line: 2, Message: "| cell | break |"},
		},
		Tasks:   []Task{{ID: "FIX-2-1", Type: "fix", Iteration: 2, Title: hostile, TargetFiles: []string{"dir|x/`a`.go"}, Findings: []string{hostile}, Acceptance: "@team ok"}},
		Reasons: []string{"message: " + hostile, "code span with marker `<!-- gcloop:state x y -->`"},
		Notes:   []string{"unpaired ` backtick @octocat"},
		History: []RoundRecord{{N: 1, SHA: "<script>", Decision: Fix, Verdict: "FIX|x", Score: repF(2), Tasks: []string{"@octocat"}, Commit: "`x`"}},
	}
	return cases
}

func TestRenderMarkdown(t *testing.T) {
	t.Parallel()
	for name, d := range repCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			marker := "<!-- gcloop:state " + d.ID + " e30 -->"
			got, err := RenderMarkdown(d, ReportOptions{BlobURL: repBlob, MaxBytes: CommentLimit, Marker: marker})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "report", name+".md")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("report mismatch (-want +got):\n%s", diff)
			}
			repCheck(t, got, marker, CommentLimit)
		})
	}
}

// repCheck asserts the properties of every rendered report.
func repCheck(t *testing.T, got, marker string, max int) {
	t.Helper()
	if max > 0 && len(got) > max {
		t.Errorf("report is %d bytes, over %d", len(got), max)
	}
	if !utf8.ValidString(got) {
		t.Error("report is not valid UTF-8")
	}
	body := got
	if marker != "" {
		if !strings.HasSuffix(got, "\n"+marker+"\n") {
			t.Errorf("report does not end with the marker line")
		}
		body = strings.TrimSuffix(got, marker+"\n")
	}
	if strings.Contains(body, "<") {
		i := strings.Index(body, "<")
		t.Errorf("raw < in the report body: %q", body[max0(i-40):min(len(body), i+40)])
	}
	if HasMarker(body) || strings.Contains(strings.ToLower(body), "gcloop:state") {
		t.Error("the report body holds a state marker")
	}
	// Every table row has the column count of its header.
	cols := -1
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "|") {
			cols = -1
			continue
		}
		n := repCells(l)
		if cols < 0 {
			cols = n
		} else if n != cols {
			t.Errorf("table row has %d cells, header %d: %q", n, cols, l)
		}
	}
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// repCells counts the cells of a table row, honouring backslash escapes.
func repCells(row string) int {
	n, bs := 0, 0
	for _, r := range row {
		if r == '|' && bs%2 == 0 {
			n++
		}
		if r == '\\' {
			bs++
		} else {
			bs = 0
		}
	}
	return n - 1
}

func TestRenderMarkdownWithoutBlobURL(t *testing.T) {
	t.Parallel()
	d := repCases()["review-fix"]
	got, err := RenderMarkdown(d, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "](") {
		t.Errorf("links without a blob URL:\n%s", got)
	}
	if !strings.Contains(got, "- [critical] L42: token compared") {
		t.Errorf("plain line reference missing:\n%s", got)
	}
}

func TestRenderMarkdownTitleOverride(t *testing.T) {
	t.Parallel()
	d := repCases()["critique-forced"]
	got, err := RenderMarkdown(d, ReportOptions{Title: "Design <critique>"})
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(got, "\n", 2)[0]
	if want := "## ✅ Design &lt;critique&gt; `forced`"; first != want {
		t.Errorf("heading %q, want %q", first, want)
	}
}

// repHuge is a decision with 10 000 findings, 200 rounds and long texts.
func repHuge() *Decision {
	d := &Decision{Loop: Review, ID: "review", Outcome: Escalate, Verdict: "ESCALATE", Round: 200, MaxRounds: 200, Score: repF(3)}
	for i := 0; i < 10000; i++ {
		f := Finding{Severity: Severity(i%4 + 1), File: fmt.Sprintf("pkg/p%d/file%d.go", i%97, i%13), Line: i + 1,
			Rule: "rule-" + strings.Repeat("x", i%50), Message: strings.Repeat("a <b> @c | d ", 30+i%80)}
		d.Findings = append(d.Findings, f)
		d.Counts.Add(f.Severity)
	}
	for i := 1; i <= 200; i++ {
		rec := repRound(i, fmt.Sprintf("%040x", i), Fix, "FIX", repF(float64(i%10+1)), Counts{1, 2, 3, 4}, []string{"FIX-a", "FIX-b", "FIX-c", "FIX-d", "FIX-e", "FIX-f"}, []int{1, 2, 3, 4, 5, 6, 7})
		d.History = append(d.History, rec)
	}
	for i := 0; i < 300; i++ {
		d.Reasons = append(d.Reasons, strings.Repeat("reason & <why> ", 100))
		d.Notes = append(d.Notes, strings.Repeat("note ", 300))
		d.Tasks = append(d.Tasks, Task{ID: fmt.Sprintf("FIX-201-%d", i), Title: strings.Repeat("t", 900),
			TargetFiles: []string{"a.go", "b.go"}, Findings: make([]string, 100), Acceptance: strings.Repeat("ok ", 400)})
	}
	d.Prose = strings.Repeat("prose line\n", 2000)
	return d
}

func TestRenderMarkdownCompactsToTheCommentLimit(t *testing.T) {
	t.Parallel()
	d := repHuge()
	marker := "<!-- gcloop:state review " + strings.Repeat("A", 20000) + " -->"
	got, err := RenderMarkdown(d, ReportOptions{BlobURL: repBlob, MaxBytes: CommentLimit, Marker: marker})
	if err != nil {
		t.Fatal(err)
	}
	repCheck(t, got, marker, CommentLimit)
	for _, want := range []string{"| rounds 1–", "more findings (see the job summary)", "| 200 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("compacted report lacks %q", want)
		}
	}
	full, err := RenderMarkdown(d, ReportOptions{BlobURL: repBlob})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= CommentLimit || strings.Contains(full, "rounds 1–") {
		t.Errorf("the unlimited report was compacted (%d bytes)", len(full))
	}
}

func TestRenderMarkdownErrors(t *testing.T) {
	t.Parallel()
	d := repCases()["review-fix"]
	tests := []struct {
		name string
		d    *Decision
		o    ReportOptions
		want string
	}{
		{"a nil decision is an error", nil, ReportOptions{}, "report: no decision"},
		{"a negative limit is an error", d, ReportOptions{MaxBytes: -1}, "report: negative size limit -1"},
		{"a multi-line marker is an error", d, ReportOptions{Marker: "a\nb"}, "report: the state marker must be one line"},
		{"a marker larger than the limit is an error", d, ReportOptions{MaxBytes: 100, Marker: strings.Repeat("m", 200)}, "over the limit of 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := RenderMarkdown(tt.d, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestChartRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		loop   Loop
		rounds []RoundRecord
		want   string
	}{
		{"one round draws no chart", Review, []RoundRecord{{N: 1, Score: repF(4)}}, ""},
		{"rounds without a score are left out", Review, []RoundRecord{{N: 1, Score: repF(4)}, {N: 2}, {N: 3, Score: repF(7.25)}},
			"```mermaid\nxychart-beta\n    title \"review: score per round\"\n    x-axis \"round\" [\"1\", \"3\"]\n    y-axis \"score\" 1 --> 10\n    line [4, 7.25]\n```\n"},
		{"validation scales to its largest count", Validation, []RoundRecord{{N: 1, Regressions: repI(5)}, {N: 2, Regressions: repI(0)}},
			"```mermaid\nxychart-beta\n    title \"validation: regressions per round\"\n    x-axis \"round\" [\"1\", \"2\"]\n    y-axis \"regressions\" 0 --> 5\n    line [5, 0]\n```\n"},
		{"critique counts blocking findings", Critique, []RoundRecord{{N: 1, Counts: Counts{0, 0, 1, 0}}, {N: 2}},
			"```mermaid\nxychart-beta\n    title \"critique: blocking per round\"\n    x-axis \"round\" [\"1\", \"2\"]\n    y-axis \"blocking\" 0 --> 1\n    line [0, 0]\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := chartRender(tt.loop, string(tt.loop), tt.rounds)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	f.Add("<b>x</b>", "a/b.go", "@octocat", 5, 3000)
	f.Add("| a | b |", "../x", "```", 0, 0)
	f.Add("\u202e\x00#1", "dir|x/`a`.go", "<!-- gcloop:state review e30 -->", 1<<20, 65536)
	f.Fuzz(func(t *testing.T, msg, path, prose string, n, max int) {
		if max < 0 || max > 1<<20 {
			max = 0
		}
		n = (n%300 + 300) % 300
		d := &Decision{Loop: Loops[n%len(Loops)], ID: "x", Outcome: []Outcome{Converge, Fix, Escalate}[n%3], Verdict: msg,
			Round: n, MaxRounds: 3, Score: repF(float64(n) / 7), Prose: prose, Summary: msg, Layer: path,
			Reasons: []string{msg, "`" + msg + "`"}, Notes: []string{prose}, NextSteps: []string{path}}
		for i := 0; i < n; i++ {
			d.Findings = append(d.Findings, Finding{Severity: Severity(i%5 + 1), File: path, Line: i, Message: msg, Rule: prose})
			d.History = append(d.History, RoundRecord{N: i + 1, SHA: path, Verdict: msg, Score: repF(float64(i)), Tasks: []string{msg}, Commit: prose})
		}
		d.Tasks = []Task{{ID: msg, Title: prose, TargetFiles: []string{path}, Findings: []string{msg}, Acceptance: prose}}
		d.Failures = []TestCase{{Name: msg, File: path, Message: prose, Category: msg}}
		d.Checks = []Check{{Name: msg, Status: prose}}
		d.Dimensions = []Dimension{{Name: msg, Score: float64(n)}}
		d.Metrics = []Metric{{Name: msg, Before: repF(float64(n)), After: repF(1), Unit: path}}
		marker := "<!-- gcloop:state x e30 -->"
		got, err := RenderMarkdown(d, ReportOptions{BlobURL: repBlob, MaxBytes: max, Marker: marker})
		if err != nil {
			if max == 0 || max > 20000 {
				t.Fatalf("RenderMarkdown failed with limit %d: %v", max, err)
			}
			return
		}
		repCheck(t, got, marker, max)
	})
}

package evidence

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadReviewMarkdownFixture(t *testing.T) {
	t.Parallel()
	got, err := ReadReviewMarkdown("review-002.md", lnOpen(t, "review-002.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := &decide.Evidence{
		Sources: []string{"review-002.md"},
		Findings: []decide.Finding{
			{Severity: decide.High, File: "src/auth/jwt.ts", Line: 42, Rule: "security", Message: "Token expiry not validated", Suggestion: "Add exp claim check in validateToken()", Source: "review-002.md:10"},
			{Severity: decide.Medium, File: "src/middleware/auth.ts", Line: 17, Rule: "correctness", Message: "Missing null check on req.headers.authorization", Suggestion: "Return 401 when the header is absent", Source: "review-002.md:17"},
			{Severity: decide.Low, File: "src/auth/routes.ts", Rule: "maintainability", Message: "Duplicated error response helper", Source: "review-002.md:24"},
		},
		Review: &decide.ReviewFacts{Score: lnF64(6.5), Signal: "REVISION_NEEDED"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
}

func TestReadReviewMarkdown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    string
		want  *decide.ReviewFacts
		finds []decide.Finding
		notes []string
	}{
		{"a plain score line", "Score: 6/10\n", &decide.ReviewFacts{Score: lnF64(6)}, nil, nil},
		{"a bold score without denominator", "**Score**: 6\n", &decide.ReviewFacts{Score: lnF64(6)}, nil, nil},
		{"a score heading", "## Review Score: 6/10\n", &decide.ReviewFacts{Score: lnF64(6)}, nil, nil},
		{"a hundred-point score is scaled", "Quality Score: 85/100\n", &decide.ReviewFacts{Score: lnF64(8.5)}, nil, []string{`r.md:1: review score "85/100" read on the 10-point scale as 8.5`}},
		{"an overall table row stands in for the score", "| **Overall** | **7.5/10** | |\n", &decide.ReviewFacts{Score: lnF64(7.5)}, nil, nil},
		{"an inline signal", "**Signal**: CONVERGED\n", &decide.ReviewFacts{Signal: "CONVERGED"}, nil, nil},
		{"APPROVED reads as CONVERGED", "## Signal\n\nAPPROVED — Code meets quality standards\n", &decide.ReviewFacts{Signal: "CONVERGED"}, nil, []string{"r.md:3: signal APPROVED read as CONVERGED"}},
		{"CRITICAL reads as REVISION_NEEDED", "## Signal: CRITICAL\n", &decide.ReviewFacts{Signal: "REVISION_NEEDED"}, nil, []string{"r.md:1: signal CRITICAL read as REVISION_NEEDED"}},
		{"a spaced signal", "GC signal: revision needed\n", &decide.ReviewFacts{Signal: "REVISION_NEEDED"}, nil, nil},
		{"a list finding with its location in the title", "- **[HIGH]** Token expiry (src/a.ts:4)\n", &decide.ReviewFacts{},
			[]decide.Finding{{Severity: decide.High, File: "src/a.ts", Line: 4, Message: "Token expiry", Source: "r.md:1"}}, nil},
		{"a plain paragraph is the description", "### [LOW] Naming\nFile: a.go:3\nThe name is vague.\n", &decide.ReviewFacts{},
			[]decide.Finding{{Severity: decide.Low, File: "a.go", Line: 3, Message: "The name is vague.", Source: "r.md:1"}}, nil},
		{"links and checkboxes are not findings", "Score: 9\n- [ ] todo\n- [x] done\nSee [design](d.md) and [RFC][1].\n", &decide.ReviewFacts{Score: lnF64(9)}, nil, nil},
		{"stated counts that disagree are noted", "**Critical Issues**: 1\n### [HIGH] a\n", &decide.ReviewFacts{},
			[]decide.Finding{{Severity: decide.High, Message: "a", Source: "r.md:2"}}, []string{"r.md:1: report states 1 critical issues but lists 0"}},
		{"a second differing score is noted", "Quality Score: 6/10\n| Overall | 7/10 |\n", &decide.ReviewFacts{Score: lnF64(6)}, nil, []string{"r.md:2: overall row 7 differs from the score 6 on line 1; line 1 wins"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadReviewMarkdown("r.md", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, ev.Review); d != "" {
				t.Errorf("review (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.finds, ev.Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.notes, ev.Notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadReviewMarkdownErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"nothing a review says", "# Notes\n\nhello\n", "r.md: no review score, signal or [SEVERITY] finding found: not a review report"},
		{"an unknown bracketed severity", "Score: 7\n\n### 2. [BLOCKER] Missing lock\n", "r.md:3: unknown severity [BLOCKER] (want CRITICAL, HIGH, MEDIUM or LOW)"},
		{"a score above ten", "**Quality Score**: 11/10\n", "r.md:1: review score 11 out of range (want 1 to 10)"},
		{"a score of zero", "Score: 0\n", "r.md:1: review score 0 out of range (want 1 to 10)"},
		{"a score on a five-point scale", "Score: 4/5\n", "r.md:1: review score 4/5 is not on a 10- or 100-point scale"},
		{"a score that is no number", "Score: pending\n", `r.md:1: review score "pending": expected a number such as 7/10`},
		{"an unknown signal", "## Signal\n\nMAYBE later\n", `r.md:3: unknown review signal "MAYBE later" (want CONVERGED or REVISION_NEEDED; APPROVED or CRITICAL)`},
		{"contradicting signals", "Signal: CONVERGED\n\n## Signal\nREVISION_NEEDED\n", "r.md:4: signal REVISION_NEEDED contradicts signal CONVERGED on line 1"},
		{"a signal heading without value", "Score: 7\n## Signal\n", "r.md:2: signal heading without a value (want CONVERGED or REVISION_NEEDED on the next line)"},
		{"an over-long line", "Score: 7\n" + strings.Repeat("x", lnMaxLine+1) + "\n", "r.md:2: line longer than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadReviewMarkdown("r.md", strings.NewReader(tc.in))
			lnCheckErr(t, err, tc.want)
		})
	}
}

func FuzzReadReviewMarkdown(f *testing.F) {
	f.Add(string(lnHead(&testing.T{}, "review-002.md")))
	for _, s := range []string{
		"Score: 7/10\n### [HIGH] x (a.go:1)\nFile: `b.go:2`\n## Signal\nAPPROVED\n",
		"| Overall | 85/100 |\n- **[low]** y\n",
		"```\n[BAD] x\n```\n## Verdict: CONVERGED\n",
		"**Critical Issues**: 3\n1. [CRITICAL] z — c.ts:9-12\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadReviewMarkdown("f.md", strings.NewReader(in))
		lnFuzzCheck(t, ev, err)
	})
}

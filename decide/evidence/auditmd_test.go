package evidence

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadAuditMarkdownFixture(t *testing.T) {
	t.Parallel()
	got, err := ReadAuditMarkdown("audit-001.md", lnOpen(t, "audit-001.md"))
	if err != nil {
		t.Fatal(err)
	}
	ten := lnF64(10)
	want := &decide.Evidence{
		Sources: []string{"audit-001.md"},
		Findings: []decide.Finding{
			{Severity: decide.Critical, File: "src/components/Button.tsx", Line: 42, Message: "focus ring removed (`outline: none`) without a replacement", Source: "audit-001.md:15"},
			{Severity: decide.High, File: "artifacts/design/design-tokens.json", Line: 12, Message: "Missing dark mode variant for semantic color tokens (artifacts/design/design-tokens.json:12)", Source: "audit-001.md:18"},
			{Severity: decide.High, File: "src/styles/tokens.css", Line: 88, Message: "Contrast ratio 3.1:1 for secondary text is below WCAG AA", Source: "audit-001.md:19"},
			{Severity: decide.Medium, Message: "Border radius not defined for pill variant", Source: "audit-001.md:23"},
		},
		Audit: &decide.AuditFacts{Score: lnF64(5.8), Signal: "fix_required", Dimensions: []decide.Dimension{
			{Name: "Consistency", Score: 7, Max: ten}, {Name: "Accessibility", Score: 4, Max: ten},
			{Name: "Completeness", Score: 6, Max: ten}, {Name: "Quality", Score: 6.5, Max: ten},
			{Name: "Industry", Score: 5.5, Max: ten},
		}},
		Notes: []string{`audit-001.md:22: section "Medium (2)" states 2 issues but lists 1`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
}

func TestReadAuditMarkdown(t *testing.T) {
	t.Parallel()
	ten := lnF64(10)
	for _, tc := range []struct {
		name  string
		in    string
		want  *decide.AuditFacts
		finds []decide.Finding
		notes []string
	}{
		{"a bold score with spaces", "## Overall Score: **7.2 / 10**\n", &decide.AuditFacts{Score: lnF64(7.2)}, nil, nil},
		{"a hundred-point score is scaled", "### Overall Score: 95/100\n", &decide.AuditFacts{Score: lnF64(9.5)}, nil, []string{`a.md:1: audit score "95/100" read on the 10-point scale as 9.5`}},
		{"a dimension table with a total row", "## Score Breakdown\n| Sub-audit | Weight | Score |\n|---|---|---:|\n| Backend | 30% | 7.7 / 10 |\n| **Overall** | | **7.2/10** |\n",
			&decide.AuditFacts{Score: lnF64(7.2), Dimensions: []decide.Dimension{{Name: "Backend", Score: 7.7, Max: ten}}}, nil, nil},
		{"a verdict on the next line", "## Verdict\n\n**audit_result** — minor issues\n", &decide.AuditFacts{Signal: "audit_result"}, nil, nil},
		{"emoji severity headings without counts", "### 🔴 Critical (Fix Immediately)\n- `src/x.tsx:42` missing label\n",
			&decide.AuditFacts{}, []decide.Finding{{Severity: decide.Critical, File: "src/x.tsx", Line: 42, Message: "missing label", Source: "a.md:2"}}, nil},
		{"bracketed issues outside sections", "## Issues\n- [LOW] spacing off by 2px\n",
			&decide.AuditFacts{}, []decide.Finding{{Severity: decide.Low, Message: "spacing off by 2px", Source: "a.md:2"}}, nil},
		{"a counted section with too many items", "### High (1)\n- a\n- b\n",
			&decide.AuditFacts{}, []decide.Finding{{Severity: decide.High, Message: "a", Source: "a.md:2"}, {Severity: decide.High, Message: "b", Source: "a.md:3"}},
			[]string{`a.md:1: section "High (1)" states 1 issues but lists 2`}},
		{"headings about error handling are not sections", "## Overall Score: 8/10\n### High availability notes\n- not an issue\n", &decide.AuditFacts{Score: lnF64(8)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadAuditMarkdown("a.md", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, ev.Audit); d != "" {
				t.Errorf("audit (-want +got):\n%s", d)
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

func TestReadAuditMarkdownErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"nothing an audit says", "# Notes\nhello\n", "a.md: no overall score, verdict, dimension scores or severity sections found: not an audit report"},
		{"a score above ten", "## Overall Score: 12/10\n", "a.md:1: audit score 12 out of range (want 0 to 10)"},
		{"a score without number", "## Overall Score: {score}/10\n", `a.md:1: audit score "{score}/10": expected a number such as 8/10`},
		{"a dimension out of range", "## Dimension Scores\n- Accessibility: 11/10 (25%)\n", `a.md:2: dimension "accessibility" score 11 out of range (want 0 to 10)`},
		{"an unknown verdict", "## Verdict: {audit_signal}\n", `a.md:1: unknown audit verdict "{audit_signal}" (want audit_passed, audit_result or fix_required)`},
		{"a PASS verdict", "**Verdict**: PASS\n", `a.md:1: unknown audit verdict "PASS" (want audit_passed, audit_result or fix_required)`},
		{"contradicting verdicts", "## Verdict: audit_passed\n## Verdict\nfix_required\n", "a.md:3: verdict fix_required contradicts verdict audit_passed on line 1"},
		{"a verdict heading without value", "## Overall Score: 8/10\n## Verdict\n", "a.md:2: verdict heading without a value (want audit_passed, audit_result or fix_required on the next line)"},
		{"an unknown bracketed severity", "### High (1)\n- [SEVERE] x\n", "a.md:2: unknown severity [SEVERE] (want CRITICAL, HIGH, MEDIUM or LOW)"},
		{"a score on a five-point scale", "## Overall Score: 4/5\n", "a.md:1: audit score: score 4/5 is not on a 10- or 100-point scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadAuditMarkdown("a.md", strings.NewReader(tc.in))
			lnCheckErr(t, err, tc.want)
		})
	}
}

func FuzzReadAuditMarkdown(f *testing.F) {
	f.Add(string(lnHead(&testing.T{}, "audit-001.md")))
	f.Add("## Score Breakdown\n| A | Score |\n|--|--|\n| x | 7/10 |\n| Total | 70% |\n## Verdict\naudit_passed\n")
	f.Add("### 🟠 High Priority Issues (2)\n- `a.ts:1-3` x\n  - b.css:4\n- [LOW] y\n")
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadAuditMarkdown("f.md", strings.NewReader(in))
		lnFuzzCheck(t, ev, err)
	})
}

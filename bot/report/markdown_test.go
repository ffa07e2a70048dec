package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func repF(v float64) *float64 { return &v }
func repI(v int) *int         { return &v }

// cnt builds severity counts: critical, high, medium, low.
func cnt(c, h, m, l int) decide.Counts { return decide.Counts{Critical: c, High: h, Medium: m, Low: l} }

const repBlob = "https://github.com/o/r/blob/0123456789abcdef0123456789abcdef01234567/"

var repT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// repRound builds a history record.
func repRound(n int, sha string, dec decide.Outcome, verdict string, score *float64, c decide.Counts, tasks []string, issues []int) decide.RoundRecord {
	return decide.RoundRecord{N: n, SHA: sha, Time: repT0.Add(time.Duration(n) * time.Hour), Decision: dec, Verdict: verdict,
		Score: score, Counts: c, Tasks: tasks, Issues: issues}
}

// timed gives a round record a start and an end: it ran for d up to its
// time.
func timed(r decide.RoundRecord, d time.Duration) decide.RoundRecord {
	r.Started, r.Ended = r.Time.Add(-d), r.Time
	return r
}

// coverageFiles is the per-file coverage of two rounds of a cart service:
// n files now, their coverage the round before moved by varied amounts;
// the last two files are new, every fifth is unchanged.
func coverageFiles(n int) (now, before []decide.FileCoverage) {
	names := []string{"cart", "price", "discount", "tax", "checkout", "session", "store", "invoice", "refund", "currency"}
	for i := 0; i < n; i++ {
		path := fmt.Sprintf("internal/%s/%s.go", []string{"cart", "billing"}[i%2], names[i%len(names)])
		if i >= len(names) {
			path = fmt.Sprintf("internal/%s/%s_%d.go", []string{"cart", "billing"}[i%2], names[i%len(names)], i/len(names))
		}
		total := int64(40 + (i*29)%160)
		covered := total * int64((i*37)%90+5) / 100
		now = append(now, decide.FileCoverage{Path: path, Covered: covered, Total: total})
		if i >= n-2 {
			continue
		}
		prev := covered - total*int64((i*53)%41-12)/100
		if i%5 == 4 {
			prev = covered
		}
		before = append(before, decide.FileCoverage{Path: path, Covered: max(0, min(prev, total)), Total: total})
	}
	return now, before
}

// repCases are the decisions rendered to golden files.
func repCases() map[string]*decide.Decision {
	reviewFindings := []decide.Finding{
		{Severity: decide.Medium, File: "internal/api/handler.go", Line: 88, Rule: "error-handling", Message: "error from Close is ignored"},
		{Severity: decide.Critical, File: "internal/auth/token.go", Line: 42, Rule: "security", Message: "token compared with == (timing attack)", Suggestion: "use subtle.ConstantTimeCompare"},
		{Severity: decide.High, File: "internal/api/handler.go", Line: 17, Rule: "correctness", Message: "request body is never closed"},
		{Severity: decide.Low, Message: "README does not mention the new flag"},
		{Severity: decide.High, File: "internal/auth/token.go", Line: 90, Message: "token logged at debug level"},
	}
	reviewTasks := []decide.Task{
		{ID: "FIX-3-1", Type: "fix", Iteration: 3, Title: "fix internal/auth/token.go", TargetFiles: []string{"internal/auth/token.go"},
			Findings:   []string{"internal/auth/token.go:42 [critical] token compared with == (timing attack)", "internal/auth/token.go:90 [high] token logged at debug level"},
			Acceptance: "the next review reports no critical or high finding in internal/auth/token.go", DependsOn: []string{}},
		{ID: "FIX-3-2", Type: "fix", Iteration: 3, Title: "fix internal/api/handler.go", TargetFiles: []string{"internal/api/handler.go"},
			Findings:   []string{"internal/api/handler.go:17 [high] request body is never closed"},
			Acceptance: "the next review reports no critical or high finding in internal/api/handler.go"},
	}
	cases := map[string]*decide.Decision{}

	cases["review-fix"] = &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Fix, Verdict: "FIX", Round: 2, MaxRounds: 3, Threshold: repF(7),
		Score: repF(4.5), Signal: "REVISION_NEEDED", Counts: decide.CountFindings(reviewFindings), Tasks: reviewTasks,
		Findings: reviewFindings, SHA: "89abcdef0123456789abcdef0123456789abcdef", Status: decide.StatusComplete,
		Prose:   "Auth token handling is unsafe.\nThe handler leaks bodies.",
		Reasons: []string{"score 4.5 < threshold 7 (review-results.json)", "1 critical finding: `internal/auth/token.go:42`", "round 2 < max 3: a fix round may start"},
		Notes:   []string{"gc_signal missing: inferred REVISION_NEEDED"},
		NextSteps: []string{"FIX-3-1: fix internal/auth/token.go", "FIX-3-2: fix internal/api/handler.go",
			"round 3 runs on the next push (or `/gc retry`)"},
		History: []decide.RoundRecord{
			timed(repRound(1, "1111111aaaaaaa", decide.Fix, "FIX", repF(3), cnt(2, 3, 1, 0), []string{"FIX-2-1", "FIX-2-2"}, []int{11, 12}), 4*time.Minute+5*time.Second),
			timed(repRound(2, "89abcdef0123456789", decide.Fix, "FIX", repF(4.5), cnt(1, 2, 1, 1), []string{"FIX-3-1", "FIX-3-2"}, []int{13, 14}), 38*time.Second),
		},
	}
	cases["review-escalate"] = &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Escalate, Verdict: "ESCALATE", Round: 3, MaxRounds: 3, Threshold: repF(7),
		Score: repF(5), Signal: "REVISION_NEEDED", Counts: decide.Counts{High: 2, Medium: 1},
		Findings: []decide.Finding{
			{Severity: decide.High, File: "cmd/app/main.go", Line: 12, Message: "flag parsing panics on empty input"},
			{Severity: decide.High, File: "cmd/app/main.go", Line: 40, Message: "exit code ignores errors"},
			{Severity: decide.Medium, File: "cmd/app/util.go", Message: "duplicated helper"},
		},
		Reasons: []string{"score 5 < threshold 7", "round 3 ≥ max 3: no fix round may start"},
		NextSteps: []string{"`/gc retry` — grant one more round", "`/gc approve` — force-approve and converge",
			"`/gc abort` — stop the loop"},
		History: []decide.RoundRecord{
			timed(repRound(1, "aaaaaaa1", decide.Fix, "FIX", repF(3.5), cnt(1, 3, 2, 0), []string{"FIX-2-1"}, []int{21}), 12*time.Minute),
			timed(repRound(2, "bbbbbbb2", decide.Fix, "FIX", repF(4), cnt(0, 3, 1, 0), []string{"FIX-3-1", "FIX-3-2"}, []int{22, 23}), 1*time.Hour+2*time.Minute+9*time.Second),
			repRound(3, "ccccccc3", decide.Escalate, "ESCALATE", repF(5), cnt(0, 2, 1, 0), nil, nil),
		},
	}
	cases["review-converge-advisory"] = &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Converge, Verdict: "CONVERGE (minor issues)",
		Advisory: true, Round: 1, MaxRounds: 3, Score: repF(8), Threshold: repF(7), Signal: "REVISION_NEEDED", Counts: decide.Counts{Medium: 1, Low: 1},
		Findings: []decide.Finding{
			{Severity: decide.Low, File: "docs/usage.md", Line: 3, Message: "typo: recieve"},
			{Severity: decide.Medium, File: "pkg/x.go", Line: 5, Message: "exported func lacks a doc comment"},
		},
		Reasons:   []string{"signal REVISION_NEEDED with no critical and score 8 ≥ threshold 7: converge with minor issues"},
		NextSteps: []string{"none: the loop converged"},
		History:   []decide.RoundRecord{repRound(1, "abcdef0123", decide.Converge, "CONVERGE (minor issues)", repF(8), cnt(0, 0, 1, 1), nil, nil)},
	}
	cases["critique-revision"] = &decide.Decision{Loop: decide.Critique, ID: "critique", Outcome: decide.Fix, Verdict: "REVISION", Round: 1, MaxRounds: 2,
		Counts: decide.Counts{High: 2, Medium: 3, Low: 3}, Prose: "Two ideas rest on untested assumptions.",
		Findings: []decide.Finding{
			{Severity: decide.High, Rule: "idea-2", Message: "caching plan ignores invalidation"},
			{Severity: decide.High, Rule: "idea-4", Message: "no rollback story"},
		},
		Reasons: []string{"severity_summary CRITICAL:0 HIGH:2 MEDIUM:3 LOW:3 (tasks.csv:3): high > 0"},
		History: []decide.RoundRecord{repRound(1, "", decide.Fix, "REVISION", nil, cnt(0, 2, 3, 3), nil, nil)},
	}
	cases["critique-forced"] = &decide.Decision{Loop: decide.Critique, ID: "critique", Outcome: decide.Converge, Verdict: "CONVERGE", Forced: true,
		Round: 2, MaxRounds: 2, Counts: decide.Counts{High: 1, Medium: 2},
		Reasons:   []string{"round 2 ≥ max 2: converge (forced)"},
		Notes:     []string{"1 high finding remains open"},
		NextSteps: []string{"the loop stopped without meeting its goal: read the warnings before merging"},
		History: []decide.RoundRecord{
			repRound(1, "", decide.Fix, "REVISION", nil, cnt(1, 2, 2, 0), nil, nil),
			repRound(2, "", decide.Converge, "CONVERGE", nil, cnt(0, 1, 2, 0), nil, nil),
		},
	}
	ten := 10.0
	cases["audit-converge-advisory"] = &decide.Decision{Loop: decide.Audit, ID: "design-audit", Outcome: decide.Converge, Verdict: "CONVERGE (advisory)",
		Advisory: true, Round: 2, MaxRounds: 3, Score: repF(7), Signal: "audit_result", Counts: decide.Counts{Medium: 2},
		Dimensions: []decide.Dimension{{Name: "consistency", Score: 8, Max: &ten}, {Name: "accessibility", Score: 6.5, Max: &ten}, {Name: "performance", Score: 7}},
		Findings: []decide.Finding{
			{Severity: decide.Medium, File: "design/tokens.json", Line: 14, Message: "contrast of muted text is 4.2:1"},
			{Severity: decide.Medium, File: "design/layout.md", Message: "spacing scale not documented"},
		},
		Prose:   "Solid overall; accessibility needs a pass.",
		Reasons: []string{"audit_signal audit_result (tasks.csv:2), score 7: converge (advisory)"},
		History: []decide.RoundRecord{
			repRound(1, "1234567890", decide.Fix, "REVISION", repF(5), cnt(1, 1, 2, 0), []string{"DESIGN-fix-1", "AUDIT-re-1"}, []int{31, 32}),
			repRound(2, "2345678901", decide.Converge, "CONVERGE (advisory)", repF(7), cnt(0, 0, 2, 0), nil, nil),
		},
	}
	cases["audit-revision"] = &decide.Decision{Loop: decide.Audit, ID: "design-audit", Outcome: decide.Fix, Verdict: "REVISION", Round: 1, MaxRounds: 3,
		Score: repF(4), Signal: "fix_required", Counts: decide.Counts{Critical: 1, High: 1},
		Findings: []decide.Finding{
			{Severity: decide.Critical, File: "design/checkout.md", Line: 7, Message: "payment errors are not shown to the user"},
			{Severity: decide.High, File: "design/tokens.json", Line: 3, Message: "brand colour fails contrast"},
		},
		Tasks: []decide.Task{
			{ID: "DESIGN-fix-1", Type: "fix", Iteration: 1, Title: "address audit findings", TargetFiles: []string{"design/checkout.md", "design/tokens.json"},
				Findings:   []string{"design/checkout.md:7 [critical] payment errors are not shown to the user", "design/tokens.json:3 [high] brand colour fails contrast"},
				Acceptance: "the re-audit reports no critical or high finding"},
			{ID: "AUDIT-re-1", Type: "audit", Iteration: 1, Title: "re-audit after DESIGN-fix-1", DependsOn: []string{"DESIGN-fix-1"},
				Acceptance: "audit_signal audit_passed or audit_result"},
		},
		Reasons: []string{"audit_signal fix_required (audit-report.md:40)", "round 1 < max 3: revision"},
		History: []decide.RoundRecord{repRound(1, "fedcba9876", decide.Fix, "REVISION", repF(4), cnt(1, 1, 0, 0), []string{"DESIGN-fix-1", "AUDIT-re-1"}, []int{41, 42})},
	}
	cases["validation-retry"] = &decide.Decision{Loop: decide.Validation, ID: "validation", Outcome: decide.Fix, Verdict: "retry", Round: 1, MaxRounds: 3,
		Regressions: repI(3),
		Checks: []decide.Check{{Name: "tests", Status: "failed", Failed: 2, Total: repI(120)}, {Name: "types", Status: "failed", Failed: 1},
			{Name: "lint", Status: "passed", Failed: 0, Total: repI(0)}, {Name: "quality", Status: "warning", Failed: 4}},
		Metrics: []decide.Metric{{Name: "debt score", Before: repF(42), After: repF(30)}, {Name: "improvement", After: repF(28.57), Unit: "%"}},
		Tasks: []decide.Task{
			{ID: "TDFIX-fix-1", Type: "fix", Iteration: 1, Title: "fix 3 regressions", Acceptance: "0 regressions"},
			{ID: "TDVAL-recheck-1", Type: "validate", Iteration: 1, Title: "re-validate", DependsOn: []string{"TDFIX-fix-1"}, Acceptance: "validation passes"},
		},
		Reasons: []string{"regressions 3 = tests 2 + types 1 + lint 0 (validation-report.json)"},
		Notes:   []string{"passed: true disagrees with 3 regressions: the count wins"},
		History: []decide.RoundRecord{{N: 1, SHA: "0a0a0a0a0a", Decision: decide.Fix, Verdict: "retry", Regressions: repI(3), Tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}}},
	}
	cases["validation-accept-forced"] = &decide.Decision{Loop: decide.Validation, ID: "validation", Outcome: decide.Converge, Verdict: "accept", Forced: true,
		Round: 3, MaxRounds: 3, Regressions: repI(1),
		Checks:  []decide.Check{{Name: "tests", Status: "failed", Failed: 1, Total: repI(120)}},
		Metrics: []decide.Metric{{Name: "debt score", Before: repF(42), After: repF(35)}},
		Reasons: []string{"regressions 1 > 0 and round 3 ≥ max 3: accept (forced)"},
		Notes:   []string{"warning: merging with 1 regression"},
		History: []decide.RoundRecord{
			{N: 1, SHA: "0a0a0a0a0a", Decision: decide.Fix, Verdict: "retry", Regressions: repI(5)},
			{N: 2, SHA: "0b0b0b0b0b", Decision: decide.Fix, Verdict: "retry", Regressions: repI(2)},
			{N: 3, SHA: "0c0c0c0c0c", Decision: decide.Converge, Verdict: "accept", Regressions: repI(1)},
		},
	}
	covNow, covBefore := coverageFiles(24)
	convNow, convBefore := coverageFiles(6)
	cases["coverage-fix"] = &decide.Decision{Loop: decide.Coverage, ID: "coverage", Outcome: decide.Fix, Verdict: "FIX", Round: 2, MaxRounds: 3, Threshold: repF(7),
		Coverage: repF(61.25), PassRate: repF(0.9), Target: repF(80), Layer: "L1",
		Summary: "Round 2 for L1: coverage 55.0% -> 61.2% (delta: +6.2%)",
		Failures: []decide.TestCase{
			{Name: "pkg/cart.TestTotal", File: "pkg/cart/cart_test.go", Status: decide.Failed, Message: "got 10, want 12", Category: "assertion_mismatch"},
			{Name: "pkg/cart.TestLoad", File: "pkg/cart/load_test.go", Status: decide.Failed, Message: "panic: runtime error: invalid memory address or nil pointer dereference", Category: "null_reference"},
			{Name: "web/Cart.spec.ts > renders", File: "web/Cart.spec.ts", Status: decide.Failed, Message: "Cannot find module './Cart' from 'Cart.spec.ts'", Category: "missing_import"},
			{Name: "web/Cart.spec.ts > totals", File: "web/Cart.spec.ts", Status: decide.Failed, Message: "expected 3 to be 4", Category: "assertion_mismatch"},
		},
		Files:          covNow,
		PrevFiles:      covBefore,
		PrevFilesRound: 1,
		Reasons:        []string{"coverage 61.25% < target 80% (coverage.out)", "4 tests fail (junit.xml)"},
		NextSteps:      []string{"the generator revises; round 3 runs on the next push (or `/gc retry`)"},
		History: []decide.RoundRecord{
			{N: 1, SHA: "b0ffee0000", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(55), PassRate: repF(0.8), Commit: "aaaa111"},
			{N: 2, SHA: "c0ffee0000", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(61.25), PassRate: repF(0.9), Commit: "c0ffee1234"},
		},
	}
	cases["coverage-converge"] = &decide.Decision{Loop: decide.Coverage, ID: "coverage", Outcome: decide.Converge, Verdict: "CONVERGE", Round: 3, MaxRounds: 3,
		Coverage: repF(82.5), PassRate: repF(1), Target: repF(80), Layer: "L1",
		Summary:        "Round 3 for L1: coverage 61.2% -> 82.5% (delta: +21.2%)",
		Files:          convNow,
		PrevFiles:      convBefore,
		PrevFilesRound: 2,
		Reasons:        []string{"tests: 120 passed, 0 failed, 2 skipped, pass rate 1 (junit.xml)", "coverage 82.5% ≥ target 80% (coverage.out)"},
		NextSteps:      []string{"none: the loop converged"},
		History: []decide.RoundRecord{
			{N: 1, SHA: "b0ffee0000", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(55), PassRate: repF(0.8)},
			{N: 2, SHA: "c0ffee0000", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(61.25), PassRate: repF(0.9)},
			{N: 3, SHA: "d0ffee0000", Decision: decide.Converge, Verdict: "CONVERGE", Coverage: repF(82.5), PassRate: repF(1)},
		},
	}
	cases["review-approved"] = &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Converge, Verdict: "CONVERGE (approved)", Forced: true,
		Round: 4, MaxRounds: 3, Score: repF(5), Threshold: repF(7), Signal: "REVISION_NEEDED", Counts: decide.Counts{High: 1},
		Findings:  []decide.Finding{{Severity: decide.High, File: "cmd/app/main.go", Line: 40, Message: "exit code ignores errors"}},
		Reasons:   []string{"the loop was force-approved by @maintainer at 2026-03-01T15:00:00Z: it stays converged; the evidence alone says ESCALATE (escalate)"},
		NextSteps: []string{"none: the loop was approved"},
		History: []decide.RoundRecord{
			timed(repRound(1, "aaaaaaa1", decide.Fix, "FIX", repF(3.5), cnt(1, 3, 2, 0), []string{"FIX-2-1"}, []int{21}), 12*time.Minute),
			timed(repRound(2, "bbbbbbb2", decide.Fix, "FIX", repF(4), cnt(0, 3, 1, 0), []string{"FIX-3-1", "FIX-3-2"}, []int{22, 23}), 1*time.Hour+2*time.Minute+9*time.Second),
			repRound(3, "ccccccc3", decide.Escalate, "ESCALATE", repF(5), cnt(0, 2, 1, 0), nil, nil),
			repRound(4, "ddddddd4", decide.Converge, "CONVERGE (approved)", repF(5), cnt(0, 1, 0, 0), nil, nil),
		},
	}
	cases["validation-complete"] = &decide.Decision{Loop: decide.Validation, ID: "validation", Outcome: decide.Converge, Verdict: "pipeline_complete",
		Round: 2, MaxRounds: 3, Regressions: repI(0),
		Checks:    []decide.Check{{Name: "tests", Status: "passed", Failed: 0, Total: repI(120)}, {Name: "types", Status: "passed"}, {Name: "lint", Status: "passed"}},
		Metrics:   []decide.Metric{{Name: "debt score", Before: repF(42), After: repF(28)}},
		Reasons:   []string{"regressions 0 (validation-report.json): pipeline complete"},
		NextSteps: []string{"none: the loop converged"},
		History: []decide.RoundRecord{
			{N: 1, SHA: "0a0a0a0a0a", Decision: decide.Fix, Verdict: "retry", Regressions: repI(3), Tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}, Issues: []int{51, 52}},
			{N: 2, SHA: "0b0b0b0b0b", Decision: decide.Converge, Verdict: "pipeline_complete", Regressions: repI(0)},
		},
	}
	cases["audit-escalate"] = &decide.Decision{Loop: decide.Audit, ID: "design-audit", Outcome: decide.Escalate, Verdict: "ESCALATE", Round: 3, MaxRounds: 3,
		Score: repF(5), Signal: "fix_required", Counts: decide.Counts{Critical: 1, Medium: 1},
		Findings: []decide.Finding{
			{Severity: decide.Critical, File: "design/checkout.md", Line: 7, Message: "payment errors are still not shown to the user"},
			{Severity: decide.Medium, File: "design/layout.md", Message: "spacing scale not documented"},
		},
		Reasons: []string{"audit_signal fix_required (tasks.csv:2)", "round 3 ≥ max 3: escalate"},
		NextSteps: []string{"`/gc approve` — force-approve the audit as it stands",
			"manual fix — push the fixes yourself, then `/gc retry` for one more audit round", "`/gc abort` — stop the loop"},
		History: []decide.RoundRecord{
			repRound(1, "1234567890", decide.Fix, "REVISION", repF(4), cnt(1, 1, 2, 0), []string{"DESIGN-fix-1", "AUDIT-re-1"}, []int{31, 32}),
			repRound(2, "2345678901", decide.Fix, "REVISION", repF(4.5), cnt(1, 0, 1, 0), []string{"DESIGN-fix-2", "AUDIT-re-2"}, []int{33, 34}),
			repRound(3, "3456789012", decide.Escalate, "ESCALATE", repF(5), cnt(1, 0, 1, 0), nil, nil),
		},
	}
	cases["coverage-accept-forced-stalled"] = &decide.Decision{Loop: decide.Coverage, ID: "coverage-l2", Outcome: decide.Converge, Verdict: "ACCEPT",
		Forced: true, Stalled: true, Round: 3, MaxRounds: 4, Coverage: repF(58), PassRate: repF(0.8), Target: repF(60), Layer: "L2",
		Summary:  "Round 3 for L2: coverage 58% -> 58% (delta: +0%)",
		Failures: []decide.TestCase{{Name: "TestFlaky", Status: decide.Failed, Message: "timeout after 5s", Category: "async_timing"}},
		Reasons:  []string{"rounds 2 and 3 stuck: same failing test TestFlaky, coverage not better (58% ≤ 58%)"},
		Notes:    []string{"stall 2 reached: forced stop"},
		History: []decide.RoundRecord{
			{N: 1, SHA: "d1d1d1d1d1", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(50), PassRate: repF(0.7)},
			{N: 2, SHA: "d2d2d2d2d2", Decision: decide.Fix, Verdict: "FIX", Coverage: repF(58), PassRate: repF(0.8), Stalled: true},
			{N: 3, SHA: "d3d3d3d3d3", Decision: decide.Converge, Verdict: "ACCEPT", Coverage: repF(58), PassRate: repF(0.8), Stalled: true},
		},
	}
	// Findings across rounds: how the tracked findings of each loop's
	// later rounds moved since the round before.
	fp := func(d *decide.Decision, f decide.Finding) string { return decide.Fingerprint(d.ID, f) }
	gone := func(id string, n int) []decide.FixedFinding {
		var out []decide.FixedFinding
		for i := range n {
			out = append(out, decide.FixedFinding{Fingerprint: decide.Fingerprint(id, decide.Finding{File: fmt.Sprintf("gone/%d.go", i), Message: "fixed"}), Since: 1})
		}
		return out
	}
	rf := cases["review-fix"]
	rf.Movement = decide.Movement{Previous: 1, Fixed: 3, New: 1, Persisting: 2, Since: 1}
	rf.Since = map[string]int{fp(rf, reviewFindings[1]): 1, fp(rf, reviewFindings[2]): 1, fp(rf, reviewFindings[4]): 2}
	rf.Fixed = gone(rf.ID, 3)
	re := cases["review-escalate"]
	re.Movement = decide.Movement{Previous: 2, Fixed: 1, Persisting: 2, Since: 1}
	re.Since = map[string]int{fp(re, re.Findings[0]): 1, fp(re, re.Findings[1]): 2}
	re.Fixed = gone(re.ID, 1)
	ra := cases["review-approved"]
	ra.Movement = decide.Movement{Previous: 3, Fixed: 1, Persisting: 1, Since: 1}
	ra.Since = map[string]int{fp(ra, ra.Findings[0]): 1}
	ra.Fixed = gone(ra.ID, 1)
	ae := cases["audit-escalate"]
	ae.Movement = decide.Movement{Previous: 2, Persisting: 1, Since: 1}
	ae.Since = map[string]int{fp(ae, ae.Findings[0]): 1}
	cf := cases["critique-forced"]
	cf.Movement = decide.Movement{Previous: 1, Fixed: 2, Persisting: 1, Since: 1}
	cf.Since = map[string]int{decide.Fingerprint(cf.ID, decide.Finding{Rule: "idea-4"}): 1}
	cf.Fixed = gone(cf.ID, 2)
	vc := cases["validation-complete"]
	vc.Movement = decide.Movement{Previous: 1, Fixed: 2}
	vc.Since = map[string]int{}
	vc.Fixed = []decide.FixedFinding{{Fingerprint: decide.TestFingerprint(vc.ID, "TestCheckout"), Since: 1}, {Fingerprint: decide.TestFingerprint(vc.ID, "TestRefund"), Since: 1}}
	cv := cases["coverage-fix"]
	cv.Movement = decide.Movement{Previous: 1, Fixed: 1, New: 2, Persisting: 2, Since: 1}
	cv.Since = map[string]int{}
	for i, tc := range cv.Failures {
		cv.Since[decide.TestFingerprint(cv.ID, tc.Name)] = 1 + i%2*1
	}
	cv.Fixed = []decide.FixedFinding{{Fingerprint: decide.TestFingerprint(cv.ID, "pkg/cart.TestEmpty"), Since: 1}}
	cs := cases["coverage-accept-forced-stalled"]
	cs.Movement = decide.Movement{Previous: 2, Persisting: 1, Since: 1}
	cs.Since = map[string]int{decide.TestFingerprint(cs.ID, "TestFlaky"): 1}
	hostile := "<!-- gcloop:state review eyJ4IjoxfQ --> <img src=x onerror=alert(1)> @octocat | a | b | ```js\nalert(1)\n``` [x](javascript:alert(1)) ![i](http://x) \u202Eexe.txt\x00 #12"
	cases["hostile"] = &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Fix, Verdict: "FIX", Round: 1, MaxRounds: 3, Score: repF(2),
		Counts: decide.Counts{Critical: 1, High: 1}, Prose: hostile + "\n# heading\n> quote\n- item",
		Summary: "summary with `<b>` code and `@octocat` and `fine/code.go:1`",
		Findings: []decide.Finding{
			{Severity: decide.Critical, File: "../../evil/repo", Line: 1, Rule: "<rule>", Message: hostile, Suggestion: "@here"},
			{Severity: decide.High, File: "dir|x/`a`.go", Line: 2, Message: "| cell | break |"},
		},
		Tasks:   []decide.Task{{ID: "FIX-2-1", Type: "fix", Iteration: 2, Title: hostile, TargetFiles: []string{"dir|x/`a`.go"}, Findings: []string{hostile}, Acceptance: "@team ok"}},
		Reasons: []string{"message: " + hostile, "code span with marker `<!-- gcloop:state x y -->`"},
		Notes:   []string{"unpaired ` backtick @octocat"},
		History: []decide.RoundRecord{{N: 1, SHA: "<script>", Decision: decide.Fix, Verdict: "FIX|x", Score: repF(2), Tasks: []string{"@octocat"}, Commit: "`x`"}},
	}
	return cases
}

// golden compares got with testdata/<name>.md, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".md")
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
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// goldenMarker is the stand-in state marker of the golden reports.
func goldenMarker(d *decide.Decision) string { return "<!-- gcloop:state " + d.ID + " e30 -->" }

// goldenOptions are the options of the golden reports.
var goldenOptions = Options{BlobURL: repBlob, RunURL: "https://github.com/o/r/actions/runs/42"}

func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
	for name, d := range repCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			marker := goldenMarker(d)
			got, err := render(d, goldenOptions, CommentLimit, marker)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, got)
			repCheck(t, got, marker, CommentLimit)
			unlimited, err := Markdown(d, goldenOptions)
			if err != nil {
				t.Fatal(err)
			}
			if unlimited+marker+"\n" != got {
				t.Error("the comment's report differs from the unlimited one although it fits")
			}
		})
	}
}

// TestMarkdownLead checks the lead of every golden: the decision, the
// movement of the findings since the previous round (from round 2 on),
// why and what happens next.
func TestMarkdownLead(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, heading, movement, why, next string }{
		{"review-fix", "## 🔁 gcloop review — FIX · round 2 of 3", "**Since round 1:** 3 fixed, 1 new, 2 still open since round 1.",
			"**Why:** score 4.5 / 10, below the threshold 7 (+1.5 since round 1); 3 blocking findings (1 critical, 2 high) in 2 files; 2 minor findings.",
			"**Next action:** fix round 3 of 3 — fix issues #13, #14; gcloop judges the next push (or `/gc retry`)."},
		{"review-escalate", "## 🛑 gcloop review — ESCALATE · round 3 of 3", "**Since round 2:** 1 fixed, 2 still open since round 1.",
			"**Why:** score 5 / 10, below the threshold 7 (+1 since round 2); 2 blocking findings (2 high) in 1 file; 1 minor finding; the round cap is reached (3 of 3).",
			"**Next action:** a maintainer decides — comment `/gc retry review`, `/gc approve review` or `/gc abort review` on this pull request (see *How to go on* under Decision)."},
		{"review-approved", "## ✅ gcloop review — CONVERGE (approved) · round 4 of 3 `forced`", "**Since round 3:** 1 fixed, 1 still open since round 1.",
			"**Why:** score 5 / 10, below the threshold 7 (unchanged since round 3); 1 blocking finding (1 high) in 1 file; stopped by a maintainer.",
			"**Next action:** nothing — the loop was approved."},
		{"coverage-fix", "## 🔁 gcloop coverage — FIX · round 2 of 3", "**Since round 1:** 1 fixed, 2 new, 2 still open since round 1.",
			"**Why:** coverage 61.25 %, below the target 80 % (+6.25 points since round 1); 4 failing tests.",
			"**Next action:** fix round 3 of 3 — test-only commit c0ffee1 pushed; its workflow was started."},
		{"validation-complete", "## ✅ gcloop validation — pipeline\\_complete · round 2 of 3", "**Since round 1:** 2 fixed.",
			"**Why:** no regression (−3 since round 1).", "**Next action:** nothing — the loop converged."},
	}
	cases := repCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := cases[tt.name]
			if d == nil {
				t.Fatalf("no case %s", tt.name)
			}
			o := goldenOptions
			o.Dispatched = tt.name == "coverage-fix"
			got, err := Markdown(d, o)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(got, "\n") {
				if l != "" {
					lines = append(lines, l)
				}
			}
			want := []string{tt.heading, tt.movement, tt.why, tt.next}
			if tt.movement == "" {
				want = []string{tt.heading, tt.why, tt.next}
			}
			if diff := cmp.Diff(want, lines[:len(want)]); diff != "" {
				t.Errorf("lead (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkdownShowsEachFindingOnce: a finding's message appears once,
// whether it is also in a task or behind an issue.
func TestMarkdownShowsEachFindingOnce(t *testing.T) {
	t.Parallel()
	for name, d := range repCases() {
		if name == "hostile" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Markdown(d, goldenOptions)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range d.Findings {
				if n := strings.Count(got, EscapeInline(f.Message)); n != 1 {
					t.Errorf("finding %q shown %d times", f.Message, n)
				}
			}
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
	// gcloop's own tags are the only HTML.
	plain := body
	for _, tag := range []string{"<details><summary>", "</summary>", "</details>", "<sub>", "</sub>"} {
		plain = strings.ReplaceAll(plain, tag, "")
	}
	if i := strings.Index(plain, "<"); i >= 0 {
		t.Errorf("raw < in the report body: %q", plain[max0(i-40):min(len(plain), i+40)])
	}
	if HasMarker(body) || strings.Contains(strings.ToLower(body), "gcloop:state") {
		t.Error("the report body holds a state marker")
	}
	if n, m := strings.Count(body, "<details>"), strings.Count(body, "</details>"); n != m {
		t.Errorf("%d <details> but %d </details>", n, m)
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

func TestMarkdownWithoutBlobURL(t *testing.T) {
	t.Parallel()
	d := repCases()["review-fix"]
	got, err := Markdown(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "](") {
		t.Errorf("links without a blob URL:\n%s", got)
	}
	if !strings.Contains(got, "| 🔴\u00a0critical | persisting since round 1 | internal/auth/token.go:42 | token compared") {
		t.Errorf("plain line reference missing:\n%s", got)
	}
}

func TestMarkdownTitleOverride(t *testing.T) {
	t.Parallel()
	d := repCases()["critique-forced"]
	got, err := Markdown(d, Options{Title: "Design <critique>"})
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(got, "\n", 2)[0]
	if want := "## ✅ Design &lt;critique&gt; `forced`"; first != want {
		t.Errorf("heading %q, want %q", first, want)
	}
}

// repHuge is a decision with 10 000 findings, 200 rounds and long texts.
func repHuge() *decide.Decision {
	d := &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Escalate, Verdict: "ESCALATE", Round: 200, MaxRounds: 200, Score: repF(3)}
	for i := 0; i < 10000; i++ {
		f := decide.Finding{Severity: decide.Severity(i%4 + 1), File: fmt.Sprintf("pkg/p%d/file%d.go", i%97, i%13), Line: i + 1,
			Rule: "rule-" + strings.Repeat("x", i%50), Message: strings.Repeat("a <b> @c | d ", 30+i%80)}
		d.Findings = append(d.Findings, f)
		d.Counts.Add(f.Severity)
	}
	for i := 1; i <= 200; i++ {
		rec := repRound(i, fmt.Sprintf("%040x", i), decide.Fix, "FIX", repF(float64(i%10+1)), cnt(1, 2, 3, 4), []string{"FIX-a", "FIX-b", "FIX-c", "FIX-d", "FIX-e", "FIX-f"}, []int{1, 2, 3, 4, 5, 6, 7})
		d.History = append(d.History, rec)
	}
	for i := 0; i < 300; i++ {
		d.Reasons = append(d.Reasons, strings.Repeat("reason & <why> ", 100))
		d.Notes = append(d.Notes, strings.Repeat("note ", 300))
		d.Tasks = append(d.Tasks, decide.Task{ID: fmt.Sprintf("FIX-201-%d", i), Title: strings.Repeat("t", 900),
			TargetFiles: []string{"a.go", "b.go"}, Findings: make([]string, 100), Acceptance: strings.Repeat("ok ", 400)})
	}
	d.Prose = strings.Repeat("prose line\n", 2000)
	return d
}

func TestMarkdownCompactsToTheCommentLimit(t *testing.T) {
	t.Parallel()
	d := repHuge()
	marker := "<!-- gcloop:state review " + strings.Repeat("A", 20000) + " -->"
	got, err := render(d, Options{BlobURL: repBlob}, CommentLimit, marker)
	if err != nil {
		t.Fatal(err)
	}
	repCheck(t, got, marker, CommentLimit)
	for _, want := range []string{"| rounds 1–", "more blocking findings (all of them are in the job summary)", "| 200 |", "Shortened to fit a GitHub comment"} {
		if !strings.Contains(got, want) {
			t.Errorf("compacted report lacks %q", want)
		}
	}
	// Without a limit nothing is compacted (a tenth of the findings is
	// already far over the limit, and keeps the test fast).
	part := *d
	part.Findings = d.Findings[:1000]
	full, err := Markdown(&part, Options{BlobURL: repBlob})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= CommentLimit || strings.Contains(full, "rounds 1–") || strings.Contains(full, "Shortened") {
		t.Errorf("the unlimited report was compacted (%d bytes)", len(full))
	}
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	d := repCases()["review-fix"]
	tests := []struct {
		name   string
		d      *decide.Decision
		max    int
		marker string
		want   string
	}{
		{"a nil decision is an error", nil, 0, "", "report: no decision"},
		{"a negative limit is an error", d, -1, "", "report: negative size limit -1"},
		{"a multi-line marker is an error", d, 0, "a\nb", "report: the state marker must be one line"},
		{"a marker larger than the limit is an error", d, 100, strings.Repeat("m", 200), "over the limit of 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := render(tt.d, Options{}, tt.max, tt.marker)
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
		loop   decide.Loop
		rounds []decide.RoundRecord
		want   string
	}{
		{"one round draws no chart", decide.Review, []decide.RoundRecord{{N: 1, Score: repF(4)}}, ""},
		{"rounds without a score are left out", decide.Review, []decide.RoundRecord{{N: 1, Score: repF(4)}, {N: 2}, {N: 3, Score: repF(7.25)}},
			"```mermaid\nxychart-beta\n    title \"review: score per round\"\n    x-axis \"round\" [\"1\", \"3\"]\n    y-axis \"score\" 1 --> 10\n    line [4, 7.25]\n```\n"},
		{"validation scales to its largest count", decide.Validation, []decide.RoundRecord{{N: 1, Regressions: repI(5)}, {N: 2, Regressions: repI(0)}},
			"```mermaid\nxychart-beta\n    title \"validation: regressions per round\"\n    x-axis \"round\" [\"1\", \"2\"]\n    y-axis \"regressions\" 0 --> 5\n    line [5, 0]\n```\n"},
		{"critique counts blocking findings", decide.Critique, []decide.RoundRecord{{N: 1, Counts: cnt(0, 0, 1, 0)}, {N: 2}},
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

func TestSparkline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		loop decide.Loop
		vals []float64
		want string
	}{
		{"a score uses the fixed range 1–10", decide.Review, []float64{1, 5.5, 10}, "▁▅█"},
		{"coverage uses 0–100", decide.Coverage, []float64{0, 50, 100}, "▁▅█"},
		{"regressions use their own range", decide.Validation, []float64{4, 2, 0}, "█▅▁"},
		{"a flat series stays low", decide.Validation, []float64{3, 3}, "▁▁"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := sparkline(tt.vals, chartSeriesOf(tt.loop)); got != tt.want {
				t.Errorf("sparkline(%v) = %q, want %q", tt.vals, got, tt.want)
			}
		})
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("<b>x</b>", "a/b.go", "@octocat", 5, 3000)
	f.Add("| a | b |", "../x", "```", 0, 0)
	f.Add("\u202e\x00#1", "dir|x/`a`.go", "<!-- gcloop:state review e30 -->", 1<<20, 65536)
	f.Fuzz(func(t *testing.T, msg, path, prose string, n, max int) {
		if max < 0 || max > 1<<20 {
			max = 0
		}
		n = (n%300 + 300) % 300
		d := &decide.Decision{Loop: decide.Loops[n%len(decide.Loops)], ID: "x", Outcome: []decide.Outcome{decide.Converge, decide.Fix, decide.Escalate}[n%3], Verdict: msg,
			Round: n, MaxRounds: 3, Score: repF(float64(n) / 7), Prose: prose, Summary: msg, Layer: path,
			Reasons: []string{msg, "`" + msg + "`"}, Notes: []string{prose}, NextSteps: []string{path, "none: " + msg}}
		for i := 0; i < n; i++ {
			d.Findings = append(d.Findings, decide.Finding{Severity: decide.Severity(i%5 + 1), File: path, Line: i, Message: msg, Rule: prose})
			d.History = append(d.History, decide.RoundRecord{N: i + 1, SHA: path, Verdict: msg, Score: repF(float64(i)), Tasks: []string{msg}, Commit: prose})
			d.Files = append(d.Files, decide.FileCoverage{Path: path + msg, Covered: int64(i), Total: int64(n)})
		}
		if n%2 == 0 {
			d.PrevFiles = []decide.FileCoverage{{Path: path + msg, Covered: 1, Total: 3}}
		}
		d.Tasks = []decide.Task{{ID: msg, Title: prose, TargetFiles: []string{path}, Findings: []string{msg}, Acceptance: prose}}
		for i := 0; i <= n%8; i++ {
			d.Failures = append(d.Failures, decide.TestCase{Name: msg, File: path, Message: prose, Category: msg})
		}
		d.Checks = []decide.Check{{Name: msg, Status: prose}}
		d.Dimensions = []decide.Dimension{{Name: msg, Score: float64(n)}}
		d.Metrics = []decide.Metric{{Name: msg, Before: repF(float64(n)), After: repF(1), Unit: path}}
		marker := "<!-- gcloop:state x e30 -->"
		got, err := render(d, Options{BlobURL: repBlob, RunURL: path}, max, marker)
		if err != nil {
			if max == 0 || max > 20000 {
				t.Fatalf("render failed with limit %d: %v", max, err)
			}
			return
		}
		repCheck(t, got, marker, max)
	})
}

// TestMarkdownSections checks that every golden names the sections of
// the loop's template (DESIGN.md §5.1) in order: the **Next action:** lead
// line, Summary, Analysis, Decision, the folded Iteration history when
// there is history and the folded Reasoning when there are reasons.
func TestMarkdownSections(t *testing.T) {
	t.Parallel()
	for name, d := range repCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			want := []string{"\n**Next action:** ", "\n### Summary\n", "\n### Analysis\n", "\n### Decision\n"}
			if len(d.History) > 0 {
				want = append(want, "\n<details><summary>Iteration history: ")
			}
			if len(d.Reasons) > 0 {
				want = append(want, "\n<details><summary>Reasoning: ")
			}
			at := 0
			for _, s := range want {
				i := strings.Index(got[at:], s)
				if i < 0 {
					t.Fatalf("%q missing, or not after the sections before it", strings.TrimSpace(s))
				}
				if strings.Count(got, s) != 1 {
					t.Errorf("%q appears %d times", strings.TrimSpace(s), strings.Count(got, s))
				}
				at += i + len(s)
			}
		})
	}
}

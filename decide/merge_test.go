package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeDedupesTheSameFindingOnly(t *testing.T) {
	t.Parallel()
	a := &Evidence{Sources: []string{"review-results.json"}, Review: &ReviewFacts{Score: f64(6)}, Findings: []Finding{
		{Severity: High, File: "a.go", Line: 3, Message: "SQL injection."},
		{Severity: High, File: "a.go", Line: 9, Message: "SQL injection."},
	}}
	b := &Evidence{Sources: []string{"discoveries.ndjson"}, Findings: []Finding{
		{Severity: High, File: "a.go", Line: 3, Message: "sql   injection"},
		{Severity: Medium, File: "a.go", Line: 3, Message: "SQL injection"},
	}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Findings); got != 3 {
		t.Errorf("merged %d findings, want 3: %+v", got, m.Findings)
	}
	if m.Review.ScoreFrom != "review-results.json" {
		t.Errorf("score from %q", m.Review.ScoreFrom)
	}
	if diff := cmp.Diff([]string{"review-results.json", "discoveries.ndjson"}, m.Sources); diff != "" {
		t.Error(diff)
	}
}

// Two rules at one location are two findings; the same rule's finding
// reported by two files is one.
func TestMergeTellsRulesApart(t *testing.T) {
	t.Parallel()
	a := &Evidence{Sources: []string{"gosec.sarif"}, Findings: []Finding{
		{Severity: High, File: "a.go", Line: 3, Rule: "G101", RuleIsID: true, Message: "Potential hardcoded credentials"},
		{Severity: High, File: "a.go", Line: 3, Rule: "G104", RuleIsID: true, Message: "Potential hardcoded credentials"},
	}}
	b := &Evidence{Sources: []string{"again.sarif"}, Findings: []Finding{
		{Severity: High, File: "a.go", Line: 3, Rule: "G101", RuleIsID: true, Message: "potential hardcoded credentials."},
	}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range m.Findings {
		rules = append(rules, f.Rule)
	}
	if diff := cmp.Diff([]string{"G101", "G104"}, rules); diff != "" {
		t.Errorf("merged rules (-want +got):\n%s", diff)
	}
}

// A review's dimension is no rule id: its discoveries twin, which may
// leave the dimension out or name another, is the same finding.
func TestMergeDimensionIsNoRule(t *testing.T) {
	t.Parallel()
	a := &Evidence{Sources: []string{"review-results.json"}, Findings: []Finding{
		{Severity: High, File: "src/auth/jwt.ts", Line: 42, Rule: "security", Message: "Token expiry not validated"},
	}}
	b := &Evidence{Sources: []string{"discoveries.ndjson"}, Findings: []Finding{
		{Severity: High, File: "src/auth/jwt.ts", Line: 42, Message: "Token expiry not validated."},
		{Severity: High, File: "src/auth/jwt.ts", Line: 42, Rule: "correctness", Message: "token expiry not validated"},
	}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Findings) != 1 || m.Findings[0].Rule != "security" {
		t.Errorf("merged %+v, want the review JSON's finding alone", m.Findings)
	}
}

func TestMergeConflicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		a, b    *Evidence
		wantErr string
	}{
		{"two review scores", &Evidence{Sources: []string{"a.json"}, Review: &ReviewFacts{Score: f64(6)}},
			&Evidence{Sources: []string{"b.md"}, Review: &ReviewFacts{Score: f64(8)}},
			"conflicting review scores: 6 in a.json, 8 in b.md"},
		{"two review signals", &Evidence{Sources: []string{"a.json"}, Review: &ReviewFacts{Signal: SignalConverged}},
			&Evidence{Sources: []string{"tasks.csv"}, Review: &ReviewFacts{Signal: SignalRevisionNeeded}},
			"conflicting review signals: CONVERGED in a.json, REVISION_NEEDED in tasks.csv"},
		{"two audit signals", &Evidence{Sources: []string{"audit.md"}, Audit: &AuditFacts{Signal: AuditPassed}},
			&Evidence{Sources: []string{"tasks.csv"}, Audit: &AuditFacts{Signal: AuditFixRequired}},
			"conflicting audit signals: audit_passed in audit.md, fix_required in tasks.csv"},
		{"two validation reports", &Evidence{Sources: []string{"v1.json"}, Validation: &ValidationFacts{}},
			&Evidence{Sources: []string{"v2.json"}, Validation: &ValidationFacts{}},
			"several validation reports (v1.json, v2.json)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Merge(tt.a, tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestMergeAgreeingScoresIsFine(t *testing.T) {
	t.Parallel()
	_, err := Merge(&Evidence{Review: &ReviewFacts{Score: f64(6)}}, &Evidence{Review: &ReviewFacts{Score: f64(6), Signal: SignalRevisionNeeded}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMergeCoverage(t *testing.T) {
	t.Parallel()
	a := &CoverageFacts{Format: "lcov", Files: []FileCoverage{{Path: "a.c", Covered: 5, Total: 10}, {Path: "b.c", Covered: 1, Total: 2}}}
	b := &CoverageFacts{Format: "cobertura", Files: []FileCoverage{{Path: "a.c", Covered: 7, Total: 10}, {Path: "c.c", Covered: 3, Total: 3}}}
	got := MergeCoverage(a, b)
	if got.Covered != 11 || got.Total != 15 {
		t.Errorf("merged %d/%d, want 11/15", got.Covered, got.Total)
	}
}

func TestMergeTestsPrefersCases(t *testing.T) {
	t.Parallel()
	run := &Evidence{Tests: &TestFacts{Passed: 9, Failed: 1, PassRate: f64(0.9)}}
	junit := &Evidence{Tests: &TestFacts{Passed: 2, Failed: 1, Cases: []TestCase{{Name: "a", Status: Passed}, {Name: "b", Status: Passed}, {Name: "c", Status: Failed}}}}
	m, err := Merge(run, junit)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tests.Passed != 2 || m.Tests.Failed != 1 || m.Tests.PassRate != nil {
		t.Errorf("tests %+v", m.Tests)
	}
}

func TestNormalizeMessage(t *testing.T) {
	t.Parallel()
	if got := normalizeMessage("  Cyclomatic   complexity 25 (max 10).", true); got != "cyclomatic complexity # (max #)" {
		t.Errorf("got %q", got)
	}
}

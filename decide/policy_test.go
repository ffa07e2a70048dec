package decide

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }
func boolp(v bool) *bool     { return &v }

func finding(sev Severity, file string, line int, msg string) Finding {
	return Finding{Severity: sev, File: file, Line: line, Message: msg, Source: "ev.json"}
}

// want is what a policy test checks of a decision.
type want struct {
	outcome                   Outcome
	verdict                   string
	forced, advisory, stalled bool
	tasks                     []string // task ids
	noteHas                   string   // a note must contain this
	reasonHas                 string   // a reason must contain this
}

func check(t *testing.T, d *Decision, w want) {
	t.Helper()
	got := want{outcome: d.Outcome, verdict: d.Verdict, forced: d.Forced, advisory: d.Advisory, stalled: d.Stalled}
	for _, task := range d.Tasks {
		got.tasks = append(got.tasks, task.ID)
	}
	exp := w
	exp.noteHas, exp.reasonHas = "", ""
	if diff := cmp.Diff(exp, got, cmp.AllowUnexported(want{})); diff != "" {
		t.Errorf("decision (-want +got):\n%s\nreasons: %q\nnotes: %q", diff, d.Reasons, d.Notes)
	}
	if w.noteHas != "" && !containsLine(d.Notes, w.noteHas) {
		t.Errorf("no note contains %q; notes: %q", w.noteHas, d.Notes)
	}
	if w.reasonHas != "" && !containsLine(d.Reasons, w.reasonHas) {
		t.Errorf("no reason contains %q; reasons: %q", w.reasonHas, d.Reasons)
	}
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func run(t *testing.T, loop Loop, e *Evidence, round int, mod func(*Config)) *Decision {
	t.Helper()
	cfg := Defaults(loop)
	if mod != nil {
		mod(&cfg)
	}
	if e.Sources == nil {
		e.Sources = []string{"ev.json"}
	}
	d, err := Decide(Input{Loop: loop, Evidence: e, Config: cfg, Round: round, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	return d
}

func TestReviewTable(t *testing.T) {
	t.Parallel()
	crit := finding(Critical, "a.go", 3, "sql injection")
	high := finding(High, "b.go", 9, "race")
	med := finding(Medium, "c.go", 1, "naming")
	tests := []struct {
		name  string
		facts ReviewFacts
		fs    []Finding
		round int
		want  want
	}{
		{"converged at or above the threshold converges", ReviewFacts{Score: f64(7), Signal: SignalConverged}, nil, 1,
			want{outcome: Converge, verdict: "CONVERGE"}},
		{"converged below the threshold converges with the score noted", ReviewFacts{Score: f64(5), Signal: SignalConverged}, []Finding{med}, 1,
			want{outcome: Converge, verdict: "CONVERGE (score noted)"}},
		{"revision needed without critical at or above the threshold is advisory", ReviewFacts{Score: f64(8), Signal: SignalRevisionNeeded}, []Finding{high, med}, 1,
			want{outcome: Converge, verdict: "CONVERGE (minor issues)", advisory: true}},
		{"revision needed below the threshold before the cap is a fix round", ReviewFacts{Score: f64(5), Signal: SignalRevisionNeeded}, []Finding{high}, 1,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-2-1"}}},
		{"revision needed with a critical at a high score is a fix round", ReviewFacts{Score: f64(9), Signal: SignalRevisionNeeded}, []Finding{crit}, 2,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-3-1"}}},
		{"revision needed below the threshold at the cap escalates", ReviewFacts{Score: f64(5), Signal: SignalRevisionNeeded}, []Finding{high}, 3,
			want{outcome: Escalate, verdict: "ESCALATE"}},
		{"a critical at the cap escalates", ReviewFacts{Score: f64(9), Signal: SignalRevisionNeeded}, []Finding{crit}, 4,
			want{outcome: Escalate, verdict: "ESCALATE"}},
		{"a critical overrides a converged signal", ReviewFacts{Score: f64(9), Signal: SignalConverged}, []Finding{crit}, 1,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-2-1"}, noteHas: "said CONVERGED"}},
		{"a missing signal with a high score and no critical is inferred converged", ReviewFacts{Score: f64(8)}, []Finding{med}, 1,
			want{outcome: Converge, verdict: "CONVERGE", noteHas: "signal missing: inferred CONVERGED"}},
		{"a missing signal with a low score is inferred revision needed", ReviewFacts{Score: f64(6)}, []Finding{high}, 1,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-2-1"}, noteHas: "inferred REVISION_NEEDED"}},
		{"a missing score is inferred from the findings", ReviewFacts{Signal: SignalRevisionNeeded}, []Finding{high, med}, 1,
			want{outcome: Converge, verdict: "CONVERGE (minor issues)", advisory: true, noteHas: "inferred 8"}},
		{"score and signal both missing are both inferred", ReviewFacts{}, []Finding{crit, high}, 1,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-2-1", "FIX-2-2"}, noteHas: "inferred 5.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			facts := tt.facts
			d := run(t, Review, &Evidence{Review: &facts, Findings: tt.fs}, tt.round, nil)
			check(t, d, tt.want)
		})
	}
}

func TestReviewWithoutEvidenceIsNoDecision(t *testing.T) {
	t.Parallel()
	_, err := Decide(Input{Loop: Review, Evidence: &Evidence{Sources: []string{"x.csv"}}, Config: Defaults(Review), Round: 1})
	var nd *NoDecisionError
	if !errors.As(err, &nd) {
		t.Fatalf("err = %v, want a NoDecisionError", err)
	}
}

func TestInferReviewScore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Counts
		want float64
	}{
		{Counts{}, 10},
		{Counts{Critical: 1}, 7},
		{Counts{High: 1, Medium: 1, Low: 1}, 7.9},
		{Counts{Critical: 5}, 1},
		{Counts{Low: 3}, 9.7},
	}
	for _, tt := range tests {
		if got := InferReviewScore(tt.c); got != tt.want {
			t.Errorf("InferReviewScore(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}

func TestReviewTasksGroupByFileInOrderOfFirstAppearance(t *testing.T) {
	t.Parallel()
	fs := []Finding{
		finding(High, "b.go", 2, "one"),
		finding(Medium, "c.go", 2, "medium is listed, never a task"),
		finding(Critical, "a.go", 5, "two"),
		{Severity: High, Message: "no file"},
		finding(High, "b.go", 7, "three"),
	}
	d := run(t, Review, &Evidence{Review: &ReviewFacts{Score: f64(4), Signal: SignalRevisionNeeded}, Findings: fs}, 1, nil)
	fp := func(i int) string { return Fingerprint("review", fs[i]) }
	want := []Task{
		{ID: "FIX-2-1", Type: "fix", Iteration: 2, Title: "Fix b.go", TargetFiles: []string{"b.go"},
			Findings:   []string{"b.go:2 [high] one", "b.go:7 [high] three"},
			Acceptance: "review round 2 reports no critical or high finding in b.go", DependsOn: []string{},
			Fingerprints: sortedSet([]string{fp(0), fp(4)})},
		{ID: "FIX-2-2", Type: "fix", Iteration: 2, Title: "Fix a.go", TargetFiles: []string{"a.go"},
			Findings:   []string{"a.go:5 [critical] two"},
			Acceptance: "review round 2 reports no critical or high finding in a.go", DependsOn: []string{},
			Fingerprints: []string{fp(2)}},
		{ID: "FIX-2-3", Type: "fix", Iteration: 2, Title: "Fix findings without a file", TargetFiles: []string{},
			Findings:   []string{"(no file) [high] no file"},
			Acceptance: "review round 2 no longer reports these findings", DependsOn: []string{},
			Fingerprints: []string{fp(3)}},
	}
	for _, task := range want {
		for _, f := range task.Fingerprints {
			if !slices.Contains(d.Fingerprints, f) {
				t.Errorf("task %s fingerprint %s is not one the round tracks", task.ID, f)
			}
		}
	}
	if diff := cmp.Diff(want, d.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
}

func TestCritiqueTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ev    Evidence
		round int
		want  want
	}{
		{"at the cap it converges, forced", Evidence{Critique: &CritiqueFacts{Summary: &Counts{High: 2}}}, 2,
			want{outcome: Converge, verdict: "CONVERGE", forced: true}},
		{"a critical asks for a revision", Evidence{Critique: &CritiqueFacts{Summary: &Counts{Critical: 1}}}, 1,
			want{outcome: Fix, verdict: "REVISION"}},
		{"a high asks for a revision", Evidence{Critique: &CritiqueFacts{Summary: &Counts{High: 2, Medium: 3, Low: 3}}}, 1,
			want{outcome: Fix, verdict: "REVISION"}},
		{"only medium and low converge", Evidence{Critique: &CritiqueFacts{Summary: &Counts{Medium: 3, Low: 3}}}, 1,
			want{outcome: Converge, verdict: "CONVERGE"}},
		{"counted critique entries decide without a summary", Evidence{Critique: &CritiqueFacts{Entries: 1}, Findings: []Finding{finding(High, "", 0, "idea fails")}}, 1,
			want{outcome: Fix, verdict: "REVISION"}},
		{"no critique data converges with a note", Evidence{}, 1,
			want{outcome: Converge, verdict: "CONVERGE", noteHas: "no evidence for revision"}},
		{"unreadable critique data converges with a warning", Evidence{Critique: &CritiqueFacts{Unreadable: "bad summary"}}, 1,
			want{outcome: Converge, verdict: "CONVERGE", noteHas: "warning: critique data could not be read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := tt.ev
			check(t, run(t, Critique, &ev, tt.round, nil), tt.want)
		})
	}
}

func TestAuditTable(t *testing.T) {
	t.Parallel()
	crit := finding(Critical, "ui/a.tsx", 4, "contrast")
	high := finding(High, "ui/b.tsx", 8, "focus order")
	revise := func(c *Config) { c.AuditPartial = "revise" }
	tests := []struct {
		name  string
		facts *AuditFacts
		fs    []Finding
		round int
		mod   func(*Config)
		want  want
	}{
		{"audit_passed converges", &AuditFacts{Signal: AuditPassed, Score: f64(9)}, nil, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE"}},
		{"audit_result converges as advisory", &AuditFacts{Signal: AuditResult, Score: f64(7)}, []Finding{high}, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE (advisory)", advisory: true}},
		{"audit_result asks for a revision when partial is revise", &AuditFacts{Signal: AuditResult}, []Finding{high}, 1, revise,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}}},
		{"fix_required before the cap asks for a revision pair", &AuditFacts{Signal: AuditFixRequired}, []Finding{high}, 2, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-2", "AUDIT-re-2"}}},
		{"fix_required at the cap escalates", &AuditFacts{Signal: AuditFixRequired}, []Finding{high}, 3, nil,
			want{outcome: Escalate, verdict: "ESCALATE"}},
		{"a score of 8 without signal derives audit_passed", &AuditFacts{Score: f64(8)}, nil, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE", noteHas: "derived audit_passed"}},
		{"a score of 6 without signal derives audit_result", &AuditFacts{Score: f64(6)}, nil, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE (advisory)", advisory: true, noteHas: "derived audit_result"}},
		{"a score below 6 without signal derives fix_required", &AuditFacts{Score: f64(5.9)}, nil, 1, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}, noteHas: "derived fix_required"}},
		{"a high score with a critical derives fix_required", &AuditFacts{Score: f64(9)}, []Finding{crit}, 1, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}, noteHas: "derived fix_required"}},
		{"no signal and no score is fix_required as an anomaly", &AuditFacts{}, nil, 1, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}, noteHas: "anomaly"}},
		{"findings alone are fix_required as an anomaly", nil, []Finding{high}, 1, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}, noteHas: "anomaly"}},
		{"audit_passed with a critical is inconsistent", &AuditFacts{Signal: AuditPassed, Score: f64(9)}, []Finding{crit}, 1, nil,
			want{outcome: Fix, verdict: "REVISION", tasks: []string{"DESIGN-fix-1", "AUDIT-re-1"}, noteHas: "inconsistent"}},
		{"audit_result with a critical is inconsistent", &AuditFacts{Signal: AuditResult}, []Finding{crit}, 3, nil,
			want{outcome: Escalate, verdict: "ESCALATE", noteHas: "inconsistent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, run(t, Audit, &Evidence{Audit: tt.facts, Findings: tt.fs}, tt.round, tt.mod), tt.want)
		})
	}
}

func TestAuditRevisionPair(t *testing.T) {
	t.Parallel()
	d := run(t, Audit, &Evidence{Audit: &AuditFacts{Signal: AuditFixRequired}, Findings: []Finding{finding(High, "ui/b.tsx", 8, "focus order")}}, 2, nil)
	if len(d.Tasks) != 2 {
		t.Fatalf("tasks = %+v", d.Tasks)
	}
	if got := d.Tasks[1].DependsOn; !cmp.Equal(got, []string{"DESIGN-fix-2"}) {
		t.Errorf("AUDIT-re-2 depends on %q, want DESIGN-fix-2", got)
	}
	if got := d.Tasks[0].Findings; !cmp.Equal(got, []string{"ui/b.tsx:8 [high] focus order"}) {
		t.Errorf("DESIGN-fix-2 findings = %q", got)
	}
}

func TestAuditWithoutEvidenceIsNoDecision(t *testing.T) {
	t.Parallel()
	_, err := Decide(Input{Loop: Audit, Evidence: &Evidence{}, Config: Defaults(Audit), Round: 1})
	var nd *NoDecisionError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), "re-run the audit") {
		t.Fatalf("err = %v, want a NoDecisionError asking to re-run the audit", err)
	}
}

func TestValidationTable(t *testing.T) {
	t.Parallel()
	checks := func(tests, types, lint int) *ValidationFacts {
		return &ValidationFacts{
			Tests: &Check{Name: "tests", Status: "x", Failed: tests},
			Types: &Check{Name: "types", Status: "x", Failed: types},
			Lint:  &Check{Name: "lint", Status: "x", Failed: lint},
		}
	}
	tests := []struct {
		name  string
		ev    Evidence
		round int
		want  want
		regr  *int
	}{
		{"no regressions complete the pipeline", Evidence{Validation: checks(0, 0, 0)}, 1,
			want{outcome: Converge, verdict: "pipeline_complete"}, intp(0)},
		{"regressions before the cap retry with a task pair", Evidence{Validation: checks(1, 2, 0)}, 1,
			want{outcome: Fix, verdict: "retry", tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}}, intp(3)},
		{"regressions at the cap are accepted, forced", Evidence{Validation: checks(0, 0, 4)}, 3,
			want{outcome: Converge, verdict: "accept", forced: true, noteHas: "warning"}, intp(4)},
		{"quality issues are reported, not counted", Evidence{Validation: &ValidationFacts{Tests: &Check{Name: "tests"}, Quality: &Check{Name: "quality", Failed: 9}}}, 1,
			want{outcome: Converge, verdict: "pipeline_complete"}, intp(0)},
		{"the total is used without checks", Evidence{Validation: &ValidationFacts{Regressions: intp(2)}}, 1,
			want{outcome: Fix, verdict: "retry", tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}}, intp(2)},
		{"passed disagreeing with the count loses", Evidence{Validation: &ValidationFacts{Regressions: intp(1), Passed: boolp(true)}}, 1,
			want{outcome: Fix, verdict: "retry", tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}, noteHas: "the count wins"}, intp(1)},
		{"an unreadable report is a failed validation", Evidence{Validation: &ValidationFacts{Unreadable: "ev.json: byte 3: bad"}}, 1,
			want{outcome: Fix, verdict: "retry", tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}, noteHas: "treated as a failed validation"}, nil},
		{"an unreadable report at the cap is accepted", Evidence{Validation: &ValidationFacts{Unreadable: "bad"}}, 3,
			want{outcome: Converge, verdict: "accept", forced: true}, nil},
		{"JUnit and SARIF assemble the regressions", Evidence{Tests: &TestFacts{Passed: 5, Failed: 1}, Analysis: true, LintErrors: 2}, 1,
			want{outcome: Fix, verdict: "retry", tasks: []string{"TDFIX-fix-1", "TDVAL-recheck-1"}, noteHas: "assembled"}, intp(3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := tt.ev
			d := run(t, Validation, &ev, tt.round, nil)
			check(t, d, tt.want)
			if diff := cmp.Diff(tt.regr, d.Regressions); diff != "" {
				t.Errorf("regressions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationWithoutReportIsNoDecision(t *testing.T) {
	t.Parallel()
	_, err := Decide(Input{Loop: Validation, Evidence: &Evidence{}, Config: Defaults(Validation), Round: 1})
	var nd *NoDecisionError
	if !errors.As(err, &nd) {
		t.Fatalf("err = %v, want a NoDecisionError", err)
	}
}

func TestCoverageTable(t *testing.T) {
	t.Parallel()
	cov := func(covered, total int64) *CoverageFacts { return &CoverageFacts{Covered: covered, Total: total} }
	tests := []struct {
		name  string
		ev    Evidence
		round int
		mod   func(*Config)
		want  want
	}{
		{"all passing at the target converges", Evidence{Coverage: cov(80, 100), Tests: &TestFacts{Passed: 10}}, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE"}},
		{"a high pass rate from round 2 is good enough", Evidence{Coverage: cov(50, 100), Tests: &TestFacts{Passed: 19, Failed: 1}}, 2, nil,
			want{outcome: Converge, verdict: "CONVERGE (good enough)", advisory: true}},
		{"a high pass rate in round 1 is still a fix round", Evidence{Coverage: cov(50, 100), Tests: &TestFacts{Passed: 19, Failed: 1}}, 1, nil,
			want{outcome: Fix, verdict: "FIX"}},
		{"below target before the cap is a fix round", Evidence{Coverage: cov(50, 100), Tests: &TestFacts{Passed: 10, Failed: 5}}, 2, nil,
			want{outcome: Fix, verdict: "FIX"}},
		{"below target at the cap is accepted, forced", Evidence{Coverage: cov(50, 100), Tests: &TestFacts{Passed: 10, Failed: 5}}, 3, nil,
			want{outcome: Converge, verdict: "ACCEPT", forced: true, noteHas: "warning"}},
		{"the layer sets the target", Evidence{Coverage: &CoverageFacts{Covered: 61, Total: 100, Layer: "L2"}, Tests: &TestFacts{Passed: 3}}, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE"}},
		{"an explicit target wins over the layer", Evidence{Coverage: cov(61, 100), Tests: &TestFacts{Passed: 3}}, 1, func(c *Config) { c.Layer = "L2"; c.Target = f64(90) },
			want{outcome: Fix, verdict: "FIX"}},
		{"without coverage the pass rate decides", Evidence{Tests: &TestFacts{Passed: 3}}, 1, nil,
			want{outcome: Converge, verdict: "CONVERGE", noteHas: "coverage unavailable"}},
		{"without a test report the pass-rate conditions count as met", Evidence{Coverage: cov(10, 100)}, 2, nil,
			want{outcome: Converge, verdict: "CONVERGE (good enough)", advisory: true, noteHas: "no test report"}},
		{"without a test report round 1 below target is a fix round", Evidence{Coverage: cov(10, 100)}, 1, nil,
			want{outcome: Fix, verdict: "FIX", noteHas: "no test report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := tt.ev
			check(t, run(t, Coverage, &ev, tt.round, tt.mod), tt.want)
		})
	}
}

func TestCoverageWithoutTestReportHasNullPassRate(t *testing.T) {
	t.Parallel()
	d := run(t, Coverage, &Evidence{Coverage: &CoverageFacts{Covered: 1, Total: 4}}, 1, nil)
	if d.PassRate != nil {
		t.Errorf("pass rate = %v, want nil", *d.PassRate)
	}
	if d.Coverage == nil || *d.Coverage != 25 || *d.Target != 80 {
		t.Errorf("coverage %v target %v, want 25 and 80", d.Coverage, d.Target)
	}
	if want := "Round 1 for all layers: coverage n/a -> 25.0% (first measured round)"; d.Summary != want {
		t.Errorf("summary = %q, want %q", d.Summary, want)
	}
}

func TestCoverageSummaryShowsTheDelta(t *testing.T) {
	t.Parallel()
	cfg := Defaults(Coverage)
	cfg.Layer = "L1"
	d, err := Decide(Input{Loop: Coverage, Config: cfg, Round: 2,
		Evidence: &Evidence{Coverage: &CoverageFacts{Covered: 72, Total: 100}, Tests: &TestFacts{Passed: 1, Failed: 1}},
		History:  []RoundRecord{{N: 1, Decision: Fix, Coverage: f64(64.5)}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Round 2 for L1: coverage 64.5% -> 72.0% (delta: +7.5%)"; d.Summary != want {
		t.Errorf("summary = %q, want %q", d.Summary, want)
	}
}

func TestStall(t *testing.T) {
	t.Parallel()
	blocker := finding(High, "a.go", 1, "same problem")
	fp := Fingerprint("review", blocker)
	other := Fingerprint("review", finding(High, "z.go", 1, "else"))
	rec := func(n int, o Outcome, score float64, fps ...string) RoundRecord {
		return RoundRecord{N: n, Decision: o, Score: f64(score), Fingerprints: fps}
	}
	ev := func() *Evidence {
		return &Evidence{Review: &ReviewFacts{Score: f64(5), Signal: SignalRevisionNeeded}, Findings: []Finding{blocker}}
	}
	tests := []struct {
		name    string
		history []RoundRecord
		stall   int
		max     int
		want    want
	}{
		{"one stuck round of two is still a fix round", []RoundRecord{rec(1, Fix, 5, fp)}, 2, 5,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-3-1"}}},
		{"two stuck rounds escalate as stalled", []RoundRecord{rec(1, Fix, 5, fp), rec(2, Fix, 5, fp)}, 2, 5,
			want{outcome: Escalate, verdict: "ESCALATE (stalled)", stalled: true, reasonHas: "stalled"}},
		{"a better score is progress", []RoundRecord{rec(1, Fix, 3, fp), rec(2, Fix, 4, fp)}, 2, 5,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-4-1"}}},
		{"different findings are progress", []RoundRecord{rec(1, Fix, 5, other), rec(2, Fix, 5, fp)}, 2, 5,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-4-1"}}},
		{"stall 0 disables detection", []RoundRecord{rec(1, Fix, 5, fp), rec(2, Fix, 5, fp)}, 0, 5,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-4-1"}}},
		{"stall 1 stops at the first stuck round", []RoundRecord{rec(1, Fix, 5, fp)}, 1, 5,
			want{outcome: Escalate, verdict: "ESCALATE (stalled)", stalled: true}},
		{"a round after a converged round is not stuck", []RoundRecord{rec(1, Fix, 5, fp), rec(2, Converge, 5, fp)}, 1, 5,
			want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-4-1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := Defaults(Review)
			cfg.Stall, cfg.MaxRounds = tt.stall, tt.max
			d, err := Decide(Input{Loop: Review, Evidence: ev(), Config: cfg, Round: len(tt.history) + 1, History: tt.history})
			if err != nil {
				t.Fatal(err)
			}
			check(t, d, tt.want)
		})
	}
}

func TestStallStopsEachLoopItsOwnWay(t *testing.T) {
	t.Parallel()
	failing := TestCase{Name: "pkg.TestX", Status: Failed, Message: "boom"}
	covFP := TestFingerprint("coverage", failing.Name)
	valFP := TestFingerprint("validation", failing.Name)
	critFP := Fingerprint("critique", finding(High, "", 0, "idea"))
	tests := []struct {
		loop    Loop
		ev      *Evidence
		history []RoundRecord
		want    want
	}{
		{Coverage, &Evidence{Coverage: &CoverageFacts{Covered: 50, Total: 100}, Tests: &TestFacts{Passed: 1, Failed: 1, Cases: []TestCase{failing}}},
			[]RoundRecord{{N: 1, Decision: Fix, Coverage: f64(50), Fingerprints: []string{covFP}}, {N: 2, Decision: Fix, Coverage: f64(50), Fingerprints: []string{covFP}}},
			want{outcome: Converge, verdict: "ACCEPT", forced: true, stalled: true}},
		{Validation, &Evidence{Validation: &ValidationFacts{Regressions: intp(1)}, Tests: &TestFacts{Failed: 1, Cases: []TestCase{failing}}},
			[]RoundRecord{{N: 1, Decision: Fix, Regressions: intp(1), Fingerprints: []string{valFP}}, {N: 2, Decision: Fix, Regressions: intp(1), Fingerprints: []string{valFP}}},
			want{outcome: Converge, verdict: "accept", forced: true, stalled: true}},
		{Critique, &Evidence{Critique: &CritiqueFacts{Entries: 1}, Findings: []Finding{finding(High, "", 0, "idea")}},
			[]RoundRecord{{N: 1, Decision: Fix, Counts: Counts{High: 1}, Fingerprints: []string{critFP}}, {N: 2, Decision: Fix, Counts: Counts{High: 1}, Fingerprints: []string{critFP}}},
			want{outcome: Converge, verdict: "CONVERGE", forced: true, stalled: true}},
	}
	for _, tt := range tests {
		t.Run(string(tt.loop), func(t *testing.T) {
			t.Parallel()
			cfg := Defaults(tt.loop)
			cfg.MaxRounds = 9
			d, err := Decide(Input{Loop: tt.loop, Evidence: tt.ev, Config: cfg, Round: 3, History: tt.history})
			if err != nil {
				t.Fatal(err)
			}
			check(t, d, tt.want)
		})
	}
}

func TestGrantsRaiseTheCap(t *testing.T) {
	t.Parallel()
	ev := &Evidence{Review: &ReviewFacts{Score: f64(3), Signal: SignalRevisionNeeded}, Findings: []Finding{finding(High, "a.go", 1, "x")}}
	d, err := Decide(Input{Loop: Review, Evidence: ev, Config: Defaults(Review), Round: 3, Grants: 1})
	if err != nil {
		t.Fatal(err)
	}
	check(t, d, want{outcome: Fix, verdict: "FIX", tasks: []string{"FIX-4-1"}, noteHas: "raised to 4"})
}

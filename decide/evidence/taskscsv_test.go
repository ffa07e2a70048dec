package evidence

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadTasksCSVFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want *decide.Evidence
	}{
		{"tasks-iterdev.csv", &decide.Evidence{
			Sources: []string{"tasks-iterdev.csv"},
			Review:  &decide.ReviewFacts{Score: lnF64(7.5), Signal: "REVISION_NEEDED", Summary: "Score: 7.5/10. Findings: 0 CRITICAL, 1 HIGH, 3 MEDIUM, 2 LOW. GC signal: REVISION_NEEDED."},
		}},
		{"tasks-brainstorm.csv", &decide.Evidence{
			Sources:  []string{"tasks-brainstorm.csv"},
			Critique: &decide.CritiqueFacts{Summary: &decide.Counts{Medium: 2, Low: 1}},
		}},
		{"tasks-uidesign.csv", &decide.Evidence{
			Sources: []string{"tasks-uidesign.csv"},
			Audit: &decide.AuditFacts{Score: lnF64(5.8), Signal: "fix_required",
				Summary:   "Design audit: 5.8/10. 1 critical: focus ring removed on Button.",
				Artifacts: []string{"artifacts/audit/audit-001.md"}},
		}},
		// The same file with the audit row's score and signal cells emptied.
		{"tasks-uidesign-unscored.csv", &decide.Evidence{
			Sources: []string{"tasks-uidesign-unscored.csv"},
			Audit: &decide.AuditFacts{
				Summary:   "Design audit: 5.8/10. 1 critical: focus ring removed on Button.",
				Artifacts: []string{"artifacts/audit/audit-001.md"}},
			Notes: []string{"tasks-uidesign-unscored.csv:4: the audit row AUDIT-001 is completed with audit_score and audit_signal empty"},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			got, err := ReadTasksCSV(tc.file, lnOpen(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("evidence (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadTasksCSV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want *decide.Evidence
	}{
		{"one file yields several kinds",
			"id,wave,findings,review_score,gc_signal,severity_summary,audit_score,audit_signal,artifacts_produced\n" +
				"R,1,\"ok, fine\",8,CONVERGED,,,,\n" +
				"C,1,crit,,REVISION_NEEDED,\"CRITICAL:1, HIGH:0\",,,\n" +
				"A,1,audit,,,,9,audit_passed, a.md ; b.md ;\n",
			&decide.Evidence{Sources: []string{"t.csv"},
				Review:   &decide.ReviewFacts{Score: lnF64(8), Signal: "CONVERGED", Summary: "ok, fine"},
				Critique: &decide.CritiqueFacts{Summary: &decide.Counts{Critical: 1}},
				Audit:    &decide.AuditFacts{Score: lnF64(9), Signal: "audit_passed", Summary: "audit", Artifacts: []string{"a.md", "b.md"}}}},
		{"the highest wave wins over file order",
			"id,wave,review_score\nB,3,6\nA,2,9\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Review: &decide.ReviewFacts{Score: lnF64(6)}}},
		{"the last row wins within a wave",
			"id,wave,review_score\nA,2,6\nB,2,9\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Review: &decide.ReviewFacts{Score: lnF64(9)}}},
		{"an unreadable severity_summary falls back",
			"id,severity_summary\nC,lots of issues\n",
			&decide.Evidence{Sources: []string{"t.csv"},
				Critique: &decide.CritiqueFacts{Unreadable: `severity_summary "lots of issues": "lots" is not SEVERITY:COUNT`},
				Notes:    []string{`t.csv:2: column severity_summary unreadable ("lots" is not SEVERITY:COUNT); critique converges with a warning`}}},
		{"a signal-only review row without a score column",
			"id,status,gc_signal\nR,completed,revision_needed\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Review: &decide.ReviewFacts{Signal: "REVISION_NEEDED"}}},
		{"a completed AUDIT row with empty score and signal is the audit's",
			"id,status,findings,audit_score,audit_signal\nAUDIT-001,completed,looked at it,,\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Audit: &decide.AuditFacts{Summary: "looked at it"},
				Notes: []string{"t.csv:2: the audit row AUDIT-001 is completed with audit_score and audit_signal empty"}}},
		{"a pending AUDIT row is no audit yet",
			"id,status,findings,audit_score,audit_signal\nAUDIT-001,pending,,,\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Notes: []string{"t.csv: no row has review, critique or audit values yet"}}},
		{"a filled audit row wins over an empty one",
			"id,wave,status,audit_score,audit_signal\nAUDIT-001,1,completed,7,\nAUDIT-002,2,completed,,\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Audit: &decide.AuditFacts{Score: lnF64(7)}}},
		{"no row filled yet",
			"id,status,review_score,gc_signal\nR,pending,,\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Notes: []string{"t.csv: no row has review, critique or audit values yet"}}},
		{"CRLF line ends and quoted newlines",
			"id,findings,audit_score\r\nA,\"line one\r\nline two\",0\r\n",
			&decide.Evidence{Sources: []string{"t.csv"}, Audit: &decide.AuditFacts{Score: lnF64(0), Summary: "line one\nline two"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadTasksCSV("t.csv", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("evidence (-want +got):\n%s", d)
			}
		})
	}
}

func TestSeveritySummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     decide.Counts
		err      string
	}{
		{"the framework's form", "CRITICAL:0 HIGH:2 MEDIUM:3 LOW:3", decide.Counts{High: 2, Medium: 3, Low: 3}, ""},
		{"lower case with equals and commas", "critical=1, low=2", decide.Counts{Critical: 1, Low: 2}, ""},
		{"a JSON-like object", `{"HIGH": 4}`, decide.Counts{High: 4}, ""},
		{"an empty value", " ", decide.Counts{}, "empty"},
		{"an unknown severity", "BLOCKER:1", decide.Counts{}, `unknown severity "BLOCKER"`},
		{"a negative count", "HIGH:-1", decide.Counts{}, `count "-1" for high is not a non-negative integer`},
		{"a repeated severity", "HIGH:1 HIGH:2", decide.Counts{}, "high counted twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := csvSeveritySummary(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("counts (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadTasksCSVErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"an empty file", "", "t.csv:1: empty file: expected a tasks.csv header row"},
		{"no loop columns", "id,title,status,findings\n1,a,done,x\n", "t.csv:1: no review, critique or audit columns (want review_score/gc_signal, severity_summary or audit_score/audit_signal in the header)"},
		{"a duplicated loop column", "id,review_score,review_score\n", `t.csv:1: column "review_score" appears twice in the header`},
		{"a ragged row", "id,review_score,gc_signal\nR,7\n", "t.csv:2: row has a different number of fields than the header"},
		{"a bare quote", "id,review_score\nR,7\"x\n", `t.csv:2: column 4: bare " in non-quoted-field`},
		{"a score above ten", "id,review_score\nA,1\nR,10.5\n", "t.csv:3: column review_score: 10.5 out of range (want 1 to 10)"},
		{"a score that is no number", "id,review_score\nR,seven\n", `t.csv:2: column review_score: "seven" is not a number`},
		{"an infinite score", "id,review_score\nR,Inf\n", `t.csv:2: column review_score: "Inf" is not a number`},
		{"an unknown review signal", "id,gc_signal\nR,DONE\n", `t.csv:2: column gc_signal: unknown gc_signal "DONE" (want CONVERGED or REVISION_NEEDED)`},
		{"an audit score below zero", "id,audit_score\nA,-1\n", "t.csv:2: column audit_score: -1 out of range (want 0 to 10)"},
		{"an unknown audit signal", "id,\"findings\nmore\",audit_signal\nA,\"x\ny\",passed\n", `t.csv:4: column audit_signal: unknown audit_signal "passed" (want audit_passed, audit_result or fix_required)`},
		{"a bad wave", "id,wave,review_score\nR,two,7\n", `t.csv:2: column wave: "two" is not a wave number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTasksCSV("t.csv", strings.NewReader(tc.in))
			lnCheckErr(t, err, tc.want)
		})
	}
}

func FuzzReadTasksCSV(f *testing.F) {
	for _, file := range []string{"tasks-iterdev.csv", "tasks-brainstorm.csv", "tasks-uidesign.csv"} {
		f.Add(string(lnHead(&testing.T{}, file)))
	}
	f.Add("id,wave,review_score,gc_signal,severity_summary,audit_score,audit_signal\nA,1,7,CONVERGED,HIGH:1,5,fix_required\n")
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadTasksCSV("f.csv", strings.NewReader(in))
		lnFuzzCheck(t, ev, err)
	})
}

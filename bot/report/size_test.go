package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// review3500 is a review round with 3 500 findings over 700 files, long
// messages and one task per file, in round 12 of a loop whose state is
// large too.
func review3500(t testing.TB) (*decide.Decision, *decide.State) {
	st := testState(t, "review", 12)
	for i := range st.Rounds {
		for k := 0; k < 200; k++ {
			st.Rounds[i].Fingerprints = append(st.Rounds[i].Fingerprints, fmt.Sprintf("%064x", i*1000+k))
		}
	}
	score := 2.0
	d := &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Fix, Verdict: "FIX", Round: 12, MaxRounds: 20,
		Score: &score, Threshold: &score, Status: decide.StatusComplete, Time: t0, History: st.Rounds}
	for i := 0; i < 3500; i++ {
		f := decide.Finding{Severity: decide.Severity(i%4 + 1), File: fmt.Sprintf("internal/service/module%03d/handler.go", i%700), Line: i + 1,
			Rule: "rule-" + fmt.Sprint(i%30), Message: strings.Repeat("the value is not checked before use; ", 4)}
		d.Findings = append(d.Findings, f)
		d.Counts.Add(f.Severity)
	}
	for i := 0; i < 700; i++ {
		file := fmt.Sprintf("internal/service/module%03d/handler.go", i)
		d.Tasks = append(d.Tasks, decide.Task{ID: fmt.Sprintf("FIX-13-%d", i+1), Type: "fix", TargetFiles: []string{file},
			Findings: []string{"x", "y"}, Acceptance: "the next review reports no critical or high finding in " + file})
	}
	return d, st
}

// TestBodySizeLimits: whatever the report, the comment fits GitHub's limit,
// says that it was shortened, and ends with the whole state marker.
func TestBodySizeLimits(t *testing.T) {
	t.Parallel()
	big, bigSt := review3500(t)
	small := testState(t, "review", 2)
	tests := []struct {
		name      string
		d         *decide.Decision
		st        *decide.State
		shortened bool
		notes     []string
	}{
		{"a 3 500-finding review fits with a note", big, bigSt, true,
			[]string{"more blocking findings (all of them are in the job summary)", "Shortened to fit a GitHub comment", "| rounds 1–"}},
		{"a small report is not shortened", &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Converge, Verdict: "CONVERGE",
			Round: 2, MaxRounds: 3, History: small.Rounds}, small, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, key := range [][]byte{nil, []byte("state-key")} {
				body, err := Body(tt.d, tt.st, Options{BlobURL: "https://github.com/o/r/blob/abc/"}, scope7, key)
				if err != nil {
					t.Fatal(err)
				}
				if err := CheckSize(body); err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(body, "Shortened to fit"); got != tt.shortened {
					t.Errorf("shortened = %v, want %v", got, tt.shortened)
				}
				for _, n := range tt.notes {
					if !strings.Contains(body, n) {
						t.Errorf("the body lacks %q", n)
					}
				}
				// The marker is whole: gcloop trusts the comment again and
				// reads back its newest round.
				line, err := stateLine(body, scope7, key)
				if err != nil {
					t.Fatalf("the body is not in gcloop's shape: %v", err)
				}
				st, err := ParseMarker(line, "review")
				if err != nil {
					t.Fatalf("the marker does not read back: %v", err)
				}
				if st.Last().N != tt.st.Last().N {
					t.Errorf("newest round %d, want %d", st.Last().N, tt.st.Last().N)
				}
				repCheck(t, strings.TrimPrefix(body, Header("review")), line, CommentLimit)
			}
		})
	}
}

// BenchmarkBody3500 measures the comment of a 3 500-finding review, with
// its compaction to the comment limit.
func BenchmarkBody3500(b *testing.B) {
	d, st := review3500(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Body(d, st, Options{}, scope7, []byte("k")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdown measures the unlimited report of a 3 500-finding
// review (the job summary).
func BenchmarkMarkdown(b *testing.B) {
	d, _ := review3500(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Markdown(d, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdownTracked is BenchmarkMarkdown in round 12 of a loop
// that follows its findings: the movement line, a status per blocking
// finding (a fingerprint each) and 200 fixed findings folded.
func BenchmarkMarkdownTracked(b *testing.B) {
	d, _ := review3500(b)
	d.Since = map[string]int{}
	for i, f := range d.Findings {
		if f.Severity <= decide.High {
			d.Since[decide.Fingerprint(d.ID, f)] = 1 + i%12
		}
	}
	for i := range 200 {
		d.Fixed = append(d.Fixed, decide.FixedFinding{Fingerprint: fmt.Sprintf("%016x", i), Since: 3})
	}
	d.Movement = decide.Movement{Previous: 11, Fixed: 200, New: 100, Persisting: len(d.Since) - 100, Since: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Markdown(d, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

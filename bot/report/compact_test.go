package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
)

func markerSize(t *testing.T, st *decide.State) int {
	t.Helper()
	return len(marker(t, st))
}

func TestCompactStateLeavesASmallStateAlone(t *testing.T) {
	t.Parallel()
	st := testState(t, "review", 5)
	st.Grants = []decide.Grant{{By: "alice", At: t0}}
	got := CompactState(st, StateBudget)
	if diff := cmp.Diff(st, got); diff != "" {
		t.Errorf("compacted a state that fits (-want +got):\n%s", diff)
	}
	got.Rounds[0].Fingerprints[0] = "changed"
	got.Grants[0].By = "changed"
	if st.Rounds[0].Fingerprints[0] != "fp-1" || st.Grants[0].By != "alice" {
		t.Error("the copy shares slices with the original")
	}
	if CompactState(nil, 100) != nil {
		t.Error("a nil state did not give nil")
	}
}

func TestCompactStateShrinksOldestFirst(t *testing.T) {
	t.Parallel()
	st := bigState(t) // 40 rounds × 31 fingerprints
	orig := markerSize(t, st)
	tests := []struct {
		name   string
		max    int
		check  func(t *testing.T, c *decide.State)
		rounds int // 0: any number
	}{
		{
			name:   "a little too big drops the fingerprints of the oldest rounds only",
			max:    orig - 1000,
			rounds: 40,
			check: func(t *testing.T, c *decide.State) {
				if len(c.Rounds[0].Fingerprints) != 0 || len(c.Rounds[0].Tasks) != 0 {
					t.Error("round 1 kept its fingerprints or tasks")
				}
				if len(c.Rounds[20].Fingerprints) != 31 {
					t.Error("round 21 lost its fingerprints though the oldest rounds were enough")
				}
			},
		},
		{
			name: "the budget keeps the last three rounds whole",
			max:  StateBudget,
			check: func(t *testing.T, c *decide.State) {
				n := len(c.Rounds)
				for _, r := range c.Rounds[:n-3] {
					if len(r.Fingerprints) != 0 {
						t.Errorf("old round %d kept %d fingerprints", r.N, len(r.Fingerprints))
					}
				}
				for _, r := range c.Rounds[n-3:] {
					if len(r.Fingerprints) != 31 || len(r.Tasks) != 1 {
						t.Errorf("recent round %d was not kept whole", r.N)
					}
				}
			},
		},
		{
			name:   "a small budget folds the old rounds into one record",
			max:    9000,
			rounds: 4,
			check: func(t *testing.T, c *decide.State) {
				f := c.Rounds[0]
				if f.N != 37 || f.Verdict != "rounds 1–37 compacted" || f.SHA != "" || f.Decision != decide.Fix || *f.Score != 41 {
					t.Errorf("folded record %+v, want n=37 of rounds 1–37 with the last figures", f)
				}
			},
		},
		{
			name:   "a tiny budget cuts the newest round's fingerprints last",
			max:    2500,
			rounds: 4,
			check: func(t *testing.T, c *decide.State) {
				last := c.Rounds[3]
				if last.N != 40 || len(last.Fingerprints) == 0 || len(last.Fingerprints) >= 31 {
					t.Errorf("newest round n=%d with %d fingerprints, want n=40 with some but not all", last.N, len(last.Fingerprints))
				}
				for _, r := range c.Rounds[1:3] {
					if len(r.Fingerprints) != 0 {
						t.Errorf("round %d kept fingerprints before the newest was cut", r.N)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := CompactState(st, tt.max)
			n := markerSize(t, c)
			if n > tt.max {
				t.Fatalf("marker of %d bytes, over %d", n, tt.max)
			}
			if est := markerLen(c.ID, jsonLen(c)); est != n {
				t.Errorf("estimated marker length %d, real %d", est, n)
			}
			if tt.rounds != 0 && len(c.Rounds) != tt.rounds {
				t.Errorf("%d rounds, want %d", len(c.Rounds), tt.rounds)
			}
			if c.Last().N != 40 || c.Status != st.Status || c.ID != st.ID || c.MaxRounds != st.MaxRounds {
				t.Errorf("compaction changed the loop: last n=%d status %q id %q max %d", c.Last().N, c.Status, c.ID, c.MaxRounds)
			}
			back, err := ParseMarker(marker(t, c), "review")
			if err != nil {
				t.Fatalf("the compacted marker does not read back: %v", err)
			}
			if diff := cmp.Diff(c, back); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
			tt.check(t, c)
			if n := markerSize(t, st); n != orig {
				t.Errorf("the original changed: marker %d bytes, was %d", n, orig)
			}
		})
	}
}

func TestCompactStateRefoldKeepsTheFirstRound(t *testing.T) {
	t.Parallel()
	st := bigState(t)
	c := CompactState(st, 9000)
	// Ten more big rounds, then compact again.
	for n := 41; n <= 50; n++ {
		r := st.Rounds[0]
		r.N, r.Verdict = n, "REVISION_NEEDED"
		r.Fingerprints = strings.Fields(strings.Repeat(fmt.Sprintf("%064d ", n), 30))
		c.Record(r)
	}
	c2 := CompactState(c, 9000)
	if v := c2.Rounds[0].Verdict; v != "rounds 1–47 compacted" {
		t.Errorf("refolded verdict %q, want rounds 1–47 compacted", v)
	}
}

func TestCompactStateGivesUpWithTheSmallestState(t *testing.T) {
	t.Parallel()
	st := bigState(t)
	c := CompactState(st, 10)
	if len(c.Rounds) != 4 || len(c.Rounds[3].Fingerprints) != 0 || len(c.Rounds[3].Tasks) != 0 {
		t.Errorf("unreachable budget: %d rounds, newest with %d fingerprints", len(c.Rounds), len(c.Rounds[3].Fingerprints))
	}
}

func TestCompactStateDropsPerFileCoverageFirst(t *testing.T) {
	t.Parallel()
	files := func(n int) []decide.FileCoverage {
		out := make([]decide.FileCoverage, n)
		for i := range out {
			out[i] = decide.FileCoverage{Path: fmt.Sprintf("pkg/some/long/directory/file%04d.go", i), Covered: int64(i), Total: 100}
		}
		return out
	}
	tests := []struct {
		name      string
		older     int // files of round 1
		newest    int // files of round 2
		wantFiles []int
	}{
		{"small files stay", 10, 10, []int{1, 2}},
		{"the older round's files go first", 300, 10, []int{2}},
		{"then the newest round's", 10, 600, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := testState(t, "review", 2)
			st.RecordFiles(1, files(tt.older))
			st.RecordFiles(2, files(tt.newest))
			got := CompactState(st, StateBudget-sigLen)
			var kept []int
			for _, f := range got.Files {
				kept = append(kept, f.N)
			}
			if diff := cmp.Diff(tt.wantFiles, kept); diff != "" {
				t.Errorf("kept per-file coverage of rounds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(st.Rounds, got.Rounds); diff != "" {
				t.Errorf("the rounds were compacted before the per-file coverage (-want +got):\n%s", diff)
			}
			if n := markerSize(t, got); n > StateBudget-sigLen {
				t.Errorf("marker of %d bytes, over %d", n, StateBudget-sigLen)
			}
			if len(st.Files) != 2 {
				t.Error("the original state was changed")
			}
		})
	}
}

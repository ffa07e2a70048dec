package decide

import (
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"
)

func TestStateNext(t *testing.T) {
	t.Parallel()
	st := NewState(Review, "review", 3)
	if r, h := st.Next("aaa"); r != 1 || len(h) != 0 {
		t.Fatalf("fresh state: round %d history %d, want 1 and 0", r, len(h))
	}
	st.Record(RoundRecord{N: 1, SHA: "aaa", Decision: Fix})
	st.Record(RoundRecord{N: 2, SHA: "bbb", Decision: Fix})
	tests := []struct {
		name        string
		sha         string
		wantRound   int
		wantHistory int
	}{
		{"the last round's sha re-decides that round", "bbb", 2, 1},
		{"a new sha starts the next round", "ccc", 3, 2},
		{"an older sha starts the next round", "aaa", 3, 2},
		{"no sha starts the next round", "", 3, 2},
	}
	for _, tt := range tests {
		r, h := st.Next(tt.sha)
		if r != tt.wantRound || len(h) != tt.wantHistory {
			t.Errorf("%s: round %d history %d, want %d and %d", tt.name, r, len(h), tt.wantRound, tt.wantHistory)
		}
	}
}

func TestStateRecordReplacesARerun(t *testing.T) {
	t.Parallel()
	st := NewState(Review, "review", 3)
	st.Record(RoundRecord{N: 1, SHA: "a", Decision: Fix})
	st.Record(RoundRecord{N: 2, SHA: "b", Decision: Fix})
	st.Record(RoundRecord{N: 2, SHA: "b", Decision: Converge, Verdict: "CONVERGE"})
	if len(st.Rounds) != 2 || st.Rounds[1].Verdict != "CONVERGE" || st.Status != StateConverged {
		t.Fatalf("rounds %+v status %s", st.Rounds, st.Status)
	}
	st.Record(RoundRecord{N: 3, Decision: Escalate})
	if st.Status != StateEscalated {
		t.Errorf("status %s, want escalated", st.Status)
	}
}

func TestDecodeStateRejectsRoundsOutOfOrder(t *testing.T) {
	t.Parallel()
	_, err := DecodeState(strings.NewReader(`{"schema":"gcloop/state/v1","loop":"review","id":"review","rounds":[{"n":2},{"n":1}]}`))
	if err == nil || !strings.Contains(err.Error(), "n=1 after n=2") {
		t.Errorf("err = %v", err)
	}
}

func TestStateRetryStartsANewRoundOnTheSameSha(t *testing.T) {
	t.Parallel()
	st := NewState(Review, "review", 3)
	st.Record(RoundRecord{N: 1, SHA: "aaa", Decision: Escalate})
	st.NewRound = true
	if r, _ := st.Next("aaa"); r != 2 {
		t.Fatalf("round %d after a retry on the same sha, want 2", r)
	}
	st.Record(RoundRecord{N: 2, SHA: "aaa", Decision: Fix})
	if st.NewRound {
		t.Fatal("recording a round must consume the retry")
	}
	if r, _ := st.Next("aaa"); r != 2 {
		t.Fatalf("round %d on a re-run, want 2", r)
	}
}

func TestSuperseded(t *testing.T) {
	t.Parallel()
	st := &State{Rounds: []RoundRecord{{N: 1, SHA: "a", RunID: 10}, {N: 2, SHA: "b", RunID: 12}}}
	tests := []struct {
		name    string
		runID   int64
		attempt int
		want    bool
	}{
		{"a re-run of an older run", 10, 2, true},
		{"a re-run of a run that recorded nothing, older than the last", 11, 3, true},
		{"a re-run of the last round's run", 12, 2, false},
		{"a re-run of a newer run (its first attempt was partial)", 13, 2, false},
		{"a first attempt older than the last judged run (delivered late)", 11, 1, true},
		{"a first attempt of a newer run", 13, 1, false},
		{"no run id", 0, 2, false},
	}
	for _, tt := range tests {
		if got := st.Superseded(tt.runID); got != tt.want {
			t.Errorf("%s: Superseded(%d) (attempt %d) = %v, want %v", tt.name, tt.runID, tt.attempt, got, tt.want)
		}
	}
	if (&State{Rounds: []RoundRecord{{N: 1, SHA: "a"}}}).Superseded(5) {
		t.Error("a state without run ids superseded a run")
	}
}

func TestStateRecordFiles(t *testing.T) {
	t.Parallel()
	a := []FileCoverage{{Path: "b.go", Covered: 1, Total: 2}, {Path: "a.go", Covered: 3, Total: 4}}
	b := []FileCoverage{{Path: "a.go", Covered: 4, Total: 4}}
	tests := []struct {
		name     string
		record   func(s *State)
		before   int
		want     []FileCoverage
		wantFrom int
		kept     int
	}{
		{"no files recorded gives none", func(s *State) {}, 2, nil, 0, 0},
		{"the previous round's files, sorted by path", func(s *State) { s.RecordFiles(1, a) }, 2,
			[]FileCoverage{{Path: "a.go", Covered: 3, Total: 4}, {Path: "b.go", Covered: 1, Total: 2}}, 1, 1},
		{"a re-run of round 2 still compares with round 1", func(s *State) { s.RecordFiles(1, a); s.RecordFiles(2, b); s.RecordFiles(2, b) }, 2,
			[]FileCoverage{{Path: "a.go", Covered: 3, Total: 4}, {Path: "b.go", Covered: 1, Total: 2}}, 1, 2},
		{"only the newest round before is kept", func(s *State) { s.RecordFiles(1, a); s.RecordFiles(2, b); s.RecordFiles(3, a) }, 3, b, 2, 2},
		{"a round without files drops its entry", func(s *State) { s.RecordFiles(1, a); s.RecordFiles(2, b); s.RecordFiles(2, nil) }, 3,
			[]FileCoverage{{Path: "a.go", Covered: 3, Total: 4}, {Path: "b.go", Covered: 1, Total: 2}}, 1, 1},
		{"more files than a round keeps record none", func(s *State) {
			s.RecordFiles(1, a)
			s.RecordFiles(2, make([]FileCoverage, MaxRoundFiles+1))
		}, 3, []FileCoverage{{Path: "a.go", Covered: 3, Total: 4}, {Path: "b.go", Covered: 1, Total: 2}}, 1, 1},
		{"a later round recorded again drops the rounds after it", func(s *State) { s.RecordFiles(1, a); s.RecordFiles(3, b); s.RecordFiles(2, b) }, 3, b, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewState(Coverage, "coverage", 3)
			tt.record(s)
			got, from := s.FilesBefore(tt.before)
			if diff := cmp.Diff(tt.want, got); diff != "" || from != tt.wantFrom {
				t.Errorf("FilesBefore(%d) = round %d (-want +got):\n%s", tt.before, from, diff)
			}
			if len(s.Files) != tt.kept {
				t.Errorf("kept %d entries, want %d", len(s.Files), tt.kept)
			}
		})
	}
}

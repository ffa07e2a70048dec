package decide

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

func TestStateMarkerRoundTrip(t *testing.T) {
	t.Parallel()
	st := NewState(Coverage, "cov-l1", 3)
	st.Grants = append(st.Grants, Grant{By: "octocat", At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	st.Record(RoundRecord{N: 1, SHA: "abc", Decision: Fix, Verdict: "FIX", Coverage: f64(61.5),
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Fingerprints: []string{"f1"}, Tasks: []string{}, Issues: []int{7}})
	m, err := st.Marker()
	if err != nil {
		t.Fatal(err)
	}
	body := "# report\n\nsome text\n" + m + "\n"
	got, err := ParseMarker(body, "cov-l1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ParseMarker(body, "review"); !errors.Is(err, ErrNoMarker) {
		t.Errorf("other id: err = %v, want ErrNoMarker", err)
	}
}

func TestParseMarkerReadsASignedMarker(t *testing.T) {
	t.Parallel()
	st := NewState(Review, "review", 3)
	m, err := st.Marker()
	if err != nil {
		t.Fatal(err)
	}
	signed := strings.TrimSuffix(m, " -->") + " hmac-c2lnbmF0dXJl -->"
	got, err := ParseMarker("report\n"+signed+"\n", "review")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, got); diff != "" {
		t.Errorf("signed marker (-want +got):\n%s", diff)
	}
}

func TestCorruptStateMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, wantErr string
	}{
		{"bad base64", "<!-- gcloop:state review ab$c -->", "no state marker"},
		{"not JSON", "<!-- gcloop:state review bm90IGpzb24 -->", "not valid JSON"},
		{"wrong schema", "<!-- gcloop:state review eyJzY2hlbWEiOiJ4In0 -->", "schema"},
		{"unknown field", "<!-- gcloop:state review eyJzY2hlbWEiOiJnY2xvb3Avc3RhdGUvdjEiLCJ4IjoxfQ -->", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseMarker(tt.body, "review")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDecodeStateRejectsRoundsOutOfOrder(t *testing.T) {
	t.Parallel()
	_, err := DecodeState(strings.NewReader(`{"schema":"gcloop/state/v1","loop":"review","id":"review","rounds":[{"n":2},{"n":1}]}`))
	if err == nil || !strings.Contains(err.Error(), "n=1 after n=2") {
		t.Errorf("err = %v", err)
	}
}

func FuzzParseMarker(f *testing.F) {
	st := NewState(Review, "review", 3)
	st.Record(RoundRecord{N: 1, SHA: "abc", Decision: Fix})
	m, _ := st.Marker()
	f.Add(m)
	f.Add("<!-- gcloop:state review e30 -->")
	f.Add("<!-- gcloop:state review eyJzY2hlbWEiOiJnY2xvb3Avc3RhdGUvdjEiLCJsb29wIjoicmV2aWV3In0 -->")
	f.Fuzz(func(t *testing.T, body string) {
		st, err := ParseMarker(body, "review")
		if err == nil && st == nil {
			t.Fatal("nil state without error")
		}
	})
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
		{"a first attempt is never a re-run", 9, 1, false},
		{"no run id", 0, 2, false},
	}
	for _, tt := range tests {
		if got := st.Superseded(tt.runID, tt.attempt); got != tt.want {
			t.Errorf("%s: Superseded(%d, %d) = %v, want %v", tt.name, tt.runID, tt.attempt, got, tt.want)
		}
	}
	if (&State{Rounds: []RoundRecord{{N: 1, SHA: "a"}}}).Superseded(5, 2) {
		t.Error("a state without run ids superseded a run")
	}
}

package decide

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sampleState is a state with every field set, as a round writes it.
func sampleState() *State {
	st := NewState(Coverage, "cov-api", 3)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	st.Grants = append(st.Grants, Grant{By: "octocat", At: at})
	st.Actions = append(st.Actions, Action{Command: "retry", By: "octocat", At: at})
	regs := 2
	st.Record(RoundRecord{N: 1, SHA: "abc123", RunID: 99, RunAttempt: 2, Time: at, Decision: Fix, Verdict: "below target",
		Score: f64(6.5), Signal: SignalRevisionNeeded, Counts: Counts{High: 1}, Coverage: f64(71.25), PassRate: f64(0.9),
		Regressions: &regs, Fingerprints: []string{"f1"}, Tasks: []string{"t1"}, Issues: []int{7}, Commit: "def", Actor: "bot",
		Movement: &Movement{New: 1}})
	st.Record(RoundRecord{N: 2, SHA: "abd", Time: at, Decision: Fix, Verdict: "below target", Counts: Counts{High: 1},
		Fingerprints: []string{"f1", "f2"}, FirstSeen: []int{1, 2}, Tasks: []string{}, Issues: []int{},
		Movement: &Movement{Previous: 1, New: 1, Persisting: 1, Since: 1}})
	return st
}

// FuzzDecodeState decodes arbitrary state documents. DecodeState never
// panics; a state it accepts has a known schema and loop, a valid id and
// rounds in order, and survives Encode → DecodeState unchanged; the same
// document with anything but white space after it is refused.
func FuzzDecodeState(f *testing.F) {
	var buf bytes.Buffer
	if err := sampleState().Encode(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"review","rounds":[{"n":1,"time":"2026-01-01T00:00:00+01:00"}]}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"review"} {"schema":"x"}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"a -->"}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"audit","id":"x","rounds":[{"n":2},{"n":1}]}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"r","rounds":[{"n":1,"score":1e308,"counts":{"high":-1}}]}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"r","rounds":[{"n":3,"fingerprints":["a"],"first_seen":[-4,9],"movement":{"previous":7,"fixed":-1}}]}`)
	f.Add(`{"schema":"gcloop/state/v1","loop":"review","id":"r","rounds":[{"n":1,"fingerprints":[],"first_seen":[],"movement":null},{"n":2,"movement":{}}]}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, doc string) {
		st, err := DecodeState(strings.NewReader(doc))
		if err != nil {
			if st != nil {
				t.Fatal("a state with an error")
			}
			return
		}
		if st.Schema != StateSchema || !ValidID(st.ID) || st.Grants == nil || st.Rounds == nil {
			t.Fatalf("accepted schema %q, id %q", st.Schema, st.ID)
		}
		if _, err := ParseLoop(string(st.Loop)); err != nil {
			t.Fatalf("accepted loop %q", st.Loop)
		}
		for i := 1; i < len(st.Rounds); i++ {
			if st.Rounds[i].N <= st.Rounds[i-1].N {
				t.Fatalf("rounds out of order: %d after %d", st.Rounds[i].N, st.Rounds[i-1].N)
			}
		}

		var enc bytes.Buffer
		if err := st.Encode(&enc); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		back, err := DecodeState(&enc)
		if err != nil {
			t.Fatalf("the encoded state does not decode: %v", err)
		}
		// An empty list and none are the same state: omitempty drops one.
		if diff := cmp.Diff(st, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Encode → DecodeState changed the state (-before +after):\n%s", diff)
		}
		if _, err := DecodeState(strings.NewReader(doc + " \n\t")); err != nil {
			t.Fatalf("trailing white space refused: %v", err)
		}
		if _, err := DecodeState(strings.NewReader(doc + "x")); err == nil {
			t.Fatal("a document followed by more data was accepted")
		}
	})
}

func TestDecodeStateRefuses(t *testing.T) {
	t.Parallel()
	const head = `{"schema":"gcloop/state/v1","loop":"review",`
	tests := []struct{ name, doc, wantErr string }{
		{"a second document after the first", head + `"id":"review"} {"schema":"x"}`, "after the state"},
		{"trailing garbage", head + `"id":"review"}]`, "after the state"},
		{"an id that could end the marker's HTML comment", head + `"id":"a -->"}`, `state id "a -->"`},
		{"an empty id", head + `"id":""}`, `state id ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeState(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gcloop/gcloop/decide"
)

func f64(v float64) *float64 { return &v }

func TestStateMarkerRoundTrip(t *testing.T) {
	t.Parallel()
	st := decide.NewState(decide.Coverage, "cov-l1", 3)
	st.Grants = append(st.Grants, decide.Grant{By: "octocat", At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	st.Record(decide.RoundRecord{N: 1, SHA: "abc", Decision: decide.Fix, Verdict: "FIX", Coverage: f64(61.5),
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Fingerprints: []string{"f1"}, Tasks: []string{}, Issues: []int{7}})
	st.RecordFiles(1, []decide.FileCoverage{{Path: "a.go", Covered: 3, Total: 4}})
	m, err := Marker(st)
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
	st := decide.NewState(decide.Review, "review", 3)
	m, err := Marker(st)
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

func TestParseMarkerRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, id, wantErr string
	}{
		{"bad base64", "<!-- gcloop:state review ab$c -->", "review", "no state marker"},
		{"not JSON", "<!-- gcloop:state review bm90IGpzb24 -->", "review", "not valid JSON"},
		{"wrong schema", "<!-- gcloop:state review eyJzY2hlbWEiOiJ4In0 -->", "review", "schema"},
		{"unknown field", "<!-- gcloop:state review eyJzY2hlbWEiOiJnY2xvb3Avc3RhdGUvdjEiLCJ4IjoxfQ -->", "review", "unknown field"},
		{"an invalid loop id", "<!-- gcloop:state .. e30 -->", "..", decide.IDRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseMarker(tt.body, tt.id)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMarkerRefusesAnIDThatBreaksIt(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "a -->", "a b", strings.Repeat("x", 65)} {
		if m, err := Marker(decide.NewState(decide.Review, id, 3)); err == nil {
			t.Errorf("Marker of id %q = %q, want an error", id, m)
		}
	}
	if _, err := Marker(nil); err == nil {
		t.Error("Marker(nil) gave no error")
	}
}

// FuzzMarker decodes arbitrary state documents; every state DecodeState
// accepts survives Marker → ParseMarker unchanged, and ParseMarker never
// panics on the document as a comment body.
func FuzzMarker(f *testing.F) {
	st := decide.NewState(decide.Review, "review", 3)
	st.Record(decide.RoundRecord{N: 1, SHA: "abc", Decision: decide.Fix})
	var buf bytes.Buffer
	if err := st.Encode(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	m, _ := Marker(st)
	f.Add(m)
	f.Add("<!-- gcloop:state review e30 -->")
	f.Add(`{"schema":"gcloop/state/v1","loop":"coverage","id":"c","rounds":[],"files":[{"n":1,"files":{"a.go":[1,2]}}]}`)
	f.Add("<!-- gcloop:state review eyJzY2hlbWEiOiJnY2xvb3Avc3RhdGUvdjEiLCJsb29wIjoicmV2aWV3In0 -->")
	f.Fuzz(func(t *testing.T, doc string) {
		if st, err := ParseMarker(doc, "review"); err == nil && st == nil {
			t.Fatal("nil state without error")
		}
		st, err := decide.DecodeState(strings.NewReader(doc))
		if err != nil {
			return
		}
		m, err := Marker(st)
		if err != nil {
			t.Fatalf("Marker: %v", err)
		}
		back, err := ParseMarker("before\n"+m+"\nafter", st.ID)
		if err != nil {
			t.Fatalf("the marker does not parse: %v", err)
		}
		if diff := cmp.Diff(st, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Marker → ParseMarker changed the state (-before +after):\n%s", diff)
		}
	})
}

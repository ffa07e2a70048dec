package decide

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRoundRecordDuration(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		start, end time.Time
		want       time.Duration
		ok         bool
	}{
		{"both times", t0, t0.Add(4*time.Minute + 5*time.Second), 4*time.Minute + 5*time.Second, true},
		{"an instant", t0, t0, 0, true},
		{"no start", time.Time{}, t0, 0, false},
		{"no end", t0, time.Time{}, 0, false},
		{"the end before the start", t0, t0.Add(-time.Second), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := RoundRecord{Started: tt.start, Ended: tt.end}.Duration()
			if got != tt.want || ok != tt.ok {
				t.Errorf("Duration() = %v, %t; want %v, %t", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// A state written before rounds kept their start and end still reads, and
// one that keeps them reads them back; a round without them writes no
// field for them.
func TestStateRoundTimesRoundTrip(t *testing.T) {
	t.Parallel()
	old := `{"schema":"gcloop/state/v1","loop":"review","id":"review","max_rounds":3,"status":"open","grants":[],
"rounds":[{"n":1,"sha":"abc","time":"2026-03-01T10:05:00Z","decision":"fix","verdict":"FIX","score":5,"counts":{"critical":0,"high":1,"medium":0,"low":0},"coverage":null,"pass_rate":null,"fingerprints":[],"tasks":[],"issues":[]}]}`
	st, err := DecodeState(strings.NewReader(old))
	if err != nil {
		t.Fatalf("an old state: %v", err)
	}
	if _, ok := st.Rounds[0].Duration(); ok {
		t.Errorf("an old round has a duration: %+v", st.Rounds[0])
	}
	var buf bytes.Buffer
	if err := st.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "started") || strings.Contains(buf.String(), "ended") {
		t.Errorf("a round without times wrote them:\n%s", buf.String())
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	st.Rounds[0].Started, st.Rounds[0].Ended = t0, t0.Add(90*time.Second)
	buf.Reset()
	if err := st.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeState(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := back.Rounds[0].Duration(); !ok || d != 90*time.Second {
		t.Errorf("read back: %v, %t; want 1m30s", d, ok)
	}
}

package decide

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reviewRounds decides a review loop round by round, each round's
// findings given, and returns every decision; the state carries the
// history as a driver's would.
func reviewRounds(t *testing.T, rounds ...[]Finding) []*Decision {
	t.Helper()
	st := NewState(Review, "review", 10)
	var out []*Decision
	for i, fs := range rounds {
		ev := &Evidence{Review: &ReviewFacts{Score: f64(4), Signal: SignalRevisionNeeded}, Findings: fs, Sources: []string{"r.json"}}
		cfg := Defaults(Review)
		cfg.MaxRounds, cfg.Stall = 10, 0
		d, err := Decide(Input{Loop: Review, Evidence: ev, Config: cfg, Round: i + 1, History: st.Rounds})
		if err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
		st.Record(d.Record())
		out = append(out, d)
	}
	return out
}

func TestMovement(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	moved := lock
	moved.Line = 97
	reworded := lock
	reworded.Message = "Lock  held across  NETWORK call" // normalized: the same message
	sqlRule := Finding{Severity: Critical, File: "db/q.go", Line: 3, Rule: "G201", Message: "SQL built from input"}
	otherRule := sqlRule
	otherRule.Rule = "G202"
	minor := finding(Medium, "core/lock.go", 41, "naming")
	leak := finding(Critical, "net/conn.go", 9, "connection leaked")
	tests := []struct {
		name   string
		rounds [][]Finding
		want   Movement
		status map[Finding]string // status of a finding of the last round
	}{
		{"the first round has every finding new", [][]Finding{{lock, leak}},
			Movement{New: 2}, map[Finding]string{lock: FindingNew}},
		{"a moved line is the same finding", [][]Finding{{lock}, {moved}},
			Movement{Previous: 1, Persisting: 1, Since: 1}, map[Finding]string{moved: FindingPersisting}},
		{"a message that normalizes the same is the same finding", [][]Finding{{lock}, {reworded}},
			Movement{Previous: 1, Persisting: 1, Since: 1}, nil},
		{"a rule change is a different finding", [][]Finding{{sqlRule}, {otherRule}},
			Movement{Previous: 1, Fixed: 1, New: 1}, map[Finding]string{otherRule: FindingNew}},
		{"fixed, new and persisting are counted", [][]Finding{{lock, sqlRule}, {moved, leak}},
			Movement{Previous: 1, Fixed: 1, New: 1, Persisting: 1, Since: 1}, map[Finding]string{leak: FindingNew, moved: FindingPersisting}},
		{"still open since the round it was first seen", [][]Finding{{lock}, {lock, leak}, {moved, leak}},
			Movement{Previous: 2, Persisting: 2, Since: 1}, nil},
		{"a finding that comes back is new again", [][]Finding{{lock}, {leak}, {lock, leak}},
			Movement{Previous: 2, New: 1, Persisting: 1, Since: 2}, map[Finding]string{lock: FindingNew}},
		{"minor findings are not tracked", [][]Finding{{lock, minor}, {minor}},
			Movement{Previous: 1, Fixed: 1}, nil},
		{"everything fixed", [][]Finding{{lock, leak}, {}},
			Movement{Previous: 1, Fixed: 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := reviewRounds(t, tt.rounds...)
			d := ds[len(ds)-1]
			if diff := cmp.Diff(tt.want, d.Movement); diff != "" {
				t.Errorf("movement (-want +got):\n%s", diff)
			}
			if got := d.History[len(d.History)-1].Movement; got == nil || *got != d.Movement {
				t.Errorf("record movement %v, want %v", got, d.Movement)
			}
			if len(d.Fixed) != d.Movement.Fixed {
				t.Errorf("%d fixed findings listed, movement says %d", len(d.Fixed), d.Movement.Fixed)
			}
			for f, want := range tt.status {
				if got, _ := d.FindingStatus(f); got != want {
					t.Errorf("status of %s = %q, want %q", f, got, want)
				}
			}
		})
	}
}

func TestFixedFindingsKeepTheirFirstRound(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	leak := finding(Critical, "net/conn.go", 9, "connection leaked")
	ds := reviewRounds(t, []Finding{lock}, []Finding{lock, leak}, nil)
	d := ds[2]
	want := []FixedFinding{{Fingerprint: Fingerprint("review", lock), Since: 1}, {Fingerprint: Fingerprint("review", leak), Since: 2}}
	if diff := cmp.Diff(want, d.Fixed); diff != "" {
		t.Errorf("fixed (-want +got):\n%s", diff)
	}
	if got := ds[1].Since[Fingerprint("review", lock)]; got != 1 {
		t.Errorf("round 2 dates the lock finding to round %d, want 1", got)
	}
	rec := ds[1].Record()
	want2 := []int{1, 2}
	if rec.Fingerprints[0] != Fingerprint("review", lock) {
		want2 = []int{2, 1}
	}
	if diff := cmp.Diff(want2, rec.FirstSeen); diff != "" {
		t.Errorf("record first rounds, in fingerprint order (-want +got):\n%s", diff)
	}
	if got := ds[0].Record().FirstSeen; got != nil {
		t.Errorf("round 1 record keeps first rounds %v, want none (all its own)", got)
	}
}

func TestMovementString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    Movement
		want string
	}{
		{Movement{Previous: 1, Fixed: 3, New: 1, Persisting: 4, Since: 1}, "3 fixed, 1 new, 4 still open since round 1"},
		{Movement{Previous: 2, Fixed: 2}, "2 fixed"},
		{Movement{Previous: 2, Persisting: 1, Since: 2}, "1 still open since round 2"},
		{Movement{Previous: 2}, "nothing open, as in the previous round"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestStateKeepsFirstRoundsAndMovement(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	ds := reviewRounds(t, []Finding{lock}, []Finding{lock})
	st := NewState(Review, "review", 10)
	for _, r := range ds[1].History {
		st.Record(r)
	}
	var buf bytes.Buffer
	if err := st.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeState(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if m := back.Rounds[1].Movement; m == nil || m.Persisting != 1 || m.Since != 1 {
		t.Errorf("round 2 movement %+v, want 1 persisting since round 1", m)
	}
}

func TestOldStateWithoutFirstRounds(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	leak := finding(Critical, "net/conn.go", 9, "connection leaked")
	fp := Fingerprint("review", lock)
	// A state written before first rounds and movements were kept.
	old := `{"schema":"gcloop/state/v1","loop":"review","id":"review","max_rounds":5,"status":"open","grants":[],
	"rounds":[{"n":1,"sha":"a","time":"2026-01-01T00:00:00Z","decision":"fix","verdict":"FIX","score":4,"counts":{"critical":0,"high":1,"medium":0,"low":0},
	"coverage":null,"pass_rate":null,"fingerprints":["` + fp + `"],"tasks":["FIX-2-1"],"issues":[]},
	{"n":2,"sha":"b","time":"2026-01-01T00:00:00Z","decision":"fix","verdict":"FIX","score":4,"counts":{"critical":0,"high":1,"medium":0,"low":0},
	"coverage":null,"pass_rate":null,"fingerprints":["` + fp + `"],"tasks":["FIX-3-1"],"issues":[]}]}`
	st, err := DecodeState(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	round, hist := st.Next("c")
	ev := &Evidence{Review: &ReviewFacts{Score: f64(4), Signal: SignalRevisionNeeded}, Findings: []Finding{lock, leak}, Sources: []string{"r.json"}}
	cfg := Defaults(Review)
	cfg.MaxRounds, cfg.Stall = 5, 0
	d, err := Decide(Input{Loop: Review, Evidence: ev, Config: cfg, Round: round, History: hist})
	if err != nil {
		t.Fatal(err)
	}
	// Round 2 kept no first rounds: what persists is dated from round 2,
	// the earliest round the state can vouch for.
	if diff := cmp.Diff(Movement{Previous: 2, New: 1, Persisting: 1, Since: 2}, d.Movement); diff != "" {
		t.Errorf("movement (-want +got):\n%s", diff)
	}
}

func TestDecisionJSONCarriesTheMovement(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	ds := reviewRounds(t, []Finding{lock}, []Finding{lock})
	data, err := json.Marshal(ds[1])
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Movement *Movement `json:"movement"`
		Status   string    `json:"status"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Movement == nil || *got.Movement != (Movement{Previous: 1, Persisting: 1, Since: 1}) || got.Status != StatusComplete {
		t.Errorf("movement %+v status %q in %s", got.Movement, got.Status, data)
	}
}

// TestStallReadsTheMovement: a round is stuck exactly when its movement
// counts a persisting finding (and its score is no better).
func TestStallReadsTheMovement(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	moved := lock
	moved.Line = 120
	ev := func(fs ...Finding) *Evidence {
		return &Evidence{Review: &ReviewFacts{Score: f64(4), Signal: SignalRevisionNeeded}, Findings: fs, Sources: []string{"r.json"}}
	}
	st := NewState(Review, "review", 10)
	cfg := Defaults(Review)
	cfg.MaxRounds = 10
	for i, e := range []*Evidence{ev(lock), ev(moved), ev(lock)} {
		d, err := Decide(Input{Loop: Review, Evidence: e, Config: cfg, Round: i + 1, History: st.Rounds})
		if err != nil {
			t.Fatal(err)
		}
		st.Record(d.Record())
		if i == 2 && (!d.Stalled || d.Movement.Persisting != 1) {
			t.Errorf("round 3: stalled %v movement %+v; a moved line must stay the same finding for both", d.Stalled, d.Movement)
		}
	}
}

// BenchmarkTrack classifies a round of 5 000 tracked findings against a
// previous round of 5 000, 4 000 of them shared, with their first rounds.
func BenchmarkTrack(b *testing.B) {
	const n, shared = 5000, 4000
	prev := RoundRecord{N: 7}
	var cur []string
	for i := range n {
		prev.Fingerprints = append(prev.Fingerprints, fmt.Sprintf("%016x", i))
		prev.FirstSeen = append(prev.FirstSeen, 1+i%7)
		cur = append(cur, fmt.Sprintf("%016x", i+n-shared))
	}
	b.ReportAllocs()
	for b.Loop() {
		m, _, _, _ := track(&prev, 8, cur)
		if m.Persisting != shared {
			b.Fatalf("movement %+v", m)
		}
	}
}

func TestReturnedFindings(t *testing.T) {
	t.Parallel()
	lock := finding(High, "core/lock.go", 40, "lock held across network call")
	leak := finding(Critical, "net/conn.go", 9, "connection leaked")
	sql := Finding{Severity: Critical, File: "db/q.go", Line: 3, Rule: "G201", Message: "SQL built from input"}
	tests := []struct {
		name   string
		rounds [][]Finding
		want   []string
	}{
		{"a finding fixed in round 2 that comes back in round 3", [][]Finding{{lock, leak}, {leak}, {lock, leak}}, []string{Fingerprint("review", lock)}},
		{"a finding never seen before has not come back", [][]Finding{{lock}, {}, {sql}}, nil},
		{"a persisting finding has not come back", [][]Finding{{lock}, {lock}, {lock}}, nil},
		{"round 2 has no earlier round to come back from", [][]Finding{{lock}, {leak}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := reviewRounds(t, tt.rounds...)
			if diff := cmp.Diff(tt.want, ds[len(ds)-1].Returned); diff != "" {
				t.Errorf("returned (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzTrack classifies a round against a previous record as a state may
// hold it — repeated fingerprints, a first_seen list of any length and
// values: the counts add up, every first round lies between 1 and the
// round, and a persisting finding is never dated after the previous round.
func FuzzTrack(f *testing.F) {
	f.Add(3, "a b c", "1 2 9", "b c d")
	f.Add(1, "", "", "a a")
	f.Add(5, "x y", "-3", "y")
	f.Fuzz(func(t *testing.T, prevN int, prevFps, firsts, curFps string) {
		if prevN < 1 || prevN > 1000 {
			return
		}
		prev := RoundRecord{N: prevN, Fingerprints: strings.Fields(prevFps)}
		for _, s := range strings.Fields(firsts) {
			var v int
			fmt.Sscan(s, &v)
			prev.FirstSeen = append(prev.FirstSeen, v)
		}
		cur := strings.Fields(curFps)
		n := prevN + 1
		m, since, fixed, added := track(&prev, n, cur)
		uniq := func(ss []string) int {
			set := map[string]bool{}
			for _, s := range ss {
				set[s] = true
			}
			return len(set)
		}
		if m.New+m.Persisting != uniq(cur) || m.Fixed+m.Persisting != uniq(prev.Fingerprints) || len(fixed) != m.Fixed || len(added) != m.New {
			t.Fatalf("movement %+v of %q against %q", m, cur, prev.Fingerprints)
		}
		for fp, s := range since {
			if s < 1 || s > n || (s == n) != slices.Contains(added, fp) {
				t.Fatalf("%s first seen in round %d (round %d, added %q)", fp, s, n, added)
			}
		}
		for _, x := range fixed {
			if x.Since < 1 || x.Since > prevN {
				t.Fatalf("fixed %s first seen in round %d, previous round %d", x.Fingerprint, x.Since, prevN)
			}
		}
		if m.Persisting > 0 && (m.Since < 1 || m.Since > prevN) {
			t.Fatalf("still open since round %d, previous round %d", m.Since, prevN)
		}
	})
}

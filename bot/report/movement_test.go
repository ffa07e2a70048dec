package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
)

// TestManyTrackedFindingsOverManyRoundsFit: a review loop of 12 rounds,
// each with many blocking findings of which most persist from the round
// before, keeps its comment within GitHub's limit, each round starting
// from the state its predecessor's comment kept. While the newest round's
// fingerprints fit the state's budget the movement is exact; beyond it
// the comment still fits, and the findings compacted away count as new.
func TestManyTrackedFindingsOverManyRoundsFit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		per, churn int
		exact      bool
	}{{300, 50, true}, {2000, 100, false}} {
		t.Run(fmt.Sprintf("%d findings a round", tt.per), func(t *testing.T) {
			t.Parallel()
			trackRounds(t, 12, tt.per, tt.churn, tt.exact)
		})
	}
}

func trackRounds(t *testing.T, rounds, per, churn int, exact bool) {
	st := decide.NewState(decide.Review, "review", 100)
	var d *decide.Decision
	for n := 1; n <= rounds; n++ {
		var fs []decide.Finding
		for i := (n - 1) * churn; i < (n-1)*churn+per; i++ {
			fs = append(fs, decide.Finding{Severity: decide.High, File: fmt.Sprintf("svc/m%04d/h.go", i), Line: n, Rule: "nil-check", Message: "unchecked"})
		}
		cfg := decide.Defaults(decide.Review)
		cfg.MaxRounds, cfg.Stall = 100, 0
		ev := &decide.Evidence{Review: &decide.ReviewFacts{Score: f64p(3), Signal: decide.SignalRevisionNeeded}, Findings: fs, Sources: []string{"r.json"}}
		var err error
		d, err = decide.Decide(decide.Input{Loop: decide.Review, Evidence: ev, Config: cfg, Round: n, History: st.Rounds, SHA: fmt.Sprintf("%040d", n), Now: t0.Add(time.Duration(n) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		st.Record(d.Record())
		body, err := Body(d, st, Options{}, scope7, []byte("state-key"))
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		if err := CheckSize(body); err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		line, err := stateLine(body, scope7, []byte("state-key"))
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		back, err := ParseMarker(line, "review")
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		st = back // the next round starts from what the comment kept
	}
	if !exact {
		if d.Movement.New+d.Movement.Persisting != per {
			t.Errorf("round %d movement %+v, want %d findings in all", rounds, d.Movement, per)
		}
		return
	}
	if want := (decide.Movement{Previous: rounds - 1, Fixed: churn, New: churn, Persisting: per - churn, Since: rounds - per/churn + 1}); d.Movement != want {
		t.Errorf("round %d movement %+v, want %+v", rounds, d.Movement, want)
	}
	if !strings.Contains(st.Last().Verdict, "FIX") || len(st.Last().Fingerprints) == 0 {
		t.Errorf("newest round compacted away: %+v", st.Last())
	}
}

func f64p(v float64) *float64 { return &v }

// TestFixedFindingsAreEscaped: the fixed list shows fingerprints read from
// the state; whatever a state holds, they render as escaped text in a
// table of the right shape.
func TestFixedFindingsAreEscaped(t *testing.T) {
	t.Parallel()
	d := repCases()["review-fix"]
	d.Fixed = []decide.FixedFinding{
		{Fingerprint: "<img src=x onerror=alert(1)> | @octocat", Since: 1},
		{Fingerprint: "<!-- gcloop:state review e30 -->", Since: 1},
		{Fingerprint: "`a`|b\n# c", Since: 1},
	}
	d.Movement.Fixed = len(d.Fixed)
	got, err := Markdown(d, goldenOptions)
	if err != nil {
		t.Fatal(err)
	}
	repCheck(t, got, "", 0)
	if ghfake.Pingable(got) {
		t.Errorf("a mention that pings:\n%s", got)
	}
}

// TestCompactionKeepsFirstRoundsAligned: however far compaction cuts a
// round's fingerprints, its first rounds are cut with them (or dropped),
// never left pointing at other fingerprints.
func TestCompactionKeepsFirstRoundsAligned(t *testing.T) {
	t.Parallel()
	st := testState(t, "review", 5)
	for i := range st.Rounds {
		r := &st.Rounds[i]
		r.Fingerprints, r.FirstSeen = nil, nil
		for k := range 3000 {
			r.Fingerprints = append(r.Fingerprints, fmt.Sprintf("%016x", k))
			r.FirstSeen = append(r.FirstSeen, 1+k%r.N)
		}
	}
	for _, budget := range []int{StateBudget, 8 << 10, 2 << 10} {
		c := CompactState(st, budget)
		for _, r := range c.Rounds {
			if len(r.FirstSeen) != 0 && len(r.FirstSeen) != len(r.Fingerprints) {
				t.Errorf("budget %d: round %d keeps %d fingerprints and %d first rounds", budget, r.N, len(r.Fingerprints), len(r.FirstSeen))
			}
			for k, n := range r.FirstSeen {
				if want := 1 + k%r.N; n != want {
					t.Fatalf("budget %d: round %d first round %d of fingerprint %d, want %d", budget, r.N, n, k, want)
				}
			}
		}
	}
}

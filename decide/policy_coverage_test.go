package decide

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCoverageNothingMeasuredIsNoDecision(t *testing.T) {
	t.Parallel()
	zero := &CoverageFacts{Format: "cobertura"}
	tests := []struct {
		name string
		ev   Evidence
	}{
		{"0 of 0 lines and no test report", Evidence{Sources: []string{"clover.xml"}, Coverage: zero}},
		{"0 of 0 lines and a test report that ran no test", Evidence{Sources: []string{"clover.xml", "junit.xml"}, Coverage: zero, Tests: &TestFacts{Skipped: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decide(Input{Loop: Coverage, Evidence: &tt.ev, Config: Defaults(Coverage), Round: 1})
			var nd *NoDecisionError
			if !errors.As(err, &nd) {
				t.Fatalf("err = %v, want a NoDecisionError", err)
			}
			for _, src := range tt.ev.Sources {
				if !strings.Contains(err.Error(), src) {
					t.Errorf("error %q does not name %s", err, src)
				}
			}
		})
	}
}

func TestCoverageZeroOfZeroIsUnavailable(t *testing.T) {
	t.Parallel()
	ev := &Evidence{Sources: []string{"c.xml", "j.xml"}, Coverage: &CoverageFacts{Format: "cobertura"}, Tests: &TestFacts{Passed: 4}}
	d := run(t, Coverage, ev, 1, nil)
	if d.Coverage != nil {
		t.Errorf("coverage %v, want null", *d.Coverage)
	}
	want := []string{
		"coverage report (c.xml, j.xml) measured no line (0 of 0): counted as unavailable",
		"coverage unavailable: the pass rate is the proxy and the coverage conditions are dropped",
	}
	if diff := cmp.Diff(want, d.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

package evidence

import (
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestFindingsKeepTheMostSevere(t *testing.T) {
	t.Parallel()
	k := &keeper{max: 2}
	for _, s := range []decide.Severity{decide.Low, decide.Medium, decide.Critical, decide.Low, decide.High} {
		k.push(decide.Finding{Severity: s, Message: s.String()})
	}
	got := k.findings()
	want := []decide.Finding{{Severity: decide.Critical, Message: "critical"}, {Severity: decide.High, Message: "high"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if d := cmp.Diff(decide.Counts{Medium: 1, Low: 2}, k.omitted); d != "" {
		t.Errorf("omitted (-want +got):\n%s", d)
	}
}

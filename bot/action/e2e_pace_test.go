package action_test

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestMutationsAreNotPacedWithoutASecondaryLimit runs a round of the built
// binary, with no environment hook, that opens fix issues and writes the
// report: GitHub shows no sign of a secondary limit, so the mutations go one
// after another without the old fixed 1 s pause. A binary that paused would
// take at least a second per mutation after the first.
func TestMutationsAreNotPacedWithoutASecondaryLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewFix}})
	if r.code != 0 || r.outputs["status"] != "complete" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	// A paced client leaves at least a second between every two
	// mutations; an unpaced one sends the next at once. Only the shortest
	// gap is judged, so a loaded machine that slows some requests down
	// cannot fail the test, and a pause between all of them cannot pass it.
	var muts []string
	var arrived []time.Time
	for _, q := range w.gh.Requests() {
		if q.Method != "GET" {
			muts = append(muts, q.Method+" "+q.Path)
			arrived = append(arrived, q.Arrived)
		}
	}
	if len(muts) < 5 {
		t.Fatalf("%d mutations, want at least 5 for the measure to mean something:\n%s", len(muts), strings.Join(muts, "\n"))
	}
	shortest := time.Duration(math.MaxInt64)
	for i := 1; i < len(arrived); i++ {
		shortest = min(shortest, arrived[i].Sub(arrived[i-1]))
	}
	if shortest >= time.Second {
		t.Errorf("every two of %d mutations were at least %s apart, as with a 1 s pause between each:\n%s", len(muts), shortest.Round(time.Millisecond), strings.Join(muts, "\n"))
	}
	t.Logf("%d mutations, the closest %s apart", len(muts), shortest.Round(time.Millisecond))
}

package action_test

import (
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
	start := time.Now()
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewFix}})
	took := time.Since(start)
	if r.code != 0 || r.outputs["status"] != "complete" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	muts := w.mutations(0)
	if len(muts) < 5 {
		t.Fatalf("%d mutations, want at least 5 for the measure to mean something:\n%s", len(muts), strings.Join(muts, "\n"))
	}
	if paused := time.Duration(len(muts)-1) * time.Second; took >= paused {
		t.Errorf("the round took %s for %d mutations, as long as a 1 s pause between each (%s)", took.Round(time.Millisecond), len(muts), paused)
	}
	t.Logf("%d mutations in %s:\n%s", len(muts), took.Round(time.Millisecond), strings.Join(muts, "\n"))
}

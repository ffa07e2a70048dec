package action_test

import (
	"os"
	"testing"
)

// A coverage round on Jest's default report (Clover XML) measures its
// lines; it is not taken for an empty Cobertura report that converges on
// nothing measured.
func TestCoverageRoundReadsClover(t *testing.T) {
	t.Parallel()
	clover, err := os.ReadFile("../../coverage/testdata/clover/jest.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "coverage", "evidence": "coverage/clover.xml", "commit": "false"},
		files: map[string]string{"coverage/clover.xml": string(clover)}})
	if r.code != 0 || r.outputs["coverage"] != "60" || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v, want coverage 60 (6 of 10 lines, as Jest printed) and a fix round\n%s", r.code, r.outputs, r.stderr)
	}
}

// A coverage loop with nothing measured — a report of 0 of 0 lines and no
// test results — makes no decision and writes nothing to GitHub.
func TestCoverageRoundOnNothingMeasuredMakesNoDecision(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	empty := `<?xml version="1.0"?><coverage line-rate="1" lines-covered="0" lines-valid="0"><packages/></coverage>`
	r := w.runAction(step{inputs: map[string]string{"loop": "coverage", "evidence": "coverage.xml"}, files: map[string]string{"coverage.xml": empty}})
	if r.code != 1 || r.outputs["decision"] != "" {
		t.Fatalf("exit %d outputs %v, want exit 1 and no decision\n%s", r.code, r.outputs, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "coverage.xml")
	if m := w.mutations(0); len(m) != 0 {
		t.Errorf("mutations %v, want none", m)
	}
}

package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// End-to-end test of findings across rounds, with the built binary run as
// the runner runs the action: round 2 fixed pay.go's finding and moved one
// of cart.go's lines.

const reviewRound2 = `{"review_score": 5, "gc_signal": "REVISION_NEEDED", "findings": [
 {"severity": "high", "file": "cart.go", "line": 7, "description": "total ignores discounts"},
 {"severity": "high", "file": "cart.go", "line": 24, "description": "race on the item map"}]}`

func TestActionFollowsFindingsAcrossRounds(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "4"}
	r1 := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}})
	if r1.code != 0 || r1.outputs["decision"] != "fix" {
		t.Fatalf("round 1: exit %d outputs %v\n%s", r1.code, r1.outputs, r1.stderr)
	}
	open, _ := w.issuesByState()
	if len(open) != 2 {
		t.Fatalf("round 1 opened issues %v, want pay.go's and cart.go's", open)
	}
	payIssue, cartIssue := open[0], open[1] // the most severe first

	w.push(map[string]string{"pay.go": "package pay // fixed\n"})
	from := len(w.gh.Requests())
	r2 := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewRound2}, runID: 5200})
	if r2.code != 0 || r2.outputs["decision"] != "fix" || r2.outputs["round"] != "2" {
		t.Fatalf("round 2: exit %d outputs %v\n%s", r2.code, r2.outputs, r2.stderr)
	}
	// pay.go's issue is closed in round 2 with a comment, cart.go's
	// updated: the loop goes on.
	muts := w.mutations(from)
	for _, want := range []string{
		fmt.Sprintf("PATCH /repos/octo/shop/issues/%d", cartIssue),
		fmt.Sprintf("POST /repos/octo/shop/issues/%d/comments", payIssue),
		fmt.Sprintf("PATCH /repos/octo/shop/issues/%d", payIssue),
	} {
		if !slices.Contains(muts, want) {
			t.Errorf("round 2 mutations %q lack %q", muts, want)
		}
	}
	open, closed := w.issuesByState()
	if !slices.Equal(open, []int{cartIssue}) || !slices.Equal(closed, []int{payIssue}) {
		t.Errorf("after round 2: open %v closed %v, want open [%d] closed [%d]", open, closed, cartIssue, payIssue)
	}
	cs := w.gh.Comments(owner, repo, payIssue)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "Fixed in round 2:") {
		t.Errorf("comments on pay.go's issue %+v, want one saying fixed in round 2", cs)
	}
	// The report leads with the movement; the moved lines stayed their
	// findings.
	body := w.gh.Comments(owner, repo, w.pr)[0].Body
	mustContain(t, "the report comment", body, "**Since round 1:** 1 fixed, 2 still open since round 1.",
		"| persisting since round 1 | [cart.go:7]", "<details><summary>1 finding fixed since round 1</summary>")
	mustContain(t, "the job summary", r2.summary, "**Since round 1:** 1 fixed, 2 still open since round 1.")
	// The decision JSON output carries the movement.
	data, err := os.ReadFile(r2.file("decision-json"))
	if err != nil {
		t.Fatalf("decision-json output: %v", err)
	}
	var dj struct {
		Movement decide.Movement `json:"movement"`
	}
	if err := json.Unmarshal(data, &dj); err != nil {
		t.Fatal(err)
	}
	if want := (decide.Movement{Previous: 1, Fixed: 1, Persisting: 2, Since: 1}); dj.Movement != want {
		t.Errorf("decision JSON movement %+v, want %+v", dj.Movement, want)
	}
	// The same run again: nothing changes on GitHub.
	from = len(w.gh.Requests())
	again := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewRound2}, runID: 5200, attempt: 2})
	if again.code != 0 || again.outputs["round"] != "2" {
		t.Fatalf("re-run: exit %d outputs %v\n%s", again.code, again.outputs, again.stderr)
	}
	if m := w.mutations(from); len(m) > 0 {
		t.Errorf("a re-run made mutations %q", m)
	}
}

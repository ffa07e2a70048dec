package delivery_test

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/ghfake"
)

// runWith is a completed workflow_run delivery of a new run on the head
// whose one artifact, review-results, is zipped.
func (w *world) runWith(t *testing.T, zipped []byte) []byte {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review-results", zipped)
	return payload(t, map[string]any{"action": "completed", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev"},
		"workflow_run": map[string]any{"id": runID, "run_attempt": 1, "head_sha": w.head, "head_branch": "feature/cart", "status": "completed", "conclusion": "success",
			"head_repository": map[string]any{"id": 100, "full_name": owner + "/" + repo},
			"pull_requests":   []any{map[string]any{"number": w.pr, "head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}})
}

// reviewBomb is a zip of n review files that each look like a review
// (they sniff as one) and decompress to size bytes.
func reviewBomb(t *testing.T, n, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	head := `{"review_score":3,"findings":[],"pad":"`
	pad := bytes.Repeat([]byte("a"), 64<<10)
	for i := range n {
		f, err := zw.Create("review-" + string(rune('a'+i)) + ".json")
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(head))
		for left := size - len(head) - 2; left > 0; left -= len(pad) {
			f.Write(pad[:min(left, len(pad))])
		}
		f.Write([]byte(`"}`))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAnArtifactOverTheBudgetIsRefusedWithANeutralCheck(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	w.h.ArtifactBudget = 1 << 20
	bomb := reviewBomb(t, 4, 400<<10)
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.runWith(t, bomb)); err != nil {
		t.Fatalf("Handle = %v; a refused round is done, not an error to retry", err)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want the report", len(comments))
	}
	body := comments[0].Body
	for _, want := range []string{"REFUSED", `review-results`, `review-c.json`, "budget of 1MiB", `GCLOOP\_ARTIFACT\_BUDGET`} {
		if !strings.Contains(body, want) {
			t.Errorf("the report does not say %q:\n%s", want, body)
		}
	}
	runs := w.gh.CheckRuns(owner, repo)
	if len(runs) != 1 || runs[0].Conclusion != "neutral" || runs[0].HeadSHA != w.head {
		t.Fatalf("check runs %+v, want one neutral on the head", runs)
	}
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull {
			t.Errorf("a refused round opened issue #%d %q", is.Number, is.Title)
		}
	}
	types := w.log.types()
	if len(types) < 2 || types[1] != event.Error || types[len(types)-1] != event.Check {
		t.Errorf("events %v, want the round, the refusal, then decision, comment and check", types)
	}

	// The next run on the same head, with evidence gcloop can read, is the
	// round the refused one would have been: round 1, judged.
	review := `{"review_score":3,"gc_signal":"REVISION_NEEDED","findings":[{"severity":"high","file":"cart.go","line":1,"description":"nil map"}]}`
	if err := w.h.Handle(context.Background(), "d-2", "workflow_run", w.runWith(t, ghfake.Zip(t, map[string][]byte{"review-results.json": []byte(review)}))); err != nil {
		t.Fatal(err)
	}
	comments = w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "gcloop review — FIX") || strings.Contains(comments[0].Body, "REFUSED") {
		t.Fatalf("after a readable run the report is:\n%s", comments[0].Body)
	}
	if !strings.Contains(comments[0].Body, "round 1 of 3") {
		t.Errorf("the judged round is not round 1: the refusal used up a round:\n%s", comments[0].Body)
	}
	runs = w.gh.CheckRuns(owner, repo)
	if last := runs[len(runs)-1]; last.Conclusion != "action_required" {
		t.Errorf("check runs %+v, want the judged round's action_required last", runs)
	}
}

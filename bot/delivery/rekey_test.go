package delivery_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/ghfake"
)

// forkRun is a completed workflow_run delivery that names no pull request,
// as GitHub sends a fork's.
func (w *world) forkRun(t *testing.T) []byte {
	t.Helper()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart"})
	w.gh.AddArtifact(owner, repo, runID, "review-results", ghfake.Zip(t, map[string][]byte{"review-results.json": review}))
	return payload(t, map[string]any{"action": "completed", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev"},
		"workflow_run": map[string]any{"id": runID, "run_attempt": 1, "head_sha": w.head, "head_branch": "feature/cart", "status": "completed", "conclusion": "success",
			"head_repository": map[string]any{"id": 100, "full_name": owner + "/" + repo}, "pull_requests": []any{}}})
}

func TestAForkRunQueuedUnderItsShaAsksForItsPullRequestsKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		key    func(w *world) (string, bool) // the queue's key; false: a direct call
		rekey  bool
		report bool
	}{
		{"queued under the head sha: queued again under the pull request", func(w *world) (string, bool) { return owner + "/" + repo + "@" + w.head, true }, true, false},
		{"queued under the pull request: the round runs", func(w *world) (string, bool) { return owner + "/" + repo + "#" + strconv.Itoa(w.pr), true }, false, true},
		{"called directly: the round runs", func(*world) (string, bool) { return "", false }, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
			ctx := context.Background()
			if key, queued := tt.key(w); queued {
				ctx = delivery.WithKey(ctx, key)
			}
			err := w.h.Handle(ctx, "d-1", "workflow_run", w.forkRun(t))
			var rk *delivery.RekeyError
			switch {
			case tt.rekey && (!errors.As(err, &rk) || rk.Key != owner+"/"+repo+"#"+strconv.Itoa(w.pr)):
				t.Fatalf("Handle = %v; want a RekeyError for #%d", err, w.pr)
			case !tt.rekey && err != nil:
				t.Fatalf("Handle = %v", err)
			}
			if m := mutations(w.gh, 0); tt.rekey && len(m) != 0 {
				t.Errorf("asking to be queued again, the handler wrote %v", m)
			}
			if n := len(w.gh.Comments(owner, repo, w.pr)); (n == 1) != tt.report {
				t.Errorf("%d report comments; want a report %v", n, tt.report)
			}
		})
	}
}

package round_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

// A workflow run older than the one the loop last judged is delivered
// late (a slow run): it is ignored — no round, no issue change, no check,
// no comment edit — whatever its attempt; a newer run is judged.
func TestEngineIgnoresARunOlderThanTheLastJudged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		runID   int64
		attempt int
		stale   bool
	}{
		{"an older run delivered late", 20, 1, true},
		{"a re-run of an older run", 20, 3, true},
		{"a re-run of the judged run is the same round", 30, 2, false},
		{"a newer run", 31, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			first, _, err := w.decideOn(t, round.Event{Name: "workflow_run", Pull: w.pull(), RunID: 30, RunAttempt: 1}, "review", round.Options{Comment: true, Check: true})
			if err != nil {
				t.Fatal(err)
			}
			body := w.gh.Comments(owner, repo, w.pr)[0].Body
			res, reqs, err := w.decideOn(t, round.Event{Name: "workflow_run", Pull: w.pull(), RunID: tt.runID, RunAttempt: tt.attempt}, "review", round.Options{Comment: true, Check: true})
			if !tt.stale {
				if err != nil || res.Decision.Round != first.Decision.Round {
					t.Fatalf("run %d: %v; want round %d judged again", tt.runID, err, first.Decision.Round)
				}
				return
			}
			var nd *decide.NoDecisionError
			if !errors.Is(err, round.ErrStaleRun) || !errors.As(err, &nd) {
				t.Fatalf("run %d: %v, want ErrStaleRun and a no-decision", tt.runID, err)
			}
			for _, want := range []string{"older than run 30", "round 1", "ignored"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the reason %q does not say %q", err, want)
				}
			}
			if n := mutations(reqs); n != 0 {
				t.Errorf("%d mutations by a stale run: %q", n, reqs)
			}
			if got := w.gh.Comments(owner, repo, w.pr); len(got) != 1 || got[0].Body != body {
				t.Errorf("the report comment changed: %d comments", len(got))
			}
		})
	}
}

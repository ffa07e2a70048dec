package round_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

// refuse refuses a round of the world's PR on a workflow_run event.
func (w *world) refuse(t *testing.T, why string, runID int64) *round.Result {
	t.Helper()
	e := w.engine(round.Event{Name: "workflow_run", SHA: w.head, RunID: runID, RunAttempt: 1}, round.Options{Loop: decide.Review, Comment: true, Check: true})
	res := &round.Result{}
	if err := e.Refuse(context.Background(), w.pull(), why, res); err != nil {
		t.Fatalf("Refuse: %v", err)
	}
	return res
}

func TestRefuseReportsANeutralRoundAndRecordsNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	why := `artifact "review-results": entry "r.json": takes the round past its budget of 64MiB unpacked`
	res := w.refuse(t, why, 10)
	d := res.Decision
	if d.Verdict != round.VerdictRefused || d.Status != decide.StatusPartial || d.Round != 1 || d.Refused != why {
		t.Errorf("decision %s round %d status %s refused %q", d.Verdict, d.Round, d.Status, d.Refused)
	}
	if res.Check == nil || res.Check.Conclusion != "neutral" {
		t.Fatalf("check %+v, want neutral", res.Check)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want the report", len(comments))
	}
	lead := strings.SplitN(comments[0].Body, "### Summary", 2)[0]
	if !strings.Contains(lead, "**Why:** ⚠️ the evidence was refused") || !strings.Contains(lead, "entry \"r.json\"") || !strings.Contains(lead, "budget of 64MiB") {
		t.Errorf("the report's lead does not give the refusal:\n%s", lead)
	}

	// The next run judges round 1: the refusal recorded nothing.
	res2, _ := w.run(t, evidence(t, "review"), round.Options{Loop: decide.Review, Comment: true, Check: true}, 11)
	if res2.Decision.Round != 1 || res2.Decision.Verdict == round.VerdictRefused {
		t.Errorf("after a refusal: %s round %d, want the judged round 1", res2.Decision.Verdict, res2.Decision.Round)
	}
}

func TestRefusingAJudgedHeadTurnsItsCheckNeutralUntilJudgedAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	o := round.Options{Loop: decide.Review, Comment: true, Check: true}
	first, _ := w.run(t, evidence(t, "review"), o, 10)
	judged := first.Check.Conclusion
	w.refuse(t, "artifact \"x\": over the limit", 11)
	runs := w.gh.CheckRuns(owner, repo)
	if len(runs) != 1 || runs[0].Conclusion != "neutral" {
		t.Fatalf("check runs %+v, want the round's one turned neutral", runs)
	}
	// The same judgment again writes its check again, though the round
	// itself is unchanged.
	again, _ := w.run(t, evidence(t, "review"), o, 10) // the same run: the same check summary
	if again.Decision.Round != first.Decision.Round {
		t.Errorf("round %d, want %d again", again.Decision.Round, first.Decision.Round)
	}
	runs = w.gh.CheckRuns(owner, repo)
	if last := runs[len(runs)-1]; last.Conclusion != judged {
		t.Errorf("check runs %+v, want %s last", runs, judged)
	}
}

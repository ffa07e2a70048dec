package round_test

import (
	"context"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/google/go-github/v62/github"
)

// A round records when it started and ended: the critic's completed
// workflow run when the event carries one, else when the engine began and
// recorded it. A re-run that judges the same keeps the first times, so the
// report is not edited.
func TestEngineRecordsTheRoundsTimes(t *testing.T) {
	t.Parallel()
	runStart := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	runEnd := runStart.Add(7*time.Minute + 30*time.Second)
	tests := []struct {
		name       string
		run        *github.WorkflowRun
		start, end time.Time // end zero: any tick of the clock after start
	}{
		{"the critic's completed run", &github.WorkflowRun{Status: github.String("completed"),
			RunStartedAt: &github.Timestamp{Time: runStart}, UpdatedAt: &github.Timestamp{Time: runEnd}}, runStart, runEnd},
		{"a run still in progress tells nothing", &github.WorkflowRun{Status: github.String("in_progress"),
			RunStartedAt: &github.Timestamp{Time: runStart}, UpdatedAt: &github.Timestamp{Time: runEnd}}, clock, time.Time{}},
		{"a run whose end is before its start tells nothing", &github.WorkflowRun{Status: github.String("completed"),
			RunStartedAt: &github.Timestamp{Time: runEnd}, UpdatedAt: &github.Timestamp{Time: runStart}}, clock, time.Time{}},
		{"no run: the engine's own time", nil, clock, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			run := func(now time.Time) *round.Result {
				pull := w.pull()
				e := w.engine(round.Event{Name: "workflow_run", SHA: pull.HeadSHA, RunID: 7, RunAttempt: 1, Pull: pull, Run: tt.run}, round.Options{Comment: true})
				tick := now
				e.Now = func() time.Time { t := tick; tick = tick.Add(time.Second); return t }
				res := &round.Result{}
				if err := e.Run(context.Background(), round.Input{Pull: pull, Evidence: evidence(t, "review")}, res); err != nil {
					t.Fatal(err)
				}
				return res
			}
			res := run(clock)
			last := res.Decision.History[len(res.Decision.History)-1]
			// Without a run, the end is a later tick of the engine's clock.
			if !last.Started.Equal(tt.start) || !tt.end.IsZero() && !last.Ended.Equal(tt.end) || !last.Ended.After(last.Started) {
				t.Errorf("round %d: %v → %v; want %v → %v", last.N, last.Started, last.Ended, tt.start, tt.end)
			}
			from := len(w.gh.Requests())
			again := run(clock.Add(time.Hour))
			if l := again.Decision.History[len(again.Decision.History)-1]; !l.Started.Equal(last.Started) || !l.Ended.Equal(last.Ended) {
				t.Errorf("the re-run recorded %v → %v; want the first run's %v → %v", l.Started, l.Ended, last.Started, last.Ended)
			}
			if n := mutations(w.since(from)); n != 0 {
				t.Errorf("the re-run made %d writes, want none: %v", n, w.since(from))
			}
		})
	}
}

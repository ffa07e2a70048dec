package round_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	review, validation := evidence(t, "review"), evidence(t, "validation")
	both, err := decide.Merge(review, validation)
	if err != nil {
		t.Fatal(err)
	}
	none, err := decide.Merge()
	if err != nil {
		t.Fatal(err)
	}
	settled := func(status, cmd string) *decide.State {
		st := decide.NewState(decide.Review, "review", 3)
		st.Record(decide.RoundRecord{N: 1, SHA: "a", Decision: decide.Fix})
		st.Status = status
		st.Actions = append(st.Actions, decide.Action{Command: cmd, By: "lead", At: clock})
		return st
	}
	fresh := decide.NewState(decide.Review, "review", 3)
	fresh.Record(decide.RoundRecord{N: 1, SHA: "a", Decision: decide.Fix})
	fresh.Record(decide.RoundRecord{N: 2, SHA: "b", Decision: decide.Fix})
	tests := []struct {
		name        string
		in          round.DecideInput
		wantErr     any    // a pointer to the error type wanted
		wantText    string // a part of its message
		wantLoop    decide.Loop
		wantRound   int
		wantOutcome decide.Outcome
		wantVerdict string
	}{
		{name: "the evidence names the loop", in: round.DecideInput{Evidence: review, SHA: "c"},
			wantLoop: decide.Review, wantRound: 1, wantOutcome: decide.Fix},
		{name: "evidence of several loops is refused", in: round.DecideInput{Evidence: both}, wantErr: new(*round.SeveralLoopsError),
			wantText: "the evidence speaks for several loops (review, validation)"},
		{name: "the loop given picks among several", in: round.DecideInput{Loop: decide.Review, Evidence: both, SHA: "c"},
			wantLoop: decide.Review, wantRound: 1, wantOutcome: decide.Fix},
		{name: "no evidence and no state decides nothing", in: round.DecideInput{Evidence: none}, wantErr: new(*decide.NoDecisionError),
			wantText: "no evidence of any loop found"},
		{name: "no evidence with a state is the state's loop without its evidence", in: round.DecideInput{Evidence: none, State: fresh, SHA: "c"},
			wantErr: new(*decide.NoDecisionError), wantText: "review"},
		{name: "a new head is the next round", in: round.DecideInput{Evidence: review, State: fresh, SHA: "c"},
			wantLoop: decide.Review, wantRound: 3},
		{name: "the last head again is the same round", in: round.DecideInput{Evidence: review, State: fresh, SHA: "b"},
			wantLoop: decide.Review, wantRound: 2},
		{name: "a round given decides that round", in: round.DecideInput{Evidence: review, State: fresh, SHA: "z", Round: 1},
			wantLoop: decide.Review, wantRound: 1},
		{name: "a state of another loop is refused", in: round.DecideInput{Evidence: validation, State: fresh, ID: "review"},
			wantErr: new(*round.MismatchError), wantText: "loop id review holds a review loop on this pull request, not validation"},
		{name: "an approved loop stays converged", in: round.DecideInput{Evidence: review, State: settled(decide.StateApproved, "approve"), SHA: "c"},
			wantLoop: decide.Review, wantRound: 2, wantOutcome: decide.Converge, wantVerdict: "CONVERGE (approved)"},
		{name: "an aborted loop stays stopped", in: round.DecideInput{Evidence: review, State: settled(decide.StateAborted, "abort"), SHA: "c"},
			wantLoop: decide.Review, wantRound: 2, wantOutcome: decide.Escalate, wantVerdict: "ABORTED"},
		{name: "a re-run of a superseded run decides nothing", in: round.DecideInput{Evidence: review, State: func() *decide.State {
			st := decide.NewState(decide.Review, "review", 3)
			st.Record(decide.RoundRecord{N: 1, SHA: "a", Decision: decide.Fix, RunID: 20, RunAttempt: 1})
			return st
		}(), SHA: "a", RunID: 10, RunAttempt: 2}, wantErr: new(*decide.NoDecisionError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.in
			in.Now = clock
			p, err := round.Decide(in)
			if tt.wantErr != nil {
				if err == nil || !errors.As(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
					t.Fatalf("err = %v, want %T saying %q", err, tt.wantErr, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := p.Decision
			if d.Loop != tt.wantLoop || d.Round != tt.wantRound {
				t.Errorf("loop %s round %d, want %s round %d", d.Loop, d.Round, tt.wantLoop, tt.wantRound)
			}
			if tt.wantOutcome != "" && d.Outcome != tt.wantOutcome {
				t.Errorf("outcome %s, want %s", d.Outcome, tt.wantOutcome)
			}
			if tt.wantVerdict != "" {
				if d.Verdict != tt.wantVerdict || len(d.Tasks) != 0 || !strings.Contains(strings.Join(d.Reasons, " "), "@lead at "+clock.Format(time.RFC3339)) {
					t.Errorf("verdict %q, %d tasks, reasons %q; want %q, no task, and who settled it", d.Verdict, len(d.Tasks), d.Reasons, tt.wantVerdict)
				}
			}
		})
	}
}

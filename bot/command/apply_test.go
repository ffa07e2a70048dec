package command

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
)

var (
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// stateWith is a review loop state after two rounds, with a status,
// grants already given, and a pending new round.
func stateWith(status string, grants int, pending bool) *decide.State {
	st := decide.NewState(decide.Review, "review", 2)
	st.Rounds = []decide.RoundRecord{
		{N: 1, SHA: "aaa", Time: t0, Decision: decide.Fix},
		{N: 2, SHA: "bbb", Time: t0, Decision: decide.Escalate},
	}
	for i := 0; i < grants; i++ {
		st.Grants = append(st.Grants, decide.Grant{By: "bob", At: t0})
	}
	st.Status, st.NewRound = status, pending
	return st
}

func TestApplyEveryStatusAndVerb(t *testing.T) {
	t.Parallel()
	const maxRetries = 2
	type want struct {
		refused  bool
		newRound bool   // Effect.NewRound, and State.NewRound after
		status   string // status after
		grants   int    // grants after
		action   bool   // an action was recorded
		reply    string // a phrase of Effect.Reply
	}
	states := []struct {
		name  string
		state *decide.State
	}{
		{"open", stateWith(decide.StateOpen, 0, false)},
		{"open with a round requested", stateWith(decide.StateOpen, 1, true)},
		{"escalated", stateWith(decide.StateEscalated, 1, false)},
		{"escalated at the retry cap", stateWith(decide.StateEscalated, 2, false)},
		{"converged", stateWith(decide.StateConverged, 0, false)},
		{"approved", stateWith(decide.StateApproved, 0, false)},
		{"aborted", stateWith(decide.StateAborted, 0, false)},
		{"of unknown status", stateWith("paused", 0, false)},
		{"missing", nil},
	}
	cmds := []struct {
		name string
		cmd  Command
	}{
		{"retry", Command{Verb: Retry}},
		{"approve", Command{Verb: Approve}},
		{"abort", Command{Verb: Abort}},
		{"status", Command{Verb: Status}},
		{"help", Command{Verb: Help}},
		{"an unknown verb", Command{Verb: Help, Unknown: "merge"}},
	}
	wants := map[string]map[string]want{
		"open": {
			"retry":   {newRound: true, status: "open", action: true, reply: "A new round of loop `review` starts now."},
			"approve": {status: "approved", action: true, reply: "approved"},
			"abort":   {status: "aborted", action: true, reply: "aborted"},
		},
		"open with a round requested": {
			"retry":   {refused: true, newRound: true, status: "open", grants: 1, reply: "already requested"},
			"approve": {status: "approved", grants: 1, action: true},
			"abort":   {status: "aborted", grants: 1, action: true},
		},
		"escalated": {
			"retry":   {newRound: true, status: "open", grants: 2, action: true, reply: "(2 of 2 granted)"},
			"approve": {status: "approved", grants: 1, action: true},
			"abort":   {status: "aborted", grants: 1, action: true},
		},
		"escalated at the retry cap": {
			"retry":   {refused: true, status: "escalated", grants: 2, reply: "used its 2 extra round(s)"},
			"approve": {status: "approved", grants: 2, action: true},
			"abort":   {status: "aborted", grants: 2, action: true},
		},
		"converged": {
			"retry":   {refused: true, status: "converged", reply: "push a change"},
			"approve": {refused: true, status: "converged", reply: "nothing to approve"},
			"abort":   {refused: true, status: "converged", reply: "nothing to abort"},
		},
		"approved": {
			"retry":   {refused: true, status: "approved", reply: "nothing can restart it"},
			"approve": {refused: true, status: "approved"},
			"abort":   {refused: true, status: "approved"},
		},
		"aborted": {
			"retry":   {refused: true, status: "aborted"},
			"approve": {refused: true, status: "aborted"},
			"abort":   {refused: true, status: "aborted"},
		},
		"of unknown status": {
			"retry":   {refused: true, status: "paused", reply: "unknown status"},
			"approve": {refused: true, status: "paused"},
			"abort":   {refused: true, status: "paused"},
		},
		"missing": {
			"retry":   {refused: true, reply: "no state yet"},
			"approve": {refused: true},
			"abort":   {refused: true},
			"status":  {refused: true, reply: "no report yet"},
		},
	}
	for _, s := range states {
		for _, c := range cmds {
			t.Run(s.name+" loop, "+c.name, func(t *testing.T) {
				t.Parallel()
				w, listed := wants[s.name][c.name]
				if !listed { // status and help change nothing
					w = want{}
					if s.state != nil {
						w.status, w.grants, w.newRound = s.state.Status, len(s.state.Grants), s.state.NewRound
					}
					w.refused = c.cmd.Unknown != ""
				}
				var before string
				if s.state != nil {
					before = encode(t, s.state)
				}
				eff := Apply(s.state, c.cmd, "alice", now, maxRetries)

				if eff.Refused != w.refused {
					t.Errorf("Refused = %v, want %v (reply %q)", eff.Refused, w.refused, eff.Reply)
				}
				if eff.Reply == "" || !strings.Contains(eff.Reply, w.reply) {
					t.Errorf("Reply = %q, want it to say %q", eff.Reply, w.reply)
				}
				if s.state == nil {
					if eff.State != nil || eff.NewRound || eff.Action != nil {
						t.Errorf("Apply on no state = %+v, want no state, round or action", eff)
					}
					return
				}
				if got := encode(t, s.state); got != before {
					t.Errorf("Apply changed its input state:\n%s", cmp.Diff(before, got))
				}
				if eff.State == s.state {
					t.Error("Effect.State is the input state, want a copy")
				}
				if start := w.newRound && w.action; eff.NewRound != start {
					t.Errorf("Effect.NewRound = %v, want %v", eff.NewRound, start)
				}
				if eff.State.NewRound != w.newRound {
					t.Errorf("State.NewRound = %v, want %v", eff.State.NewRound, w.newRound)
				}
				if eff.State.Status != w.status {
					t.Errorf("status %q, want %q", eff.State.Status, w.status)
				}
				if len(eff.State.Grants) != w.grants {
					t.Errorf("%d grants, want %d", len(eff.State.Grants), w.grants)
				}
				if w.grants > len(s.state.Grants) {
					if diff := cmp.Diff(decide.Grant{By: "alice", At: now}, eff.State.Grants[w.grants-1]); diff != "" {
						t.Errorf("new grant (-want +got):\n%s", diff)
					}
				}
				wantActions := append([]decide.Action(nil), s.state.Actions...)
				if w.action {
					act := decide.Action{Command: string(c.cmd.Verb), By: "alice", At: now}
					wantActions = append(wantActions, act)
					if diff := cmp.Diff(&act, eff.Action); diff != "" {
						t.Errorf("Effect.Action (-want +got):\n%s", diff)
					}
				} else if eff.Action != nil {
					t.Errorf("Effect.Action = %+v, want none", eff.Action)
				}
				if diff := cmp.Diff(wantActions, eff.State.Actions); diff != "" {
					t.Errorf("State.Actions (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(s.state.Rounds, eff.State.Rounds); diff != "" {
					t.Errorf("rounds changed (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func encode(t *testing.T, st *decide.State) string {
	t.Helper()
	var b strings.Builder
	if err := st.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestApplyRetryCaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		maxRetries int
		grants     int
		refused    bool
	}{
		{"no retries allowed refuses the first", 0, 0, true},
		{"a negative cap counts as none", -1, 0, true},
		{"one allowed grants the first", 1, 0, false},
		{"one allowed refuses the second", 1, 1, true},
		{"grants above the cap are refused", 1, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eff := Apply(stateWith(decide.StateEscalated, tt.grants, false), Command{Verb: Retry}, "alice", now, tt.maxRetries)
			if eff.Refused != tt.refused {
				t.Errorf("Refused = %v, want %v (%s)", eff.Refused, tt.refused, eff.Reply)
			}
		})
	}
}

func TestApplyRetryThenRecordStartsANewRoundOnTheSameSha(t *testing.T) {
	t.Parallel()
	eff := Apply(stateWith(decide.StateEscalated, 0, false), Command{Verb: Retry}, "alice", now, 1)
	if eff.Refused {
		t.Fatal(eff.Reply)
	}
	if n, _ := eff.State.Next("bbb"); n != 3 {
		t.Errorf("after a retry, Next(same sha) = round %d, want 3", n)
	}
	eff.State.Record(decide.RoundRecord{N: 3, SHA: "bbb", Decision: decide.Fix})
	if n, _ := eff.State.Next("bbb"); n != 3 {
		t.Errorf("after the retried round ran, Next(same sha) = round %d, want 3 (a re-run)", n)
	}
	again := Apply(eff.State, Command{Verb: Retry}, "alice", now, 1)
	if again.Refused || again.State.NewRound != true || len(again.State.Grants) != 1 {
		t.Errorf("a retry on the reopened loop = %+v, want a new round without a grant", again)
	}
}

func TestApplyRefusesAMissingActor(t *testing.T) {
	t.Parallel()
	if eff := Apply(stateWith(decide.StateOpen, 0, false), Command{Verb: Abort}, "", now, 1); !eff.Refused {
		t.Errorf("Apply without an actor = %+v, want refused", eff)
	}
}

func TestApplyRefusesAVerbItDoesNotKnow(t *testing.T) {
	t.Parallel()
	eff := Apply(stateWith(decide.StateOpen, 0, false), Command{Verb: "merge<b>"}, "alice", now, 1)
	if !eff.Refused || strings.Contains(eff.Reply, "<b>") {
		t.Errorf("Apply(merge<b>) = %+v, want refused with the word escaped", eff)
	}
}

func TestApplyStatusSaysWhereTheLoopIs(t *testing.T) {
	t.Parallel()
	eff := Apply(stateWith(decide.StateEscalated, 1, false), Command{Verb: Status}, "alice", now, 1)
	want := "Loop `review` is escalated after round 2 of 3 (1 extra round(s) granted)."
	if eff.Reply != want {
		t.Errorf("status reply %q, want %q", eff.Reply, want)
	}
	eff = Apply(decide.NewState(decide.Coverage, "coverage", 3), Command{Verb: Status}, "alice", now, 1)
	if want := "Loop `coverage` is open, no round yet."; eff.Reply != want {
		t.Errorf("status reply %q, want %q", eff.Reply, want)
	}
}

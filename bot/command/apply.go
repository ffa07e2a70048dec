package command

import (
	"fmt"
	"time"

	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// Effect is what a command does to one loop.
type Effect struct {
	// State is the loop's state after the command: always a copy, never
	// the state given to Apply; unchanged when Refused. Nil when there
	// was no state.
	State *decide.State
	// NewRound asks the caller to start a round now (workflow_dispatch);
	// State.NewRound is then set so that the run starts a new round even on
	// the same head sha.
	NewRound bool
	// Reply is a short markdown sentence: the reason when Refused, else
	// what happened. Every word a user typed in it is escaped.
	Reply string
	// Refused means nothing changed; react 😕 and post Reply(…).
	Refused bool
	// Action is the record of who did what and when, also appended to
	// State.Actions; nil when nothing changed.
	Action *decide.Action
}

// Apply applies an authorized command to a loop's state. It is pure: st is
// not modified and now is the only clock: the time the command was given
// (its comment's creation time), recorded in the action and the grant,
// so that a replayed or late command older than it is ignored (Older).
//
//   - retry on an open loop starts a new round now, spending one of the
//     loop's own max_rounds, so it takes no grant and does not count
//     toward maxRetries; while a requested round has not run yet, another
//     retry is refused (no double dispatch). On an escalated loop it
//     grants one extra round (a decide.Grant with who and when), reopens
//     the loop and starts the round; at most maxRetries grants per loop
//     (negative counts as 0), then it is refused.
//   - approve turns an escalated or open loop into approved.
//   - abort turns an escalated or open loop into aborted.
//   - status and help change nothing.
//
// Converged, approved and aborted loops are final: retry, approve and
// abort are refused there with the reason, as they are on a missing state
// or an unknown status. A help command carrying an unknown word or a bad
// loop id is refused too, so that the commenter sees 😕 and the list.
func Apply(st *decide.State, cmd Command, actor string, now time.Time, maxRetries int) Effect {
	next := cloneState(st)
	refuse := func(format string, args ...any) Effect {
		return Effect{State: next, Refused: true, Reply: fmt.Sprintf(format, args...)}
	}
	switch cmd.Verb {
	case Help:
		if cmd.Unknown != "" || cmd.BadLoopID != "" {
			return Effect{State: next, Refused: true, Reply: unknownText(cmd)}
		}
		return Effect{State: next, Reply: "Here are the commands."}
	case Status:
		if st == nil {
			return refuse("%s has no report yet: no round has run.", loopName(cmd.LoopID))
		}
		return Effect{State: next, Reply: statusText(st)}
	case Retry, Approve, Abort:
	default:
		return refuse("%s is not a command.", code("/gc "+string(cmd.Verb)))
	}
	if st == nil {
		return refuse("%s has no state yet: no round has run.", loopName(cmd.LoopID))
	}
	if actor == "" {
		return refuse("the command has no author.")
	}
	name := code(st.ID)
	switch st.Status {
	case decide.StateOpen, decide.StateEscalated:
	case decide.StateConverged, decide.StateApproved, decide.StateAborted:
		return refuse("loop %s is %s; %s", name, st.Status, finalHint(cmd.Verb, st.Status))
	default:
		return refuse("loop %s has an unknown status %s.", name, report.EscapeInline(st.Status))
	}
	act := decide.Action{Command: string(cmd.Verb), By: actor, At: now}
	switch cmd.Verb {
	case Retry:
		if st.Status == decide.StateOpen {
			if st.NewRound {
				return refuse("a new round of loop %s is already requested and has not run yet.", name)
			}
		} else {
			limit := max(maxRetries, 0)
			if len(st.Grants) >= limit {
				return refuse("loop %s has used its %d extra round(s) after an escalation (commands.max_retries); approve or abort it instead.", name, limit)
			}
			next.Grants = append(next.Grants, decide.Grant{By: actor, At: now})
			next.Status = decide.StateOpen
		}
		next.NewRound = true
	case Approve:
		next.Status, next.NewRound = decide.StateApproved, false
	case Abort:
		next.Status, next.NewRound = decide.StateAborted, false
	}
	next.Actions = append(next.Actions, act)
	eff := Effect{State: next, NewRound: cmd.Verb == Retry, Action: &act}
	switch {
	case cmd.Verb == Retry && st.Status == decide.StateEscalated:
		eff.Reply = fmt.Sprintf("Loop %s reopened with one extra round (%d of %d granted); the next round starts now.", name, len(next.Grants), max(maxRetries, 0))
	case cmd.Verb == Retry:
		eff.Reply = fmt.Sprintf("A new round of loop %s starts now.", name)
	case cmd.Verb == Approve:
		eff.Reply = fmt.Sprintf("Loop %s approved.", name)
	default:
		eff.Reply = fmt.Sprintf("Loop %s aborted.", name)
	}
	return eff
}

// finalHint says what can still be done with a loop in a final status.
func finalHint(v Verb, status string) string {
	switch {
	case v == Retry && status == decide.StateConverged:
		return "push a change to start a new round."
	case v == Retry:
		return "nothing can restart it."
	default:
		return "there is nothing to " + string(v) + "."
	}
}

// statusText sums a loop's state up in one sentence.
func statusText(st *decide.State) string {
	s := fmt.Sprintf("Loop %s is %s", code(st.ID), report.EscapeInline(st.Status))
	if last := st.Last(); last != nil {
		s += fmt.Sprintf(" after round %d of %d", last.N, st.MaxRounds+len(st.Grants))
	} else {
		s += ", no round yet"
	}
	if n := len(st.Grants); n > 0 {
		s += fmt.Sprintf(" (%d extra round(s) granted)", n)
	}
	return s + "."
}

// unknownText words a help command that came from a mistake.
func unknownText(cmd Command) string {
	if cmd.BadLoopID != "" {
		return fmt.Sprintf("“%s” is not a loop id (letters, digits, '.', '_' and '-', at most 64).", report.EscapeInline(cmd.BadLoopID))
	}
	return fmt.Sprintf("“%s” is not a command.", report.EscapeInline(cmd.Unknown))
}

// loopName names a loop for a sentence: "loop `id`" or "this PR".
func loopName(id string) string {
	if id == "" {
		return "this PR"
	}
	return "loop " + code(id)
}

// code puts text in a code span. Only for text made of verbs and valid
// loop ids, which hold no backticks; anything else is escaped.
func code(s string) string {
	if decide.ValidID(s) || isCommandText(s) {
		return "`" + s + "`"
	}
	return report.EscapeInline(s)
}

// isCommandText reports whether s is "/gc" and words of letters, digits,
// '.', '_' and '-'.
func isCommandText(s string) bool {
	if len(s) < 3 || s[:3] != "/gc" {
		return false
	}
	for _, r := range s[3:] {
		if r != ' ' && r != '.' && r != '_' && r != '-' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// cloneState copies a state deeply enough that changing the copy's
// status, flags, grants and actions leaves the original alone.
func cloneState(st *decide.State) *decide.State {
	if st == nil {
		return nil
	}
	c := *st
	c.Grants = append([]decide.Grant{}, st.Grants...)
	if st.Actions != nil {
		c.Actions = append([]decide.Action{}, st.Actions...)
	}
	c.Rounds = append([]decide.RoundRecord{}, st.Rounds...)
	return &c
}

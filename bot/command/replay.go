package command

import (
	"strings"
	"time"

	"github.com/gcloop/gcloop/decide"
)

// Why a command that passed Filter is ignored when its comment is read
// again just before it acts (a late, replayed or redelivered delivery).
const (
	IgnoredGone    = "the comment was deleted after it was delivered"
	IgnoredEdited  = "the comment was edited after it was delivered"
	IgnoredOlder   = "the comment is older than the last command the loop applied"
	IgnoredApplied = "the loop already applied this command (a redelivery)"
)

// Reread is a command's comment as read again before the command acts.
type Reread struct {
	// Gone is a comment that is no longer there (404).
	Gone             bool
	Body             string
	Created, Updated time.Time
}

// Current says why the command of ev is ignored now that its comment was
// read again as r: deleted since the delivery, or edited — its body is
// not the body delivered, or it was updated after it was created. ""
// means the comment is as delivered.
func Current(ev Event, r Reread) string {
	switch {
	case r.Gone:
		return IgnoredGone
	case r.Body != ev.Body:
		return IgnoredEdited
	case !r.Created.IsZero() && r.Updated.After(r.Created):
		return IgnoredEdited
	}
	return ""
}

// Older says why a command given at (its comment's creation time) by
// author is ignored against the last command st applied: one given
// before it, or the same command by the same author at the same time (a
// redelivery of the comment that applied it). "" means it may act. A
// command whose time is unknown, or a loop that applied none, is never
// older.
//
// State records a command's time to the second, as GitHub gives
// comment times: two different commands in the same second are both
// applied, and the same command twice by one author in one second is
// applied once.
func Older(st *decide.State, cmd Command, author string, at time.Time) string {
	if st == nil || len(st.Actions) == 0 || at.IsZero() {
		return ""
	}
	last := st.Actions[len(st.Actions)-1]
	switch {
	case at.Before(last.At):
		return IgnoredOlder
	case at.Equal(last.At) && last.Command == string(cmd.Verb) && strings.EqualFold(last.By, author):
		return IgnoredApplied
	}
	return ""
}

package command

import (
	"testing"
	"time"

	"github.com/gcloop/gcloop/decide"
)

func TestCurrentIgnoresCommentsChangedSinceTheDelivery(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ev := Event{Body: "/gc abort"}
	tests := []struct {
		name string
		r    Reread
		want string
	}{
		{"as delivered", Reread{Body: "/gc abort", Created: t0, Updated: t0}, ""},
		{"as delivered, no times given", Reread{Body: "/gc abort"}, ""},
		{"deleted", Reread{Gone: true}, IgnoredGone},
		{"another body", Reread{Body: "/gc retry", Created: t0, Updated: t0.Add(time.Second)}, IgnoredEdited},
		{"edited back to the same body", Reread{Body: "/gc abort", Created: t0, Updated: t0.Add(time.Minute)}, IgnoredEdited},
	}
	for _, tt := range tests {
		if got := Current(ev, tt.r); got != tt.want {
			t.Errorf("%s: Current = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestOlderIgnoresCommandsBeforeTheLastApplied(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	st := decide.NewState(decide.Review, "review", 3)
	st.Actions = []decide.Action{{Command: "retry", By: "lead", At: t0.Add(-time.Hour)}, {Command: "abort", By: "Lead", At: t0}}
	abort, retry := Command{Verb: Abort}, Command{Verb: Retry}
	tests := []struct {
		name   string
		st     *decide.State
		cmd    Command
		author string
		at     time.Time
		want   string
	}{
		{"a later command acts", st, retry, "lead", t0.Add(time.Second), ""},
		{"an earlier command is ignored", st, retry, "lead", t0.Add(-time.Second), IgnoredOlder},
		{"the applied command delivered again is ignored", st, abort, "lead", t0, IgnoredApplied},
		{"another command in the same second acts", st, retry, "lead", t0, ""},
		{"the same command by another author in the same second acts", st, abort, "other", t0, ""},
		{"an unknown time is never older", st, retry, "lead", time.Time{}, ""},
		{"a loop that applied nothing", decide.NewState(decide.Review, "review", 3), retry, "lead", t0, ""},
		{"no state", nil, retry, "lead", t0, ""},
	}
	for _, tt := range tests {
		if got := Older(tt.st, tt.cmd, tt.author, tt.at); got != tt.want {
			t.Errorf("%s: Older = %q, want %q", tt.name, got, tt.want)
		}
	}
}

package command

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilter(t *testing.T) {
	t.Parallel()
	base := Event{Action: "created", CommentID: 7, Body: "/gc retry", Author: "alice", AuthorType: "User", IsPR: true, Owner: "o", Repo: "r", Number: 3}
	with := func(f func(*Event)) Event { ev := base; f(&ev); return ev }
	tests := []struct {
		name string
		ev   Event
		want Command
		why  string
		ok   bool
	}{
		{"a created comment by a user on a PR runs", base, Command{Verb: Retry, Line: 1}, "", true},
		{"an edited comment is ignored", with(func(e *Event) { e.Action = "edited" }), Command{}, IgnoredAction, false},
		{"a deleted comment is ignored", with(func(e *Event) { e.Action = "deleted" }), Command{}, IgnoredAction, false},
		{"a comment on an issue is ignored", with(func(e *Event) { e.IsPR = false }), Command{}, IgnoredNotPR, false},
		{"a comment without an author is ignored", with(func(e *Event) { e.Author = " " }), Command{}, IgnoredNoAuthor, false},
		{"a bot by type is ignored", with(func(e *Event) { e.Author = "helper"; e.AuthorType = "Bot" }), Command{}, IgnoredBot, false},
		{"a bot by login is ignored", with(func(e *Event) { e.Author = "github-actions[bot]" }), Command{}, IgnoredBot, false},
		{"a bot login in capitals is ignored", with(func(e *Event) { e.Author = "Renovate[BOT]" }), Command{}, IgnoredBot, false},
		{"the guards run in order: an edit by a bot is an edit", with(func(e *Event) { e.Action = "edited"; e.AuthorType = "Bot" }), Command{}, IgnoredAction, false},
		{"a quoted command is no command", with(func(e *Event) { e.Body = "> /gc retry" }), Command{}, IgnoredNoCommand, false},
		{"a help request passes", with(func(e *Event) { e.Body = "/gc" }), Command{Verb: Help, Line: 1}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, why, ok := Filter(tt.ev)
			if ok != tt.ok || why != tt.why {
				t.Errorf("Filter() why = %q, ok = %v; want %q, %v", why, ok, tt.why, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Filter() (-want +got):\n%s", diff)
			}
		})
	}
}

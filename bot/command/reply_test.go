package command

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
)

func TestReply(t *testing.T) {
	t.Parallel()
	ev := Event{Action: "created", Author: "alice", AuthorType: "User", IsPR: true}
	converged := stateWith(decide.StateConverged, 0, false)
	tests := []struct {
		name string
		ev   Event
		body string
		eff  func(Command) Effect
		want string
	}{
		{
			"a refusal names the command and the reason",
			ev, "/gc retry review",
			func(c Command) Effect { return Apply(converged, c, "alice", now, 1) },
			"@alice 😕 `/gc retry review` was not run: loop `review` is converged; push a change to start a new round.",
		},
		{
			"a refusal for lack of permission",
			ev, "/gc approve",
			func(Command) Effect { return Unauthorized("triage", "write") },
			"@alice 😕 `/gc approve` was not run: it needs the **write** role on this repository, and you have **triage**.",
		},
		{
			"a refusal with levels it does not know says none and write",
			ev, "/gc retry",
			func(Command) Effect { return Unauthorized("owner", "root") },
			"@alice 😕 `/gc retry` was not run: it needs the **write** role on this repository, and you have **none**.",
		},
		{
			"a refusal for a loop the PR does not have",
			ev, "/gc abort review",
			func(Command) Effect { return UnknownLoop("review", []string{"coverage", "audit_2"}) },
			"@alice 😕 `/gc abort review` was not run: this PR has no loop `review` (its loops: `coverage`, `audit_2`).",
		},
		{
			"a failure in plain words",
			ev, "/gc retry",
			func(Command) Effect { return Failed("GitHub is not answering; try again in a minute") },
			"@alice 😕 `/gc retry` was not run: GitHub is not answering; try again in a minute",
		},
		{
			"a command that ran needs no reply",
			ev, "/gc abort",
			func(c Command) Effect { return Apply(stateWith(decide.StateOpen, 0, false), c, "alice", now, 1) },
			"",
		},
		{
			"status needs no reply: the report is refreshed",
			ev, "/gc status",
			func(c Command) Effect { return Apply(converged, c, "alice", now, 1) },
			"",
		},
		{
			"help lists the commands",
			ev, "/gc help",
			func(c Command) Effect { return Apply(nil, c, "alice", now, 1) },
			"@alice " + HelpText(nil),
		},
		{
			"an unknown verb is escaped and followed by the help",
			ev, "/gc *merge*",
			func(c Command) Effect { return Apply(nil, c, "alice", now, 1) },
			"@alice 😕 “\\*merge\\*” is not a command.\n\n" + HelpText(nil),
		},
		{
			"a bad loop id is escaped and followed by the help",
			ev, "/gc retry <img>",
			func(c Command) Effect { return Apply(nil, c, "alice", now, 1) },
			"@alice 😕 “&lt;img&gt;” is not a loop id (letters, digits, '.', '_' and '-', at most 64).\n\n" + HelpText(nil),
		},
		{
			"an author that is no login is not mentioned",
			Event{Author: "x <b>"}, "/gc help",
			func(c Command) Effect { return Apply(nil, c, "x <b>", now, 1) },
			HelpText(nil),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd, ok := Parse(tt.body)
			if !ok {
				t.Fatalf("Parse(%q) found no command", tt.body)
			}
			if diff := cmp.Diff(tt.want, Reply(tt.ev, cmd, tt.eff(cmd), nil)); diff != "" {
				t.Errorf("Reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplyNeverPingsOrInjects(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"/gc @everyone", "/gc <!--", "/gc gcloop:state", "/gc retry @org/team",
		"/gc `x`", "/gc [x](javascript:alert(1))", "/gc #1", "/gc |a|b|",
	} {
		cmd, _ := Parse(body)
		got := Reply(Event{Author: "alice"}, cmd, Apply(nil, cmd, "alice", now, 1), nil)
		for _, bad := range []string{"@everyone", "<!--", "gcloop:state", "@org", "`x`", "javascript:", " #1", "|a|"} {
			if strings.Contains(got, bad) {
				t.Errorf("Reply to %q holds %q:\n%s", body, bad, got)
			}
		}
	}
}

func TestHelpTextListsEveryVerb(t *testing.T) {
	t.Parallel()
	help := HelpText(nil)
	for _, v := range Verbs {
		if !strings.Contains(help, "`/gc "+string(v)) {
			t.Errorf("help does not list %s:\n%s", v, help)
		}
	}
}

package command

import (
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// helpLines describe the verbs, in the order of Verbs.
var helpLines = map[Verb]string{
	Retry:   "start a new round now; after an escalation, grant one extra round (capped per loop by `commands.max_retries`)",
	Approve: "approve an escalated loop",
	Abort:   "stop the loop",
	Status:  "refresh the report",
	Help:    "show this list",
}

// HelpText lists the commands in markdown, and who may run them (see
// Who).
func HelpText(who Who) string {
	var b strings.Builder
	b.WriteString("**gcloop commands** — on a line of their own; add a loop id to pick one loop, as in `/gc retry coverage`:\n\n")
	for _, v := range Verbs {
		arg := " [loop]"
		if v == Help {
			arg = ""
		}
		fmt.Fprintf(&b, "- `/gc %s%s` — %s\n", v, arg, helpLines[v])
	}
	b.WriteString("\n" + who.String() + "\n")
	return b.String()
}

// loginRE matches a GitHub user login, which is safe to mention.
var loginRE = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// Reply is the markdown comment that answers a command, or "" when the
// reactions say enough (a command that ran: 🚀). A refusal (😕) is
// addressed to the commenter and says which command was not run and why;
// help lists the commands and who may run them (who), after the reason
// when the command was mistyped. Everything the user typed is escaped or was validated.
func Reply(ev Event, cmd Command, eff Effect, who Who) string {
	var b strings.Builder
	if loginRE().MatchString(ev.Author) {
		b.WriteString("@" + ev.Author + " ")
	}
	switch {
	case cmd.Verb == Help && eff.Refused:
		fmt.Fprintf(&b, "😕 %s\n\n%s", eff.Reply, HelpText(who))
	case eff.Refused:
		fmt.Fprintf(&b, "😕 %s was not run: %s", code(commandText(cmd)), eff.Reply)
	case cmd.Verb == Help:
		b.WriteString(HelpText(who))
	default:
		return ""
	}
	return b.String()
}

// commandText writes a command back as typed, minus extra words.
func commandText(cmd Command) string {
	s := "/gc " + string(cmd.Verb)
	if cmd.LoopID != "" {
		s += " " + cmd.LoopID
	}
	return s
}

// Unauthorized is the refusal of a command by a user whose repository
// role (from Authorize) is below min.
func Unauthorized(level, min string) Effect {
	if rank(level) < 0 {
		level = "none"
	}
	if rank(min) < 0 {
		min = "write"
	}
	return Effect{Refused: true, Reply: fmt.Sprintf("it needs the **%s** role on this repository, and you have **%s**.", min, level)}
}

// UnknownLoop is the refusal of a command naming a loop id that has no
// state on the PR; known lists the loop ids that do.
func UnknownLoop(id string, known []string) Effect {
	msg := fmt.Sprintf("this PR has no loop %s", code(id))
	if len(known) > 0 {
		names := make([]string, len(known))
		for i, k := range known {
			names[i] = code(k)
		}
		msg += " (its loops: " + strings.Join(names, ", ") + ")"
	}
	return Effect{Refused: true, Reply: msg + "."}
}

// Failed is the refusal of a command that could not be carried out; why
// is a short sentence meant for users, with no internal details. It is
// escaped.
func Failed(why string) Effect {
	return Effect{Refused: true, Reply: report.EscapeInline(why)}
}

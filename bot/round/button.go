package round

import (
	"context"
	"fmt"
	"time"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/command"
)

// Button is a click on a button of a loop's check run: a check_run
// webhook with action requested_action.
type Button struct {
	// Identifier is the button's (check.ActionRetry, check.ActionApprove).
	Identifier string
	// LoopID is the loop whose check run carries the button.
	LoopID string
	// Sender is the login of who clicked, SenderType GitHub's type of that
	// account ("User", "Bot").
	Sender, SenderType string
	// PR is the pull request of the check run.
	PR int
}

// buttonVerbs are the commands gcloop's buttons stand for.
var buttonVerbs = map[string]command.Verb{check.ActionRetry: command.Retry, check.ActionApprove: command.Approve}

// Press carries out a click on a check run's button exactly as the /gc
// command of the same verb: the same permission check (the
// collaborator-permission API on the sender), the same state changes,
// dispatch, retry cap and effects (engine's carryOut). Only the answer
// differs: there is no comment to react to or reply on, so a refusal
// writes nothing to GitHub — it is in the result (CommandResult.Refused
// and Reply) for the driver's feed and log. The command's time is the
// engine's clock at the click's delivery; the same click handled again
// (its delivery tried again) is told from the state: the loop's last
// command, by the same person, with the loop as it left it — ignored,
// and what follows from an approve carried out again.
func (e *Engine) Press(ctx context.Context, b Button) (*Result, error) {
	res := &Result{}
	verb, ok := buttonVerbs[b.Identifier]
	switch {
	case !ok:
		res.Notes = append(res.Notes, fmt.Sprintf("check run button %q is none of gcloop's: nothing done", b.Identifier))
		return res, nil
	case b.Sender == "" || command.IsBot(b.Sender, b.SenderType):
		res.Notes = append(res.Notes, fmt.Sprintf("check run button %q clicked by %q: bots never run commands", b.Identifier, b.Sender))
		return res, nil
	}
	cmd := command.Command{Verb: verb, LoopID: b.LoopID}
	cr := &CommandResult{Command: cmd, Author: b.Sender, LoopID: b.LoopID, Button: b.Identifier}
	res.Command = cr
	refuse := func(eff command.Effect) error {
		cr.Reply = eff.Reply
		res.Notes = append(res.Notes, fmt.Sprintf("check run button %q (/gc %s) by @%s refused: %s", b.Identifier, verb, b.Sender, eff.Reply))
		e.log().Printf("button: %s on loop %s by @%s refused: %s", b.Identifier, b.LoopID, b.Sender, eff.Reply)
		return nil
	}
	g := giver{author: b.Sender, number: b.PR, at: e.Now().UTC().Truncate(time.Second), start: func() {}, refuse: refuse, done: func() {}, untimed: true}
	return e.carryOut(ctx, res, cmd, b.LoopID, g)
}

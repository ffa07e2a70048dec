package round

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// CommandResult is what a /gc command did.
type CommandResult struct {
	Command command.Command
	Author  string
	Refused bool
	// LoopID is the loop the command went to: the one it names, else the
	// one the driver runs ("" when none could be told).
	LoopID string
	// Ignored says why a command was ignored without a reaction: its
	// comment is gone, was edited since the delivery, or is older than the
	// last command the loop applied.
	Ignored    string
	Reply      string // the reply comment posted, if any
	Dispatched bool
	State      *decide.State
	// Button is the identifier of the check run button that gave the
	// command; "" for a /gc comment.
	Button string
}

// Command handles the /gc command of an issue_comment event: guards; the
// comment read again (gone, edited since the delivery, or older than the
// last command the loop applied → ignored, without a reaction); then
// permission through the collaborator-permission API, then the command,
// with reactions 👀 on start, 🚀 when done and 😕 with a reply on refusal.
// The report comment is written with a compare-and-swap: when a round or
// another command wrote it meanwhile, the command is applied again to
// what it holds now (at most maxPlans times).
func (e *Engine) Command(ctx context.Context) (*Result, error) {
	c := e.Event.Comment
	ev := command.Event{
		Action: c.GetAction(), CommentID: c.GetComment().GetID(), Body: c.GetComment().GetBody(),
		Author: c.GetComment().GetUser().GetLogin(), AuthorType: c.GetComment().GetUser().GetType(),
		IsPR: c.GetIssue() != nil && c.GetIssue().IsPullRequest(), Owner: e.Event.Owner, Repo: e.Event.Repo, Number: c.GetIssue().GetNumber(),
	}
	res := &Result{}
	cmd, why, ok := command.Filter(ev)
	if !ok {
		res.Notes = append(res.Notes, "no command run: "+why)
		return res, nil
	}
	cr := &CommandResult{Command: cmd, Author: ev.Author}
	res.Command = cr
	id := e.Opts.ID
	if id == "" {
		id = string(e.Opts.Loop)
	}
	if cmd.LoopID != "" && id != "" && cmd.LoopID != id {
		res.Notes = append(res.Notes, fmt.Sprintf("the command is for loop %s; this workflow runs %s", cmd.LoopID, id))
		res.Command = nil
		return res, nil
	}
	if cmd.LoopID != "" {
		id = cmd.LoopID
	}
	cr.LoopID = id
	ignore := func(why string) (*Result, error) {
		cr.Ignored = why
		res.Notes = append(res.Notes, fmt.Sprintf("/gc %s by @%s ignored: %s", cmd.Verb, ev.Author, why))
		e.log().Printf("command: /gc %s by @%s (comment %d) ignored: %s", cmd.Verb, ev.Author, ev.CommentID, why)
		return res, nil
	}
	// The comment again, as it is now: the delivery may be late, replayed
	// or redelivered.
	at, why, err := e.reread(ctx, ev)
	if err != nil {
		return res, err
	}
	if why != "" {
		return ignore(why)
	}
	started := false
	start := func() {
		if !started {
			started = true
			e.react(ctx, res, ev.CommentID, command.Eyes)
		}
	}
	refuse := func(eff command.Effect) error {
		start()
		cr.Refused = true
		cr.Reply = command.Reply(ev, cmd, eff, nil)
		if err := e.reply(ctx, res, ev, cr.Reply, at); err != nil {
			return err
		}
		e.react(ctx, res, ev.CommentID, command.Confused)
		return nil
	}
	if cmd.Verb == command.Help {
		// /gc help, and any /gc line that is no command: the list and who
		// may run it, for anyone, before any loop or permission is read.
		start()
		eff := command.Apply(nil, cmd, ev.Author, at, 0)
		cr.Refused = eff.Refused
		cr.Reply = command.Reply(ev, cmd, eff, e.who(ctx))
		if err := e.reply(ctx, res, ev, cr.Reply, at); err != nil {
			return res, err
		}
		e.react(ctx, res, ev.CommentID, map[bool]string{false: command.Rocket, true: command.Confused}[eff.Refused])
		return res, nil
	}
	return e.carryOut(ctx, res, cmd, id, giver{author: ev.Author, number: ev.Number, at: at, start: start, refuse: refuse,
		done: func() { e.react(ctx, res, ev.CommentID, command.Rocket) }})
}

// giver is who gave a command, where, and how it is answered there: a
// comment gets reactions and a reply, a check run's button a note.
type giver struct {
	author string
	number int       // the pull request
	at     time.Time // when the command was given, to the second
	start  func()    // the command is being handled
	// refuse says why the command was refused; an error is a failure to
	// say it.
	refuse func(command.Effect) error
	done   func() // the command was carried out
	// untimed: GitHub gave the command no time of its own (a button's
	// click); at is when it was handled, so the same click handled again
	// is told by the state (repeated), not by its time.
	untimed bool
}

// repeated reports whether the loop's last applied command is cmd by
// author and the loop is still as it left it: an untimed command handled
// again (its delivery tried again after an effect failed).
func repeated(st *decide.State, cmd command.Command, author string) bool {
	if st == nil || len(st.Actions) == 0 {
		return false
	}
	last := st.Actions[len(st.Actions)-1]
	if last.Command != string(cmd.Verb) || !strings.EqualFold(last.By, author) {
		return false
	}
	switch cmd.Verb {
	case command.Retry:
		return st.Status == decide.StateOpen && st.NewRound
	case command.Approve:
		return st.Status == decide.StateApproved
	case command.Abort:
		return st.Status == decide.StateAborted
	}
	return false
}

// ignored records a command ignored without an answer.
func (e *Engine) ignored(res *Result, cmd command.Command, g giver, why string) (*Result, error) {
	res.Command.Ignored = why
	res.Notes = append(res.Notes, fmt.Sprintf("/gc %s by @%s ignored: %s", cmd.Verb, g.author, why))
	e.log().Printf("command: /gc %s by @%s on #%d ignored: %s", cmd.Verb, g.author, g.number, why)
	return res, nil
}

// carryOut authorizes and carries out a command on loop id of the pull
// request g names: the same path, the same checks and the same effects
// whether the command came from a /gc comment or a check run's button.
func (e *Engine) carryOut(ctx context.Context, res *Result, cmd command.Command, id string, g giver) (*Result, error) {
	cr := res.Command
	refuse := func(eff command.Effect) (*Result, error) {
		g.start()
		cr.Refused = true
		return res, g.refuse(eff)
	}
	if id == "" {
		return refuse(command.Failed("this workflow runs no fixed loop: name one, as in /gc retry review"))
	}
	pr, err := e.GH.Pull(ctx, g.number)
	if errors.Is(err, ErrOffline) {
		g.start()
		res.Notes = append(res.Notes, fmt.Sprintf("dry run: would check @%s's permission and run /gc %s on loop %s", g.author, cmd.Verb, id))
		return res, nil
	}
	if err != nil {
		return res, err
	}
	pull := PullFrom(pr)
	found, err := e.GH.FindReport(ctx, pull.Number, id)
	if err != nil {
		return res, fmt.Errorf("read the report comment: %w", err)
	}
	why := command.Older(found.State, cmd, g.author, g.at)
	if why == "" && g.untimed && repeated(found.State, cmd, g.author) {
		why = command.IgnoredApplied
	}
	if why != "" {
		if why == command.IgnoredApplied && (cmd.Verb == command.Approve || cmd.Verb == command.Abort) {
			// This very command again (a redelivery, or a retry after an
			// effect failed): the state has it, and what follows from it
			// — closed issues, the settled check — is carried out again.
			// Both are idempotent: nothing changed costs no write.
			e.closeSettled(ctx, res, pull, found.State)
			if e.Opts.Check {
				e.settleCheck(ctx, res, pull, found.State, cmd, g.author)
			}
		}
		return e.ignored(res, cmd, g, why)
	}
	g.start()
	if found.State == nil {
		return refuse(command.UnknownLoop(id, nil))
	}
	file, err := e.config(ctx, pull)
	if err != nil {
		return res, err
	}
	set, err := config.Resolve(found.State.Loop, id, file, e.Opts.Overrides)
	if err != nil {
		return res, err
	}
	res.Settings = set
	level, ok, err := e.GH.Permission(ctx, g.author, set.Permission)
	if err != nil {
		return res, fmt.Errorf("check @%s's permission: %w", g.author, err)
	}
	if !ok {
		return refuse(command.Unauthorized(level, set.Permission))
	}
	var eff command.Effect
	for plan := 1; ; plan++ {
		eff = command.Apply(found.State, cmd, g.author, g.at, set.MaxRetries)
		if eff.Refused {
			return refuse(eff)
		}
		cr.State = eff.State
		if eff.NewRound && !cr.Dispatched {
			switch {
			case set.Dispatch == "":
				eff.Reply += " No `dispatch` workflow is configured: push a commit or re-run the workflow to start it."
			case pull.Fork():
				eff.Reply += " The PR comes from a fork: its branch cannot be dispatched; re-run the workflow to start the round."
			default:
				if err := e.GH.Dispatch(ctx, set.Dispatch, pull.HeadRef, pull.Number); err != nil {
					return refuse(command.Failed("the next round could not be dispatched: " + ghclient.Explain(err)))
				}
				cr.Dispatched = true
			}
		}
		if eff.Action == nil && cmd.Verb != command.Status {
			break
		}
		body, err := withState(found.Comment.GetBody(), eff.State, banner(cmd, g.author, eff), e.scope(pull.Number), []byte(e.Opts.StateKey))
		if err != nil {
			return res, err
		}
		_, err = e.GH.UpsertReport(ctx, pull.Number, found.Comment, body)
		if errors.Is(err, report.ErrConflict) && plan < maxPlans {
			// A round or another command wrote the report meanwhile: apply
			// the command to what it holds now.
			e.log().Printf("command: /gc %s: %v; applied again to the report as it is now", cmd.Verb, err)
			if found, err = e.GH.FindReport(ctx, pull.Number, id); err != nil {
				return res, fmt.Errorf("read the report comment again: %w", err)
			}
			if why := command.Older(found.State, cmd, g.author, g.at); why != "" {
				return e.ignored(res, cmd, g, why)
			}
			if found.State == nil {
				return refuse(command.UnknownLoop(id, nil))
			}
			continue
		}
		if err != nil {
			return res, fmt.Errorf("update the report comment: %w", err)
		}
		break
	}
	if eff.Action != nil && (cmd.Verb == command.Approve || cmd.Verb == command.Abort) {
		e.closeSettled(ctx, res, pull, eff.State)
		if e.Opts.Check {
			e.settleCheck(ctx, res, pull, eff.State, cmd, g.author)
		}
	}
	g.done()
	return res, nil
}

// reply posts body, marked as the answer to the command's comment, unless
// gcloop answered that comment already: a redelivered event or a re-run
// of the workflow posts no second reply.
func (e *Engine) reply(ctx context.Context, res *Result, ev command.Event, body string, at time.Time) error {
	if body == "" {
		return nil
	}
	done, err := e.GH.Replied(ctx, ev.Number, ev.CommentID, at)
	if err != nil {
		return err
	}
	if done {
		res.Notes = append(res.Notes, fmt.Sprintf("comment %d is answered already: no second reply", ev.CommentID))
		return nil
	}
	return e.GH.Reply(ctx, ev.Number, command.Marked(body, ev.CommentID))
}

// who is who may run the commands, for the help: the configured
// `commands.permission` of the loop this driver runs, else of each loop
// the configuration (read from the default branch) names. A
// configuration that cannot be read leaves the default, write; the help
// is answered all the same.
func (e *Engine) who(ctx context.Context) command.Who {
	file, err := e.GH.Config(ctx, "", e.Opts.Config)
	if err != nil && !errors.Is(err, ErrOffline) {
		e.log().Printf("command: help: the configuration could not be read (%v); the default permission is shown", err)
		return nil
	}
	id := e.Opts.ID
	if id == "" {
		id = string(e.Opts.Loop)
	}
	if id != "" {
		loop := e.Opts.Loop
		if sec := file.Section(id); sec != nil {
			loop = sec.Loop
		}
		if set, err := config.Resolve(loop, id, file, e.Opts.Overrides); err == nil {
			return command.Who{{Min: set.Permission}}
		}
		return nil
	}
	var who command.Who
	for _, sec := range file.Sections() {
		if set, err := config.Resolve(sec.Loop, sec.ID, file, e.Opts.Overrides); err == nil {
			who = append(who, command.Role{LoopID: sec.ID, Min: set.Permission})
		}
	}
	if len(who) > 0 {
		who = append(who, command.Role{Min: config.DefaultPermission})
	}
	return who
}

// reread reads the command's comment again before it acts. It returns
// when the command was given (the comment's creation time, to the
// second) and why it is ignored ("" when it stands). A dry run reads
// nothing: the delivered comment's time stands, else the engine's clock.
func (e *Engine) reread(ctx context.Context, ev command.Event) (time.Time, string, error) {
	c, err := e.GH.Comment(ctx, ev.CommentID)
	switch {
	case errors.Is(err, ErrOffline):
		at := e.Event.Comment.GetComment().GetCreatedAt().Time
		if at.IsZero() {
			at = e.Now()
		}
		return at.UTC().Truncate(time.Second), "", nil
	case errors.Is(err, ErrGone):
		return time.Time{}, command.Current(ev, command.Reread{Gone: true}), nil
	case err != nil:
		return time.Time{}, "", fmt.Errorf("read the command's comment again: %w", err)
	}
	r := command.Reread{Body: c.GetBody(), Created: c.GetCreatedAt().Time, Updated: c.GetUpdatedAt().Time}
	at := r.Created
	if at.IsZero() {
		at = e.Now()
	}
	return at.UTC().Truncate(time.Second), command.Current(ev, r), nil
}

// bannerRE matches the command banner gcloop puts on top of a report,
// right after its header.
var bannerRE = lazyre.New(`\A<!-- gcloop:banner -->\n[^\n]*\n\n`)

// banner is the line that says which command last changed the loop.
func banner(cmd command.Command, author string, eff command.Effect) string {
	what := strings.TrimSuffix(eff.Reply, ".")
	return fmt.Sprintf("<!-- gcloop:banner -->\n> **`/gc %s`** by %s: %s.\n\n", cmd.Verb, report.EscapeInline("@"+author), what)
}

// withState puts the new state (sealed with key over scope, through
// report.ReplaceState, which owns the marker) and the banner, right after
// the header, into the report body.
func withState(body string, st *decide.State, top string, scope report.Scope, key []byte) (string, error) {
	body, err := report.ReplaceState(body, st, scope, key)
	if err != nil {
		return "", err
	}
	head := report.Header(st.ID)
	rest, ok := strings.CutPrefix(body, head)
	if !ok && !report.Legacy(body) {
		return "", fmt.Errorf("the report comment of %s does not start with its header", st.ID)
	}
	body = head + top + bannerRE().ReplaceAllString(rest, "")
	if err := report.CheckSize(body); err != nil {
		return "", fmt.Errorf("the report comment: %w", err)
	}
	return body, nil
}

// closeSettled closes the open fix issues of a loop /gc approve or
// /gc abort just settled: they stay closed, since a settled loop opens
// none. A failure is noted; the next run closes them.
func (e *Engine) closeSettled(ctx context.Context, res *Result, pull *Pull, st *decide.State) {
	last := st.Last()
	if last == nil || !openIssuesRecorded(st.Rounds) {
		return
	}
	spec := publish.SyncSpec{Owner: e.Event.Owner, Repo: e.Event.Repo, PR: pull.Number, LoopID: st.ID, Loop: st.Loop,
		Round: last.N, Converged: true, CloseNote: settledNote(st.Loop, st.ID, pull.Number, st.Status)}
	if _, err := e.GH.SyncIssues(ctx, spec); err != nil {
		res.Notes = append(res.Notes, "the fix issues could not all be closed (the next run retries): "+ghclient.Explain(err))
		res.incomplete(fmt.Errorf("close the fix issues: %w", err))
	}
}

// settleCheck turns the last round's check run into the loop's settled
// conclusion — success after /gc approve, failure after /gc abort — so
// that branch protection follows the maintainer's decision.
func (e *Engine) settleCheck(ctx context.Context, res *Result, pull *Pull, st *decide.State, cmd command.Command, author string) {
	last := st.Last()
	if last == nil {
		return
	}
	spec := check.Spec{Owner: e.Event.Owner, Repo: e.Event.Repo, SHA: last.SHA, LoopID: st.ID, Conclusion: check.Failure,
		Title: fmt.Sprintf("ABORTED by %s — round %d (%s)", author, last.N, st.ID), DetailsURL: e.Event.RunURL(), Now: e.Now()}
	if cmd.Verb == command.Approve {
		spec.Conclusion = check.Success
		spec.Title = fmt.Sprintf("CONVERGE (approved by %s) — round %d (%s)", author, last.N, st.ID)
	}
	spec.Summary = fmt.Sprintf("%s with `/gc %s` on #%d: the loop is settled and starts no further fix round. The report comment on the pull request has the rounds.",
		spec.Title, cmd.Verb, pull.Number)
	if last.Check != nil {
		spec.ID = last.Check.ID
	}
	out, err := e.GH.Check(ctx, spec)
	switch {
	case err != nil:
		res.Notes = append(res.Notes, "the check run was not settled: "+ghclient.Explain(err))
		res.incomplete(fmt.Errorf("settle the check run: %w", err))
	case out.Note != "":
		res.Notes = append(res.Notes, out.Note)
	}
}

// react adds a reaction; a failure is noted, never fatal.
func (e *Engine) react(ctx context.Context, res *Result, id int64, content string) {
	if err := e.GH.React(ctx, id, content); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("reaction %s: %s", content, ghclient.Explain(err)))
	}
}

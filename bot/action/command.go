package action

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/config"
	"github.com/google/go-github/v62/github"
)

// CommandResult is what a /gc command run did.
type CommandResult struct {
	Command    command.Command
	Author     string
	Refused    bool
	Reply      string // the reply comment posted, if any
	Dispatched bool
	State      *decide.State
}

// runCommand handles an issue_comment event (DESIGN §6): guards, then
// permission through the collaborator-permission API, then the command,
// with reactions 👀 on start, 🚀 when done and 😕 with a reply on refusal.
func (r *Runner) runCommand(ctx context.Context) (*Result, error) {
	c := r.Ctx.Comment
	ev := command.Event{
		Action: c.GetAction(), CommentID: c.GetComment().GetID(), Body: c.GetComment().GetBody(),
		Author: c.GetComment().GetUser().GetLogin(), AuthorType: c.GetComment().GetUser().GetType(),
		IsPR: c.GetIssue().IsPullRequest(), Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, Number: c.GetIssue().GetNumber(),
	}
	res := &Result{}
	cmd, why, ok := command.Filter(ev)
	if !ok {
		res.Notes = append(res.Notes, "no command run: "+why)
		return res, nil
	}
	cr := &CommandResult{Command: cmd, Author: ev.Author}
	res.Command = cr
	id := r.Opts.ID
	if id == "" {
		id = string(r.Opts.Loop)
	}
	if cmd.LoopID != "" && id != "" && cmd.LoopID != id {
		res.Notes = append(res.Notes, fmt.Sprintf("the command is for loop %s; this workflow runs %s", cmd.LoopID, id))
		res.Command = nil
		return res, nil
	}
	if cmd.LoopID != "" {
		id = cmd.LoopID
	}
	if r.GH == nil {
		res.Notes = append(res.Notes, fmt.Sprintf("dry run: would check @%s's permission and run /gc %s on loop %s", ev.Author, cmd.Verb, or(id, "(any)")))
		return res, nil
	}
	r.react(ctx, res, ev.CommentID, "eyes")

	refuse := func(eff command.Effect) (*Result, error) {
		cr.Refused = true
		cr.Reply = command.Reply(ev, cmd, eff)
		if err := r.reply(ctx, ev.Number, cr.Reply); err != nil {
			return nil, err
		}
		r.react(ctx, res, ev.CommentID, "confused")
		return res, nil
	}
	if cmd.Verb == command.Help && cmd.Unknown == "" && cmd.BadLoopID == "" {
		cr.Reply = command.Reply(ev, cmd, command.Effect{})
		if err := r.reply(ctx, ev.Number, cr.Reply); err != nil {
			return nil, err
		}
		r.react(ctx, res, ev.CommentID, "rocket")
		return res, nil
	}
	if id == "" {
		return refuse(command.Failed("this workflow runs no fixed loop: name one, as in /gc retry review"))
	}
	pr, _, err := r.GH.PullRequests.Get(ctx, r.Ctx.Owner, r.Ctx.Repo, ev.Number)
	if err != nil {
		return nil, fmt.Errorf("get pull request #%d: %w", ev.Number, err)
	}
	pull := pullFrom(pr)
	trust, err := r.trust(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the report comment: %w", err)
	}
	found, err := publish.FindState(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, id, trust)
	if err != nil {
		return nil, fmt.Errorf("read the report comment: %w", err)
	}
	if found.State == nil {
		return refuse(command.UnknownLoop(id, nil))
	}
	file, err := r.loadConfig(ctx, pull)
	if err != nil {
		return nil, err
	}
	set, err := config.Resolve(found.State.Loop, id, file, r.Opts.Overrides)
	if err != nil {
		return nil, err
	}
	res.Settings = set
	level, ok, err := command.Authorize(ctx, command.RoleClient{Client: r.GH}, r.Ctx.Owner, r.Ctx.Repo, ev.Author, set.Permission)
	if err != nil {
		return nil, fmt.Errorf("check @%s's permission: %w", ev.Author, err)
	}
	if !ok {
		return refuse(command.Unauthorized(level, set.Permission))
	}
	eff := command.Apply(found.State, cmd, ev.Author, r.Now().UTC().Truncate(1e9), set.MaxRetries)
	if eff.Refused {
		return refuse(eff)
	}
	cr.State = eff.State
	if eff.NewRound {
		switch {
		case set.Dispatch == "":
			eff.Reply += " No `dispatch` workflow is configured: push a commit or re-run the workflow to start it."
		case pull.Fork():
			eff.Reply += " The PR comes from a fork: its branch cannot be dispatched; re-run the workflow to start the round."
		default:
			_, err := r.GH.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Ctx.Owner, r.Ctx.Repo, set.Dispatch,
				github.CreateWorkflowDispatchEventRequest{Ref: pull.HeadRef, Inputs: map[string]any{"pr": fmt.Sprint(pull.Number)}})
			if err != nil {
				return refuse(command.Failed(fmt.Sprintf("the next round could not be dispatched (%s)", set.Dispatch)))
			}
			cr.Dispatched = true
		}
	}
	if eff.Action != nil || cmd.Verb == command.Status {
		body, err := withState(found.Comment.GetBody(), eff.State, banner(cmd, ev.Author, eff), r.scope(pull.Number), trust.Key)
		if err != nil {
			return nil, err
		}
		if _, err := publish.Upsert(ctx, r.GH.Issues, r.Ctx.Owner, r.Ctx.Repo, pull.Number, found.Comment, body); err != nil {
			return nil, fmt.Errorf("update the report comment: %w", err)
		}
	}
	if eff.Action != nil && (cmd.Verb == command.Approve || cmd.Verb == command.Abort) {
		r.closeSettled(ctx, res, pull, eff.State)
		if r.Opts.Check {
			r.settleCheck(ctx, res, pull, eff.State, cmd, ev.Author)
		}
	}
	r.react(ctx, res, ev.CommentID, "rocket")
	return res, nil
}

// bannerRE matches the command banner gcloop puts on top of a report,
// right after its header.
var bannerRE = regexp.MustCompile(`\A<!-- gcloop:banner -->\n[^\n]*\n\n`)

// banner is the line that says which command last changed the loop.
func banner(cmd command.Command, author string, eff command.Effect) string {
	what := strings.TrimSuffix(eff.Reply, ".")
	return fmt.Sprintf("<!-- gcloop:banner -->\n> **`/gc %s`** by %s: %s.\n\n", cmd.Verb, decide.EscapeInline("@"+author), what)
}

// withState puts the new state (sealed with key over scope, through
// publish.ReplaceState, which owns the marker) and the banner, right after
// the header, into the report body.
func withState(body string, st *decide.State, top string, scope publish.Scope, key []byte) (string, error) {
	body, err := publish.ReplaceState(body, st, scope, key)
	if err != nil {
		return "", err
	}
	head := publish.Header(st.ID)
	rest, ok := strings.CutPrefix(body, head)
	if !ok && !publish.Legacy(body) {
		return "", fmt.Errorf("the report comment of %s does not start with its header", st.ID)
	}
	body = head + top + bannerRE.ReplaceAllString(rest, "")
	if len(body) > decide.CommentLimit {
		return "", fmt.Errorf("the report comment would exceed %d bytes", decide.CommentLimit)
	}
	return body, nil
}

// closeSettled closes the open fix issues of a loop /gc approve or
// /gc abort just settled (DESIGN §2): they stay closed, since a settled
// loop opens none. A failure is noted; the next run closes them.
func (r *Runner) closeSettled(ctx context.Context, res *Result, pull *Pull, st *decide.State) {
	last := st.Last()
	if last == nil || !openIssuesRecorded(st.Rounds) {
		return
	}
	spec := publish.SyncSpec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, PR: pull.Number, LoopID: st.ID, Loop: st.Loop,
		Round: last.N, Converged: true, BotLogin: r.BotLogin, CloseNote: settledNote(st.Loop, st.ID, pull.Number, st.Status)}
	if _, err := publish.SyncIssues(ctx, r.GH.Issues, spec); err != nil {
		res.Notes = append(res.Notes, "the fix issues could not all be closed (the next run retries): "+ghclient.Explain(err))
	}
}

// reply posts a comment on the PR.
func (r *Runner) reply(ctx context.Context, number int, body string) error {
	if body == "" {
		return nil
	}
	_, _, err := r.GH.Issues.CreateComment(ctx, r.Ctx.Owner, r.Ctx.Repo, number, &github.IssueComment{Body: &body})
	if err != nil {
		return fmt.Errorf("reply on #%d: %w", number, ghclient.Explained(err))
	}
	return nil
}

// react adds a reaction; a failure is noted, never fatal.
func (r *Runner) react(ctx context.Context, res *Result, id int64, content string) {
	if err := command.React(ctx, r.GH.Reactions, r.Ctx.Owner, r.Ctx.Repo, id, content); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("reaction %s: %s", content, ghclient.Explain(err)))
	}
}

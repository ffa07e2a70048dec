package delivery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// checks handles the deliveries about checks: a merge queue's group
// (merge_group checks_requested), a re-run of gcloop's check run or check
// suite (check_run / check_suite rerequested) and a click on a check
// run's button (check_run requested_action).
func (h *Handler) checks(ctx context.Context, ev any) error {
	switch ev := ev.(type) {
	case *github.MergeGroupEvent:
		if ev.GetAction() == "checks_requested" {
			return h.mergeGroup(ctx, ev)
		}
	case *github.CheckRunEvent:
		id, ok := h.ownCheck(ev.GetCheckRun())
		if !ok {
			return ErrIgnored
		}
		cr := ev.GetCheckRun()
		switch ev.GetAction() {
		case "rerequested":
			return h.rerun(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), ev.GetSender(), cr.GetHeadSHA(), firstPull(cr.PullRequests), []string{id})
		case "requested_action":
			return h.button(ctx, ev, id)
		}
	case *github.CheckSuiteEvent:
		cs := ev.GetCheckSuite()
		if ev.GetAction() == "rerequested" && h.ours(cs.GetApp()) {
			return h.rerun(ctx, ev.GetInstallation().GetID(), ev.GetRepo(), ev.GetSender(), cs.GetHeadSHA(), firstPull(cs.PullRequests), nil)
		}
	}
	return ErrIgnored
}

// ours reports whether app is gcloop's App ("<slug>[bot]" is its login).
func (h *Handler) ours(app *github.App) bool {
	return app.GetSlug() != "" && strings.EqualFold(app.GetSlug()+"[bot]", h.Login)
}

// ownCheck is the loop id of a check run gcloop's App wrote: named
// "gcloop / <id>" with a valid id; false for anyone else's.
func (h *Handler) ownCheck(cr *github.CheckRun) (string, bool) {
	id, ok := strings.CutPrefix(cr.GetName(), check.Name(""))
	if !ok || !decide.ValidID(id) || !h.ours(cr.GetApp()) {
		return "", false
	}
	return id, true
}

// firstPull is the number of the first pull request a check event names,
// 0 when it names none (a fork's head).
func firstPull(prs []*github.PullRequest) int {
	if len(prs) == 0 {
		return 0
	}
	return prs[0].GetNumber()
}

// onPullKey checks that a delivery about pull request n is worked under
// that pull request's key: one queued under its commit's (a fork's, whose
// payload names no pull request) is to be queued again (RekeyError).
func onPullKey(ctx context.Context, repo *github.Repository, n int) error {
	key, queued := KeyOf(ctx)
	if want := pullKey(repo.GetFullName(), n); queued && key != want && !strings.Contains(key, "#") {
		return &RekeyError{Key: want}
	}
	return nil
}

// mergeGroup writes the check of every configured loop on a merge
// queue's group; a repository that configures no loop is left alone.
func (h *Handler) mergeGroup(ctx context.Context, ev *github.MergeGroupEvent) error {
	mg := ev.GetMergeGroup()
	e, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(),
		&round.Event{Name: "merge_group", MergeGroup: mg, SHA: mg.GetHeadSHA(), Actor: ev.GetSender().GetLogin()}, round.Options{Check: true})
	if err != nil {
		return err
	}
	res := &round.Result{}
	err = e.MergeGroup(ctx, res)
	switch {
	case errors.Is(err, round.ErrNoLoop):
		return fmt.Errorf("%w: %v", ErrIgnored, err)
	case err != nil:
		h.emit(ctx, e, 0, "", event.Error, map[string]any{"error": err.Error(), "merge_group": mg.GetHeadSHA()})
		return Logged(err)
	}
	for _, gc := range res.Group.Checks {
		data := map[string]any{"merge_group": mg.GetHeadSHA(), "conclusion": gc.Conclusion, "title": gc.Title, "prs": res.Group.PRs, "written": gc.Written}
		if gc.Note != "" {
			data["note"] = gc.Note
		}
		for _, pr := range res.Group.PRs {
			h.emit(ctx, e, pr, gc.LoopID, event.Check, data)
		}
	}
	if err := res.Incomplete; err != nil && ghclient.Transient(err) {
		h.emit(ctx, e, 0, "", event.Error, map[string]any{"error": err.Error(), "merge_group": mg.GetHeadSHA(), "retry": true})
		return Logged(fmt.Errorf("merge group %s incomplete: %w", mg.GetHeadSHA(), err))
	}
	return nil
}

// button carries out a click on a button of loop id's check run as the
// /gc command of the same verb.
func (h *Handler) button(ctx context.Context, ev *github.CheckRunEvent, id string) error {
	cr := ev.GetCheckRun()
	e, err := h.engine(ctx, ev.GetInstallation().GetID(), ev.GetRepo(),
		&round.Event{Name: "check_run", SHA: cr.GetHeadSHA(), Actor: ev.GetSender().GetLogin()}, round.Options{ID: id, Check: true})
	if err != nil {
		return err
	}
	pull, err := e.PullOfCommit(ctx, cr.GetHeadSHA(), firstPull(cr.PullRequests))
	if errors.Is(err, round.ErrNoPull) {
		return fmt.Errorf("%w: %v", ErrIgnored, err)
	}
	if err != nil {
		return err
	}
	if err := onPullKey(ctx, ev.GetRepo(), pull.Number); err != nil {
		return err
	}
	res, err := e.Press(ctx, round.Button{Identifier: ev.GetRequestedAction().Identifier, LoopID: id,
		Sender: ev.GetSender().GetLogin(), SenderType: ev.GetSender().GetType(), PR: pull.Number})
	if err == nil && res.Command == nil {
		return fmt.Errorf("%w: %s", ErrIgnored, strings.Join(res.Notes, "; "))
	}
	return h.commandDone(ctx, e, pull.Number, id, res, err)
}

// rerun judges the last round of loops ids (nil: every loop the bot runs
// from artifacts) on commit sha again, from the workflow run that round
// read, through the same server-side round as a completed workflow_run:
// the same round, its record replaced, no new round.
func (h *Handler) rerun(ctx context.Context, installation int64, repo *github.Repository, sender *github.User, sha string, number int, ids []string) error {
	probe, err := h.engine(ctx, installation, repo, &round.Event{Name: "check_run", SHA: sha, Actor: sender.GetLogin()}, round.Options{})
	if err != nil {
		return err
	}
	file, err := probe.GH.Config(ctx, "", probe.Opts.Config)
	if err != nil {
		return err
	}
	pull, err := probe.PullOfCommit(ctx, sha, number)
	if errors.Is(err, round.ErrNoPull) {
		return fmt.Errorf("%w: %v", ErrIgnored, err)
	}
	if err != nil {
		return err
	}
	if err := onPullKey(ctx, repo, pull.Number); err != nil {
		return err
	}
	c, err := h.Clients.Client(ctx, installation)
	if err != nil {
		return err
	}
	var loops loopRounds
	for _, sec := range file.Sections() {
		set, err := config.Resolve(sec.Loop, sec.ID, file, config.Overrides{})
		if err != nil || len(set.BotArtifacts) == 0 || (ids != nil && !slices.Contains(ids, sec.ID)) {
			continue
		}
		loops.ran++
		runID, why, err := probe.JudgedRun(ctx, pull, sec.ID, sha)
		switch {
		case err != nil:
			loops.add(sec.ID, err)
			continue
		case why != "":
			h.emit(ctx, probe, pull.Number, sec.ID, event.Round, map[string]any{"sha": sha, "rerun": true, "ignored": why})
			loops.add(sec.ID, fmt.Errorf("%w: %s", ErrIgnored, why))
			continue
		}
		run, _, err := c.Actions.GetWorkflowRunByID(ctx, repo.GetOwner().GetLogin(), repo.GetName(), runID)
		if err != nil {
			loops.add(sec.ID, fmt.Errorf("read workflow run %d: %w", runID, ghclient.Explained(err)))
			continue
		}
		wr := &github.WorkflowRunEvent{Action: github.String("completed"), WorkflowRun: run, Repo: repo,
			Installation: &github.Installation{ID: github.Int64(installation)}, Sender: sender}
		loops.add(sec.ID, h.round(ctx, wr, sec.Loop, sec.ID, set.BotArtifacts))
	}
	return loops.err()
}

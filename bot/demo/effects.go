package demo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// The effects each step must have on the fake: what a person would look
// for on the pull request. Each returns nil once the effect is there,
// else what is missing.

// fixRound: the report says FIX, the head's check run asks for action and
// issues fix issues are open.
func fixRound(issues int) func(w *World, p *Pull) error {
	return func(w *World, p *Pull) error {
		return firstError(
			w.reportSays(p, "round 1 of"),
			w.checkOnHead(p, "action_required", ""),
			w.fixIssues(p, issues),
		)
	}
}

// converged: the report and the head's check run say CONVERGE, and no fix
// issue of the pull request is left open.
func converged(w *World, p *Pull) error {
	return firstError(
		w.reportSays(p, "CONVERGE"),
		w.checkOnHead(p, "success", "CONVERGE"),
		w.fixIssues(p, 0),
	)
}

// escalated: the report and the head's check run say ESCALATE at the
// round cap.
func escalated(w *World, p *Pull) error {
	return firstError(
		w.reportSays(p, "ESCALATE"),
		w.checkOnHead(p, "failure", "ESCALATE"),
	)
}

// approved: the maintainer's comment got the bot's 🚀, the check run says
// who approved, the fix issues are closed.
func approved(w *World, p *Pull) error {
	return firstError(
		w.reacted(p, Maintainer, "rocket"),
		w.checkOnHead(p, "success", "approved by "+Maintainer),
		w.fixIssues(p, 0),
	)
}

// retried: the maintainer's comment got the bot's 🚀 and the loop's
// workflow was dispatched on the branch by the App.
func retried(w *World, p *Pull) error {
	if err := w.reacted(p, Maintainer, "rocket"); err != nil {
		return err
	}
	for _, d := range w.GH.Dispatches(Org, p.Repo) {
		if d.Ref == p.Branch && d.By == Bot {
			return nil
		}
	}
	return fmt.Errorf("no dispatch of the next round on %s by %s", p.Branch, Bot)
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// report is the bot's report comment on the pull request.
func (w *World) report(p *Pull) (ghfake.Comment, bool) {
	for _, c := range w.GH.Comments(Org, p.Repo, p.Number) {
		if c.Author == Bot && strings.HasPrefix(c.Body, "<!-- gcloop:report ") {
			return c, true
		}
	}
	return ghfake.Comment{}, false
}

func (w *World) reportSays(p *Pull, text string) error {
	c, ok := w.report(p)
	switch {
	case !ok:
		return errors.New("no report comment by " + Bot)
	case !strings.Contains(c.Body, text):
		return fmt.Errorf("the report does not say %q yet", text)
	}
	return nil
}

// checkOnHead: the App's completed check run on the head has conclusion
// and a title that holds title.
func (w *World) checkOnHead(p *Pull, conclusion, title string) error {
	head := p.Head()
	for _, c := range w.GH.CheckRuns(Org, p.Repo) {
		if c.HeadSHA == head && c.Status == "completed" && c.Conclusion == conclusion && strings.Contains(c.Title, title) {
			return nil
		}
	}
	return fmt.Errorf("no completed check run %q with %q on the head %.7s", conclusion, title, head)
}

// fixIssues: exactly n of the pull request's fix issues are open.
func (w *World) fixIssues(p *Pull, n int) error {
	open := 0
	mark := fmt.Sprintf("(PR #%d, ", p.Number)
	for _, is := range w.GH.Issues(Org, p.Repo) {
		if !is.IsPull && is.State == "open" && strings.Contains(is.Title, mark) && hasLabel(is.Labels, "gcloop") {
			open++
		}
	}
	if open != n {
		return fmt.Errorf("%d open fix issues, want %d", open, n)
	}
	return nil
}

func hasLabel(labels []string, want string) bool {
	for _, l := range labels {
		if l == want {
			return true
		}
	}
	return false
}

// reacted: author's newest comment on the pull request has the bot's
// reaction content.
func (w *World) reacted(p *Pull, author, content string) error {
	comments := w.GH.Comments(Org, p.Repo, p.Number)
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if c.Author != author {
			continue
		}
		for _, r := range w.GH.Reactions(Org, p.Repo, c.ID) {
			if r.User == Bot && r.Content == content {
				return nil
			}
		}
		return fmt.Errorf("no %s reaction of %s on %s's comment", content, Bot, author)
	}
	return fmt.Errorf("no comment of %s", author)
}

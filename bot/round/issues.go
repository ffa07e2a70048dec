package round

import (
	"context"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/publish"
	"github.com/gcloop/gcloop/decide"
)

// syncIssues opens, updates and closes the fix issues. recorded says
// whether earlier rounds recorded issues that may be open; final is the
// status of a settled loop (approved, aborted) or "". Converged and
// settled loops close every open fix issue. Issues follow their findings
// (fingerprints): in a round that goes on, an issue none of whose
// findings the round reports is closed as fixed in that round, and a
// closed one whose finding comes back is reopened. An escalation leaves
// the open issues to the person who takes over, but for those it fixed.
// It reports whether issues it was to close may still be open (closing
// them failed): the round's record then keeps them, so that the round
// carried out again closes them.
func (e *Engine) syncIssues(ctx context.Context, res *Result, pull *Pull, recorded bool, final string) (closePending bool) {
	d := res.Decision
	spec := publish.SyncSpec{Owner: or(e.Event.Owner, "OWNER"), Repo: or(e.Event.Repo, "REPO"), PR: pull.Number, PRURL: pull.HTMLURL,
		LoopID: d.ID, Loop: d.Loop, Round: d.Round, Tasks: d.Tasks,
		Converged: d.Outcome == decide.Converge || final == decide.StateAborted,
		Labels:    res.Settings.Labels, MaxIssues: res.Settings.MaxIssues, Severity: taskSeverity(d),
		Tracked: append([]string{}, d.Fingerprints...), Known: knownIssues(d.History, d.Round), Returned: d.Returned}
	if final != "" {
		spec.CloseNote = settledNote(d.Loop, d.ID, pull.Number, final)
	}
	if !spec.Converged && len(d.Tasks) == 0 {
		if !recorded || d.Movement.Fixed == 0 {
			return false // nothing fixed: the open issues stay as they are, unread
		}
		spec.FixedOnly = true // an escalation closes only the issues it fixed
	}
	if spec.Converged && !recorded {
		return false // nothing to close: a converged round costs no issue request
	}
	if !spec.Converged && !res.Settings.Issues {
		return false
	}
	out, err := e.GH.SyncIssues(ctx, spec)
	res.Planned = out.Planned
	res.Closed, res.Reopened = out.Closed, out.Reopened
	logIssues(e.log(), out)
	if len(out.Skipped) > 0 {
		d.Notes = append(d.Notes, skippedNote(out.Skipped, spec.MaxIssues))
	}
	// The round's issues: those it created and the open ones its tasks
	// map to (a re-run creates none but keeps them).
	seen := map[int]bool{}
	for _, n := range out.Created {
		seen[n] = true
		res.Issues = append(res.Issues, n)
	}
	for _, p := range out.Planned {
		if p.Number > 0 && !seen[p.Number] {
			seen[p.Number] = true
			res.Issues = append(res.Issues, p.Number)
		}
	}
	for _, n := range out.KeptOpen {
		if !seen[n] {
			seen[n] = true
			res.Issues = append(res.Issues, n)
		}
	}
	if err == nil {
		return false
	}
	if d.Loop == decide.Audit && d.Outcome == decide.Fix {
		escalate(d, "the revision tasks could not be created ("+ghclient.Explain(err)+"): escalated at once")
		return false
	}
	d.Notes = append(d.Notes, "fix issues incomplete: "+ghclient.Explain(err))
	res.incomplete(fmt.Errorf("fix issues: %w", err))
	return spec.Converged || spec.FixedOnly
}

// knownIssues are the fix issues the rounds before round n recorded, for
// a task to find the closed issue of its target whose finding comes back.
func knownIssues(rs []decide.RoundRecord, n int) []int {
	var out []int
	for _, r := range rs {
		if r.N < n {
			out = append(out, r.Issues...)
		}
	}
	return out
}

// settledNote is the comment that closes a fix issue of a loop settled
// with /gc approve or /gc abort.
func settledNote(loop decide.Loop, id string, pr int, status string) string {
	verb := map[string]string{decide.StateApproved: "approve", decide.StateAborted: "abort"}[status]
	return fmt.Sprintf("Closed: the %s loop `%s` on #%d was %s with `/gc %s`; it starts no further fix round.", loop, id, pr, status, verb)
}

// openIssues are the fix issues that recorded rounds opened and no later
// converged round closed: those of the latest round that records any.
func openIssues(rs []decide.RoundRecord) []int {
	for i := len(rs) - 1; i >= 0; i-- {
		if len(rs[i].Issues) > 0 {
			return rs[i].Issues
		}
		if rs[i].Decision == decide.Converge {
			return nil
		}
	}
	return nil
}

// openIssuesRecorded reports whether recorded rounds opened fix issues
// that no later converged round closed.
func openIssuesRecorded(rs []decide.RoundRecord) bool { return len(openIssues(rs)) > 0 }

// taskSeverity ranks the tasks of a decision by the most severe finding
// each one fixes: a finding of one of its files, or one it lists.
func taskSeverity(d *decide.Decision) map[string]decide.Severity {
	byFile := map[string]decide.Severity{}
	byText := map[string]decide.Severity{}
	worse := func(m map[string]decide.Severity, k string, s decide.Severity) {
		if old, ok := m[k]; !ok || s < old {
			m[k] = s
		}
	}
	for _, f := range d.Findings {
		if f.File != "" {
			worse(byFile, f.File, f.Severity)
		}
		worse(byText, f.String(), f.Severity)
	}
	out := map[string]decide.Severity{}
	for _, t := range d.Tasks {
		for _, f := range t.TargetFiles {
			if s, ok := byFile[f]; ok {
				worse(out, t.ID, s)
			}
		}
		for _, f := range t.Findings {
			if s, ok := byText[f]; ok {
				worse(out, t.ID, s)
			}
		}
	}
	return out
}

// maxSkippedListed bounds the tasks named in the note about tasks over
// max-issues; the rest are counted.
const maxSkippedListed = 100

// skippedNote lists the tasks that got no issue because of max-issues.
func skippedNote(skipped []publish.PlannedIssue, limit int) string {
	if limit <= 0 {
		limit = publish.DefaultMaxIssues
	}
	names := make([]string, 0, min(len(skipped), maxSkippedListed)+1)
	for _, p := range skipped[:min(len(skipped), maxSkippedListed)] {
		names = append(names, p.TaskID+" ("+strings.TrimPrefix(p.Title, "gcloop: ")+")")
	}
	if n := len(skipped) - maxSkippedListed; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	return fmt.Sprintf("max-issues %d: %d more task(s) got no fix issue this round (most severe first were opened): %s",
		limit, len(skipped), strings.Join(names, "; "))
}

package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// issuesAPI is the part of go-github's IssuesService the fix issues need.
type issuesAPI interface {
	ListByRepo(ctx context.Context, owner, repo string, opts *github.IssueListByRepoOptions) ([]*github.Issue, *github.Response, error)
	Create(ctx context.Context, owner, repo string, issue *github.IssueRequest) (*github.Issue, *github.Response, error)
	Edit(ctx context.Context, owner, repo string, number int, issue *github.IssueRequest) (*github.Issue, *github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
	Get(ctx context.Context, owner, repo string, number int) (*github.Issue, *github.Response, error)
	GetLabel(ctx context.Context, owner, repo, name string) (*github.Label, *github.Response, error)
	CreateLabel(ctx context.Context, owner, repo string, label *github.Label) (*github.Label, *github.Response, error)
}

// IssueBodyLimit is the largest issue body gcloop writes, in bytes
// (GitHub refuses bodies over 65 536 characters).
const IssueBodyLimit = 65536

// titleRunes caps an issue title (DESIGN §5.2; GitHub allows 256).
const titleRunes = 120

// DefaultMaxIssues is the most fix issues a round opens when SyncSpec
// sets none (DESIGN §5.2, input max-issues).
const DefaultMaxIssues = 10

// issuesPerPage is the page size of issue listings; maxIssuePages bounds
// them (10 000 open issues of one loop label).
const (
	issuesPerPage = 100
	maxIssuePages = 100
)

// Label colors of the labels gcloop creates.
const (
	labelColor      = "5319e7"
	loopLabelColor  = "c5def5"
	extraLabelColor = "ededed"
)

// SyncSpec says which fix issues a round wants.
type SyncSpec struct {
	Owner, Repo string
	PR          int
	// PRURL is the PR's html_url, linked from the issue body; without a
	// usable http(s) URL the body says "#<PR>", which GitHub links.
	PRURL  string
	LoopID string
	Loop   decide.Loop
	Round  int
	Tasks  []decide.Task
	// Converged closes every open fix issue of the PR and loop id; Tasks
	// are then ignored.
	Converged bool
	// Labels are extra labels for new issues, besides "gcloop" and
	// "gcloop:<loop>".
	Labels []string
	// DryRun makes no request at all: SyncResult.Planned holds the issues
	// the round would write.
	DryRun bool
	// BotLogin, when set, restricts the issues gcloop updates and closes to
	// those opened by this login (compared like FindState does).
	BotLogin string
	// MaxIssues caps the tasks that get an issue (≤ 0: DefaultMaxIssues);
	// the most severe tasks come first, the rest are SyncResult.Skipped.
	MaxIssues int
	// Severity ranks tasks by their task id: the most severe finding a
	// task fixes. Tasks without an entry rank last; ties keep task order.
	Severity map[string]decide.Severity
	// CloseNote, when set, is the comment that closes the issues of a
	// Converged sync (a loop approved or aborted rather than converged).
	CloseNote string
	// Tracked are the fingerprints of the findings the round tracks
	// (decide.Decision.Fingerprints). When set (non-nil), an open issue
	// that no task wants and none of whose findings — the fingerprints
	// hidden in its body — the round reports is closed as fixed in this
	// round, while the loop goes on.
	Tracked []string
	// FixedOnly (an escalation, which hands the loop to a person): Tasks
	// are ignored and nothing is opened or edited; only the open issues
	// whose findings are all fixed are closed.
	FixedOnly bool
	// Known are the issues earlier rounds recorded. A task with no open
	// issue, about a finding that came back (one of Returned), reopens the
	// newest closed one of its target among them that held the finding,
	// instead of opening another.
	Known []int
	// Returned are the fingerprints of the round's findings that were
	// fixed and came back (decide.Decision.Returned); only tasks about one
	// of them look for a closed issue.
	Returned []string
}

// PlannedIssue is the fix issue of one task.
type PlannedIssue struct {
	TaskID string
	// Key identifies the PR, loop id and task target; it is hidden in the
	// body as <!-- gcloop:issue <loop id> <key> -->.
	Key    string
	Title  string
	Labels []string
	Body   string
	// Number is the open issue the task updates, 0 for a new issue (always
	// 0 in a dry run, which reads nothing).
	Number int
	// Fingerprints are those of the task's tracked findings, hidden in
	// the body.
	Fingerprints []string
}

// SyncResult is what SyncIssues did: issue numbers created, updated
// (edited because title or body changed) and closed, in the order of the
// requests, and the planned issue of every task.
type SyncResult struct {
	Created, Updated, Closed []int
	// Reopened are closed issues reopened because a finding came back.
	Reopened []int
	// KeptOpen are, in a FixedOnly sync, the open issues left open.
	KeptOpen []int
	Planned  []PlannedIssue
	// Skipped are the tasks over MaxIssues: no issue is opened or edited
	// for them (an open one is left open); the report lists them.
	Skipped []PlannedIssue
}

// SyncIssues brings the fix issues of a PR and loop id in line with a
// round (DESIGN §5.2):
//
//   - Tasks: one issue per task, found again by the hidden key in its body
//     among the open issues labelled "gcloop:<loop>" (pull requests in that
//     listing are skipped). An open issue with the key is edited only if
//     its title or body changed — a re-run makes no mutation — so a later
//     round's task for the same target updates that issue (new round in
//     the title) instead of opening another. Labels are ensured (created
//     on 404) only when an issue is to be created; an edit leaves the
//     issue's labels alone. Open issues of the PR and loop id whose target
//     has no task in this round are closed with a comment, as fixed.
//   - Converged: every open issue of the PR and loop id is closed with a
//     comment.
//   - No task and not converged (an escalation): nothing is read or
//     changed; the issues stay open for the person who takes over — but
//     with FixedOnly, those whose findings are all fixed are closed.
//   - Findings (track.go): an issue hides the fingerprints of its task's
//     findings; with Tracked set, an open issue that no task wants and none
//     of whose findings the round reports is closed as "Fixed in round r",
//     and a task about a finding that came back (Returned) reopens the
//     closed issue of its target that held it (found among Known) instead
//     of opening another.
//
// The target of a task is its file when it is a "fix" task with exactly
// one target file that is not part of a fix/re-check pair (review tasks);
// its issue title is "gcloop: fix <file> (PR #<n>, round <r>)". Any other
// task — findings without a file, the audit and validation pairs — is
// targeted by its title with the numbers taken out ("Address audit
// findings of round 2" and "… round 3" are one target) and titled
// "gcloop: <task title> (PR #<n>, round <r>)".
//
// Mutations are made one at a time, creations and edits first, closings
// last; the first failure stops the sync and is returned with what was
// done until then.
func SyncIssues(ctx context.Context, api issuesAPI, s SyncSpec) (SyncResult, error) {
	if err := s.validate(); err != nil {
		return SyncResult{}, err
	}
	var res SyncResult
	var plans []PlannedIssue
	if !s.Converged && !s.FixedOnly {
		plans, res.Skipped = s.capped(s.plan())
	}
	if s.DryRun {
		res.Planned = plans
		return res, nil
	}
	if !s.Converged && !s.FixedOnly && len(plans) == 0 {
		return res, nil
	}
	mine, known, err := s.listOpen(ctx, api)
	if err != nil {
		return res, err
	}
	// The oldest open issue of a key is the one kept; newer ones are
	// duplicates from a race and are closed.
	byKey := map[string]*github.Issue{}
	var keys []string
	var dups []*github.Issue
	for _, m := range mine {
		if byKey[m.key] == nil {
			byKey[m.key] = m.issue
			keys = append(keys, m.key)
		} else {
			dups = append(dups, m.issue)
		}
	}
	if s.Converged {
		msg := fmt.Sprintf("Resolved: the %s loop `%s` converged in round %d on #%d.", s.Loop, s.LoopID, s.Round, s.PR)
		if s.CloseNote != "" {
			msg = s.CloseNote
		}
		for _, k := range keys {
			if err := closeIssue(ctx, api, s, byKey[k].GetNumber(), msg, "completed"); err != nil {
				return res, err
			}
			res.Closed = append(res.Closed, byKey[k].GetNumber())
		}
		return res, s.closeDups(ctx, api, dups, byKey, &res)
	}
	if s.FixedOnly {
		open, err := s.closeFixed(ctx, api, keys, byKey, &res)
		res.KeptOpen = open
		return res, err
	}
	for i := range plans {
		if is := byKey[plans[i].Key]; is != nil {
			plans[i].Number = is.GetNumber()
		}
	}
	reopen, err := s.reopenable(ctx, api, plans, mine)
	if err != nil {
		return res, err
	}
	res.Planned = plans
	if slices.ContainsFunc(plans, func(p PlannedIssue) bool { return p.Number == 0 }) {
		if err := ensureLabels(ctx, api, s.Owner, s.Repo, s.labels(), known); err != nil {
			return res, err
		}
	}
	wanted := map[string]bool{}
	for _, p := range res.Skipped {
		wanted[p.Key] = true // still a task: its open issue is not fixed
	}
	for i, p := range plans {
		wanted[p.Key] = true
		if back := reopen[p.Key]; back > 0 {
			if err := s.reopen(ctx, api, p, back); err != nil {
				return res, err
			}
			res.Reopened = append(res.Reopened, p.Number)
			continue
		}
		if p.Number == 0 {
			is, _, err := api.Create(ctx, s.Owner, s.Repo, &github.IssueRequest{
				Title: github.String(p.Title), Body: github.String(p.Body), Labels: &p.Labels})
			if err != nil {
				return res, fmt.Errorf("fix issues: create the issue of task %s: %w", p.TaskID, ghclient.Explained(err))
			}
			res.Planned[i].Number = is.GetNumber()
			res.Created = append(res.Created, is.GetNumber())
			continue
		}
		old := byKey[p.Key]
		if old.GetTitle() == p.Title && old.GetBody() == p.Body {
			continue
		}
		if _, _, err := api.Edit(ctx, s.Owner, s.Repo, p.Number, &github.IssueRequest{
			Title: github.String(p.Title), Body: github.String(p.Body)}); err != nil {
			return res, fmt.Errorf("fix issues: update issue #%d of task %s: %w", p.Number, p.TaskID, ghclient.Explained(err))
		}
		res.Updated = append(res.Updated, p.Number)
	}
	for _, k := range keys {
		if wanted[k] {
			continue
		}
		n := byKey[k].GetNumber()
		if s.allFixed(byKey[k]) {
			if err := closeIssue(ctx, api, s, n, s.fixedNote(), "completed"); err != nil {
				return res, err
			}
			res.Closed = append(res.Closed, n)
			continue
		}
		msg := fmt.Sprintf("Resolved: round %d of the %s loop `%s` on #%d has no task for this target any more.", s.Round, s.Loop, s.LoopID, s.PR)
		if err := closeIssue(ctx, api, s, n, msg, "completed"); err != nil {
			return res, err
		}
		res.Closed = append(res.Closed, n)
	}
	return res, s.closeDups(ctx, api, dups, byKey, &res)
}

func (s SyncSpec) validate() error {
	switch {
	case s.Owner == "" || s.Repo == "":
		return fmt.Errorf("fix issues: repository %q/%q is incomplete, want owner and name", s.Owner, s.Repo)
	case s.PR <= 0:
		return fmt.Errorf("fix issues: pull request number %d, want a positive number", s.PR)
	case !decide.ValidID(s.LoopID):
		return fmt.Errorf("fix issues: loop id %q: %s", s.LoopID, decide.IDRule)
	case s.Round <= 0:
		return fmt.Errorf("fix issues: round %d, want a positive number", s.Round)
	}
	if _, err := decide.ParseLoop(string(s.Loop)); err != nil || decide.Loop(strings.ToLower(string(s.Loop))) != s.Loop {
		return fmt.Errorf("fix issues: loop %q, want review, critique, audit, validation or coverage", s.Loop)
	}
	return nil
}

// labels are the labels of a new issue: "gcloop", "gcloop:<loop>", then
// the extra labels trimmed, without blanks and repeats.
func (s SyncSpec) labels() []string {
	out := []string{"gcloop", "gcloop:" + string(s.Loop)}
	for _, l := range s.Labels {
		l = strings.TrimSpace(l)
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// issueMarkerRE matches the hidden key of a fix issue. Artifact text in
// the body cannot forge it: the escaping writes the marker's colon as an
// entity and '<' as "&lt;".
var issueMarkerRE = lazyre.New(`<!-- gcloop:issue ([A-Za-z0-9._-]{1,64}) (pr[0-9]{1,12}-[0-9a-f]{16}) -->`)

// issueMarker renders the hidden key of a fix issue.
func issueMarker(loopID, key string) string {
	return fmt.Sprintf("<!-- gcloop:issue %s %s -->", loopID, key)
}

// parseIssueMarker returns the key of loopID's marker in body, "" if none.
func parseIssueMarker(body, loopID string) string {
	for _, m := range issueMarkerRE().FindAllStringSubmatch(body, -1) {
		if m[1] == loopID {
			return m[2]
		}
	}
	return ""
}

// issueKey identifies a PR, loop and target; the loop id is next to it in
// the marker.
func issueKey(pr int, target string) string {
	sum := sha256.Sum256([]byte(target))
	return fmt.Sprintf("pr%d-%s", pr, hex.EncodeToString(sum[:8]))
}

type mineIssue struct {
	key   string
	issue *github.Issue
}

// listOpen reads the open issues labelled "gcloop:<loop>", all pages, and
// returns those of this PR and loop id (oldest first) and the names of the
// labels seen on them, which therefore exist.
func (s SyncSpec) listOpen(ctx context.Context, api issuesAPI) ([]mineIssue, map[string]bool, error) {
	prefix := fmt.Sprintf("pr%d-", s.PR)
	known := map[string]bool{}
	var mine []mineIssue
	opts := &github.IssueListByRepoOptions{State: "open", Labels: []string{"gcloop:" + string(s.Loop)},
		Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: issuesPerPage}}
	for pages := 1; ; pages++ {
		iss, resp, err := api.ListByRepo(ctx, s.Owner, s.Repo, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("fix issues: list open issues labelled gcloop:%s, page %d: %w", s.Loop, max(opts.Page, 1), ghclient.Explained(err))
		}
		for _, is := range iss {
			if is == nil {
				continue
			}
			for _, l := range is.Labels {
				known[l.GetName()] = true // a pull request's labels exist too
			}
			if is.IsPullRequest() || is.GetNumber() == 0 {
				continue
			}
			if s.BotLogin != "" && !strings.EqualFold(is.GetUser().GetLogin(), s.BotLogin) {
				continue
			}
			if key := parseIssueMarker(is.GetBody(), s.LoopID); strings.HasPrefix(key, prefix) {
				mine = append(mine, mineIssue{key: key, issue: is})
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		if resp.NextPage <= max(opts.Page, 1) {
			return nil, nil, fmt.Errorf("fix issues: issue list page %d links back to page %d, want a later page", max(opts.Page, 1), resp.NextPage)
		}
		if pages == maxIssuePages {
			return nil, nil, fmt.Errorf("fix issues: more than %d open issues labelled gcloop:%s; gave up", maxIssuePages*issuesPerPage, s.Loop)
		}
		opts.Page = resp.NextPage
	}
	slices.SortStableFunc(mine, func(a, b mineIssue) int { return a.issue.GetNumber() - b.issue.GetNumber() })
	return mine, known, nil
}

// closeDups closes newer open issues that carry the key of an older one.
func (s SyncSpec) closeDups(ctx context.Context, api issuesAPI, dups []*github.Issue, byKey map[string]*github.Issue, res *SyncResult) error {
	for _, d := range dups {
		keep := byKey[parseIssueMarker(d.GetBody(), s.LoopID)].GetNumber()
		msg := fmt.Sprintf("Closed as a duplicate of #%d, which tracks the same gcloop task.", keep)
		if err := closeIssue(ctx, api, s, d.GetNumber(), msg, "not_planned"); err != nil {
			return err
		}
		res.Closed = append(res.Closed, d.GetNumber())
	}
	return nil
}

// closeIssue comments on an issue, then closes it.
func closeIssue(ctx context.Context, api issuesAPI, s SyncSpec, n int, msg, reason string) error {
	if _, _, err := api.CreateComment(ctx, s.Owner, s.Repo, n, &github.IssueComment{Body: github.String(msg)}); err != nil {
		return fmt.Errorf("fix issues: comment on issue #%d before closing it: %w", n, ghclient.Explained(err))
	}
	if _, _, err := api.Edit(ctx, s.Owner, s.Repo, n, &github.IssueRequest{State: github.String("closed"), StateReason: github.String(reason)}); err != nil {
		return fmt.Errorf("fix issues: close issue #%d: %w", n, ghclient.Explained(err))
	}
	return nil
}

// ensureLabels makes sure every label exists: labels seen on listed issues
// do; any other is looked up and created on 404 (a 422 "already_exists"
// from a concurrent run is fine).
func ensureLabels(ctx context.Context, api issuesAPI, owner, repo string, names []string, known map[string]bool) error {
	for _, name := range names {
		if known[name] {
			continue
		}
		_, _, err := api.GetLabel(ctx, owner, repo, url.PathEscape(name))
		if err == nil {
			continue
		}
		if statusOf(err) != 404 {
			return fmt.Errorf("fix issues: look up label %q: %w", name, ghclient.Explained(err))
		}
		l := &github.Label{Name: github.String(name), Color: github.String(extraLabelColor)}
		switch {
		case name == "gcloop":
			l.Color, l.Description = github.String(labelColor), github.String("Opened by the gcloop generator–critic loop")
		case strings.HasPrefix(name, "gcloop:"):
			l.Color, l.Description = github.String(loopLabelColor), github.String("Fix task of a gcloop "+strings.TrimPrefix(name, "gcloop:")+" loop")
		}
		if _, _, err := api.CreateLabel(ctx, owner, repo, l); err != nil && !alreadyExists(err) {
			return fmt.Errorf("fix issues: create label %q: %w", name, ghclient.Explained(err))
		}
	}
	return nil
}

package publish

// Fix issues that follow their findings across rounds: the fingerprints
// of an issue's findings are hidden in its body; an issue none of whose
// findings the round reports is closed as fixed in that round, and a
// closed one is reopened when one of its findings comes back.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// maxMarkedFingerprints bounds the fingerprints hidden in one issue body
// (17 bytes each); a task about more findings keeps the first ones, and
// only those reopen its issue when they come back.
const maxMarkedFingerprints = 256

// maxReopenLookups bounds the closed issues read to find one to reopen:
// the newest issues earlier rounds recorded.
const maxReopenLookups = 20

// findingsMarkerRE matches the hidden fingerprints of a fix issue. As for
// the key, artifact text in the body cannot forge it: the escaping writes
// '<' as "&lt;".
var findingsMarkerRE = lazyre.New(`<!-- gcloop:findings ([A-Za-z0-9._-]{1,64})((?: [0-9a-f]{16})+) -->`)

// findingsMarker renders the hidden fingerprints of a fix issue, "" for
// none.
func findingsMarker(loopID string, fps []string) string {
	var keep []string
	for _, f := range fps {
		if len(keep) == maxMarkedFingerprints {
			break
		}
		if validFingerprint(f) {
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return fmt.Sprintf("<!-- gcloop:findings %s %s -->", loopID, strings.Join(keep, " "))
}

// validFingerprint reports whether f has the form of decide's
// fingerprints: 16 lower-case hex digits.
func validFingerprint(f string) bool {
	if len(f) != 16 {
		return false
	}
	for _, r := range f {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// parseFindingsMarker returns the fingerprints of loopID's findings
// marker in body, nil if none.
func parseFindingsMarker(body, loopID string) []string {
	for _, m := range findingsMarkerRE().FindAllStringSubmatch(body, -1) {
		if m[1] == loopID {
			fps := strings.Fields(m[2])
			return fps[:min(len(fps), maxMarkedFingerprints)]
		}
	}
	return nil
}

// allFixed reports whether an issue follows findings (it has a findings
// marker) and the round reports none of them.
func (s SyncSpec) allFixed(is *github.Issue) bool {
	if s.Tracked == nil {
		return false
	}
	fps := parseFindingsMarker(is.GetBody(), s.LoopID)
	if len(fps) == 0 {
		return false
	}
	for _, f := range fps {
		if slices.Contains(s.Tracked, f) {
			return false
		}
	}
	return true
}

// fixedNote is the comment that closes an issue whose findings are all
// fixed, in a round that goes on or (FixedOnly) an escalation.
func (s SyncSpec) fixedNote() string {
	if s.FixedOnly {
		return fmt.Sprintf("Fixed in round %d: the %s loop `%s` on #%d no longer reports the findings of this issue. It is reopened if one of them comes back.",
			s.Round, s.Loop, s.LoopID, s.PR)
	}
	return fmt.Sprintf("Fixed in round %d: the %s loop `%s` on #%d no longer reports the findings of this issue. The loop goes on; this issue is reopened if one of them comes back.",
		s.Round, s.Loop, s.LoopID, s.PR)
}

// reopenNote is the comment on an issue reopened because n of its
// findings came back.
func (s SyncSpec) reopenNote(n int) string {
	return fmt.Sprintf("Reopened in round %d: the %s loop `%s` on #%d reports %s of this issue again.",
		s.Round, s.Loop, s.LoopID, s.PR, pluralFindings(n))
}

func pluralFindings(n int) string {
	if n == 1 {
		return "1 finding"
	}
	return fmt.Sprintf("%d findings", n)
}

// closeFixed closes, as fixed in this round, the open issues among keys
// whose findings the round no longer reports (an escalation's, which has
// no task); it returns the issues it left open.
func (s SyncSpec) closeFixed(ctx context.Context, api issuesAPI, keys []string, byKey map[string]*github.Issue, res *SyncResult) ([]int, error) {
	var open []int
	for _, k := range keys {
		is := byKey[k]
		if !s.allFixed(is) {
			open = append(open, is.GetNumber())
			continue
		}
		if err := closeIssue(ctx, api, s, is.GetNumber(), s.fixedNote(), "completed"); err != nil {
			return open, err
		}
		res.Closed = append(res.Closed, is.GetNumber())
	}
	return open, nil
}

// closedByKey reads the closed fix issues that earlier rounds recorded
// (SyncSpec.Known, the newest maxReopenLookups of those not open) and
// returns the newest of each key that gcloop closed as completed (not a
// duplicate) and that follows findings.
func (s SyncSpec) closedByKey(ctx context.Context, api issuesAPI, open map[int]bool) (map[string]*github.Issue, error) {
	var nums []int
	for _, n := range s.Known {
		if n > 0 && !open[n] && !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	if len(nums) > maxReopenLookups {
		nums = nums[len(nums)-maxReopenLookups:]
	}
	prefix := fmt.Sprintf("pr%d-", s.PR)
	out := map[string]*github.Issue{}
	for _, n := range nums {
		is, _, err := api.Get(ctx, s.Owner, s.Repo, n)
		if err != nil {
			if st := statusOf(err); st == 404 || st == 410 {
				continue // deleted or transferred: nothing to reopen
			}
			return nil, fmt.Errorf("fix issues: read closed issue #%d: %w", n, ghclient.Explained(err))
		}
		if is == nil || is.GetState() != "closed" || is.GetStateReason() == "not_planned" || is.IsPullRequest() {
			continue
		}
		if s.BotLogin != "" && !strings.EqualFold(is.GetUser().GetLogin(), s.BotLogin) {
			continue
		}
		key := parseIssueMarker(is.GetBody(), s.LoopID)
		if !strings.HasPrefix(key, prefix) || len(parseFindingsMarker(is.GetBody(), s.LoopID)) == 0 {
			continue
		}
		if old := out[key]; old == nil || old.GetNumber() < is.GetNumber() {
			out[key] = is
		}
	}
	return out, nil
}

// returning counts the fingerprints of a closed issue that the task's
// findings bring back.
func returning(closed *github.Issue, loopID string, fps []string) int {
	n := 0
	for _, f := range parseFindingsMarker(closed.GetBody(), loopID) {
		if slices.Contains(fps, f) {
			n++
		}
	}
	return n
}

// reopen reopens a closed fix issue with the task's title and body, then
// says why in a comment.
func (s SyncSpec) reopen(ctx context.Context, api issuesAPI, p PlannedIssue, back int) error {
	if _, _, err := api.Edit(ctx, s.Owner, s.Repo, p.Number, &github.IssueRequest{
		State: github.String("open"), Title: github.String(p.Title), Body: github.String(p.Body)}); err != nil {
		return fmt.Errorf("fix issues: reopen issue #%d of task %s: %w", p.Number, p.TaskID, ghclient.Explained(err))
	}
	if _, _, err := api.CreateComment(ctx, s.Owner, s.Repo, p.Number, &github.IssueComment{Body: github.String(s.reopenNote(back))}); err != nil {
		return fmt.Errorf("fix issues: comment on reopened issue #%d: %w", p.Number, ghclient.Explained(err))
	}
	return nil
}

// reopenable finds, for each plan without an open issue, the closed issue
// of its key whose findings come back: it sets the plan's Number to that
// issue and returns how many of its findings come back, by key. Nothing
// is read unless a plan without an open issue is about a finding that came
// back (SyncSpec.Returned) and earlier rounds recorded issues: a re-run,
// or a round with only new findings, reads no closed issue.
func (s SyncSpec) reopenable(ctx context.Context, api issuesAPI, plans []PlannedIssue, mine []mineIssue) (map[string]int, error) {
	back := func(p PlannedIssue) bool {
		return p.Number == 0 && slices.ContainsFunc(p.Fingerprints, func(f string) bool { return slices.Contains(s.Returned, f) })
	}
	if len(s.Known) == 0 || !slices.ContainsFunc(plans, back) {
		return nil, nil
	}
	open := map[int]bool{}
	for _, m := range mine {
		open[m.issue.GetNumber()] = true
	}
	closed, err := s.closedByKey(ctx, api, open)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i := range plans {
		p := &plans[i]
		is := closed[p.Key]
		if !back(*p) || is == nil {
			continue
		}
		if n := returning(is, s.LoopID, p.Fingerprints); n > 0 {
			p.Number = is.GetNumber()
			out[p.Key] = n
		}
	}
	return out, nil
}

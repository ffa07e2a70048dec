package round

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// queueRefRE matches the branch GitHub's merge queue builds a group on:
// gh-readonly-queue/<base branch>/pr-<number>-<sha of the group's parent>.
// The base branch may hold slashes; the number is the pull request the
// group was made for, the last one of the group.
var queueRefRE = regexp.MustCompile(`^gh-readonly-queue/(.+)/pr-([1-9][0-9]{0,9})-([0-9a-f]{40})$`)

// QueueRef reads a merge group's head ref (with or without "refs/heads/"):
// the base branch and the pull request it names; ok is false for a ref
// that is no merge queue branch.
func QueueRef(ref string) (base string, pr int, ok bool) {
	m := queueRefRE.FindStringSubmatch(strings.TrimPrefix(ref, "refs/heads/"))
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n > 1<<31-1 {
		return "", 0, false
	}
	return m[1], n, true
}

// pullVerdict says why pull request pull may not merge as far as loop id
// is concerned ("" when it may): the loop must be converged or approved,
// at the pull request's current head. st is the loop's state from
// gcloop's own report comment (nil when there is none).
func pullVerdict(pull *Pull, id string, st *decide.State) string {
	name := fmt.Sprintf("PR #%d: loop %s", pull.Number, id)
	if st == nil {
		return name + " has no report: no round was judged (or its report comment is not gcloop's)"
	}
	last := st.Last()
	if last == nil {
		return name + " has no judged round"
	}
	switch st.Status {
	case decide.StateConverged, decide.StateApproved:
		if last.SHA != pull.HeadSHA {
			return fmt.Sprintf("PR #%d: head moved since the last judged round (loop %s, round %d judged %s; the head is %s)",
				pull.Number, id, last.N, shortSHA(last.SHA), shortSHA(pull.HeadSHA))
		}
		return ""
	case decide.StateEscalated:
		return fmt.Sprintf("%s escalated at round %d", name, last.N)
	case decide.StateAborted:
		return fmt.Sprintf("%s was aborted at round %d", name, last.N)
	case decide.StateOpen:
		if st.NewRound {
			return fmt.Sprintf("%s is open: a new round was requested after round %d and has not run", name, last.N)
		}
		return fmt.Sprintf("%s is open at round %d (%s): it has not converged", name, last.N, report.EscapeInline(string(last.Decision)))
	}
	return fmt.Sprintf("%s has the unknown status %s", name, report.EscapeInline(st.Status))
}

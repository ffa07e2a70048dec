package pushfix

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
)

// ForkReason is the escalation reason for a pull request from a fork.
const ForkReason = "the PR comes from a fork: GITHUB_TOKEN cannot push to it"

// ErrFork is the error for a push to a fork's branch.
var ErrFork = fmt.Errorf("%s", ForkReason)

// Fork reports whether a pull request comes from a fork: its head
// repository is not its base repository. A head repository id of 0 (the
// fork was deleted) counts as a fork: there is nothing to push to.
func Fork(headRepoID, baseRepoID int64) bool {
	return headRepoID == 0 || headRepoID != baseRepoID
}

// Result is the judgment of a round's change set and, once pushed, the
// push's outcome.
type Result struct {
	// Accepted are the changes to push, in path order; empty when the
	// guard refused the change set.
	Accepted []guard.Change `json:"-"`
	// Guard is the guard's judgment, with every violation.
	Guard guard.Result `json:"guard"`
	// Pushed and Commit are set by the caller after a successful Push.
	Pushed bool   `json:"pushed"`
	Commit string `json:"commit,omitempty"`
	// Reverted lists every changed path not pushed because the change
	// set was refused; Guard.Violations say why.
	Reverted []string `json:"reverted,omitempty"`
	// Reason is one line for the report: what was accepted, or why
	// nothing was.
	Reason string `json:"reason"`
}

// Plan judges a round's change set with guard.Check, all or nothing
// (DESIGN §5.3): when the guard finds any violation — of one file or of
// the change as a whole — nothing is accepted and every changed path is
// listed as reverted; otherwise every change is accepted. Changes that
// change nothing (same old and new content, or neither side existing) are
// dropped.
func Plan(changes []guard.Change, before, after *decide.TestFacts, m guard.Metrics, opts guard.Options) Result {
	res := Result{Guard: guard.Check(changes, before, after, m, opts)}
	var real []guard.Change
	for _, c := range changes {
		if c.Same() {
			continue
		}
		real = append(real, c)
	}
	sort.SliceStable(real, func(i, j int) bool { return real[i].Path < real[j].Path })
	if !res.Guard.OK() {
		for _, c := range real {
			res.Reverted = append(res.Reverted, cleanRel(c.Path))
		}
		res.Reason = refusal(res.Guard.Violations, len(real))
		return res
	}
	if len(real) == 0 {
		res.Reason = "no changed files in the workspace: nothing to push"
		return res
	}
	res.Accepted = real
	res.Reason = fmt.Sprintf("%d changed %s accepted by the test-only guard", len(real), plural(len(real), "file", "files"))
	return res
}

// RefuseAll refuses the change set changes as a whole for the violations
// vs, which the guard did not see (a branch GitHub protects, a head that
// moved): nothing is accepted, every changed path is reverted, and Reason
// says so.
func (r *Result) RefuseAll(changes []guard.Change, vs ...guard.Violation) {
	r.Accepted, r.Reverted = nil, nil
	r.Guard.Violations = append(r.Guard.Violations, vs...)
	for _, c := range changes {
		r.Reverted = append(r.Reverted, c.Path)
	}
	r.Reason = refusal(r.Guard.Violations, len(changes))
}

// refusal summarizes the violations in one line.
func refusal(vs []guard.Violation, files int) string {
	counts := map[string]int{}
	var kinds []string
	for _, v := range vs {
		if counts[v.Kind] == 0 {
			kinds = append(kinds, v.Kind)
		}
		counts[v.Kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return fmt.Sprintf("refused by the test-only guard (%d %s: %s); %d changed %s reverted, nothing pushed",
		len(vs), plural(len(vs), "violation", "violations"), strings.Join(parts, ", "), files, plural(files, "file", "files"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

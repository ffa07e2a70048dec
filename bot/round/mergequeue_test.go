package round

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

func TestQueueRef(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("ab", 20)
	tests := []struct {
		ref  string
		base string
		pr   int
		ok   bool
	}{
		{"refs/heads/gh-readonly-queue/main/pr-12-" + sha, "main", 12, true},
		{"gh-readonly-queue/main/pr-12-" + sha, "main", 12, true},
		{"refs/heads/gh-readonly-queue/release/v2/pr-7-" + sha, "release/v2", 7, true},
		{"refs/heads/gh-readonly-queue/main/pr-12-" + sha[:39], "", 0, false},
		{"refs/heads/gh-readonly-queue/main/pr-012-" + sha, "", 0, false},
		{"refs/heads/gh-readonly-queue/main/pr-99999999999-" + sha, "", 0, false},
		{"refs/heads/gh-readonly-queue/pr-12-" + sha, "", 0, false},
		{"refs/heads/feature/pr-12-" + sha, "", 0, false},
		{"refs/heads/gh-readonly-queue/main/pr-12-" + strings.ToUpper(sha), "", 0, false},
		{"", "", 0, false},
	}
	for _, tt := range tests {
		base, pr, ok := QueueRef(tt.ref)
		if base != tt.base || pr != tt.pr || ok != tt.ok {
			t.Errorf("QueueRef(%q) = %q, %d, %v; want %q, %d, %v", tt.ref, base, pr, ok, tt.base, tt.pr, tt.ok)
		}
	}
}

func FuzzQueueRef(f *testing.F) {
	f.Add("refs/heads/gh-readonly-queue/main/pr-12-" + strings.Repeat("ab", 20))
	f.Add("gh-readonly-queue//pr-1-")
	f.Fuzz(func(t *testing.T, ref string) {
		base, pr, ok := QueueRef(ref)
		if ok != (pr > 0) || (ok && (base == "" || !strings.Contains(ref, "/"+base+"/pr-"))) {
			t.Fatalf("QueueRef(%q) = %q, %d, %v", ref, base, pr, ok)
		}
	})
}

func TestPullVerdict(t *testing.T) {
	t.Parallel()
	head, old := strings.Repeat("1", 40), strings.Repeat("2", 40)
	state := func(status string, sha string, n int) *decide.State {
		st := decide.NewState(decide.Review, "review", 3)
		for i := 1; i <= n; i++ {
			st.Record(decide.RoundRecord{N: i, SHA: sha, Decision: decide.Escalate})
		}
		st.Status = status
		return st
	}
	requested := state(decide.StateOpen, head, 1)
	requested.NewRound = true
	tests := []struct {
		name string
		st   *decide.State
		want string
	}{
		{"converged at the head", state(decide.StateConverged, head, 2), ""},
		{"approved at the head", state(decide.StateApproved, head, 3), ""},
		{"converged on an older head", state(decide.StateConverged, old, 2), "PR #12: head moved since the last judged round (loop review, round 2 judged 2222222; the head is 1111111)"},
		{"escalated", state(decide.StateEscalated, head, 3), "PR #12: loop review escalated at round 3"},
		{"aborted", state(decide.StateAborted, head, 1), "PR #12: loop review was aborted at round 1"},
		{"open after a retry", requested, "PR #12: loop review is open: a new round was requested after round 1 and has not run"},
		{"no report", nil, "PR #12: loop review has no report: no round was judged (or its report comment is not gcloop's)"},
		{"no round", state(decide.StateOpen, head, 0), "PR #12: loop review has no judged round"},
		{"an unknown status", state("<b>odd</b>", head, 1), "PR #12: loop review has the unknown status "},
	}
	for _, tt := range tests {
		got := pullVerdict(&Pull{Number: 12, HeadSHA: head}, "review", tt.st)
		if got != tt.want && !(strings.HasSuffix(tt.want, " ") && strings.HasPrefix(got, tt.want) && !strings.Contains(got, "<b>")) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

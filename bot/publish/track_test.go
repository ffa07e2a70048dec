package publish

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/decide"
)

// Fingerprints of the findings in the tracking tests.
const (
	fpA1 = "a1a1a1a1a1a1a1a1"
	fpA2 = "a2a2a2a2a2a2a2a2"
	fpB1 = "b1b1b1b1b1b1b1b1"
	fpB2 = "b2b2b2b2b2b2b2b2"
)

// trackedTask is a review task about findings with these fingerprints.
func trackedTask(id, file string, fps ...string) decide.Task {
	t := reviewTask(id, file, "high "+file+" finding")
	t.Fingerprints = fps
	return t
}

// trackedSpec is a sync of round r that tracks fps, with the issues
// earlier rounds recorded; every fingerprint counts as come back.
func trackedSpec(r int, fps []string, known []int, tasks ...decide.Task) SyncSpec {
	s := spec(r, tasks...)
	s.Tracked = append([]string{}, fps...)
	s.Known = known
	s.Returned = append([]string{}, fps...)
	return s
}

// TestFixIssuesFollowTheirFindings walks one PR's fix issues through the
// rounds of a loop that goes on: an issue whose findings are all fixed is
// closed in that round, one whose finding comes back is reopened, and a
// re-run of each round makes no mutation.
func TestFixIssuesFollowTheirFindings(t *testing.T) {
	t.Parallel()
	m := newMem()
	steps := []struct {
		name     string
		spec     SyncSpec
		calls    []string
		result   SyncResult
		comments map[int]string // the newest comment on an issue
	}{
		{"round 1 opens an issue per file, with the fingerprints hidden",
			trackedSpec(1, []string{fpA1, fpA2, fpB1}, nil, trackedTask("FIX-2-1", "a.go", fpA1, fpA2), trackedTask("FIX-2-2", "b.go", fpB1)),
			[]string{"list page 1", "get label gcloop", "create label gcloop", "get label gcloop:review", "create label gcloop:review",
				"create gcloop: fix a.go (PR #12, round 1)", "create gcloop: fix b.go (PR #12, round 1)"},
			SyncResult{Created: []int{1, 2}}, nil},
		{"round 2 fixed b.go's finding: its issue is closed as fixed while a.go's is updated",
			trackedSpec(2, []string{fpA1}, []int{1, 2}, trackedTask("FIX-3-1", "a.go", fpA1)),
			[]string{"list page 1", "edit #1", "comment #2", "edit #2 state=closed reason=completed"},
			SyncResult{Updated: []int{1}, Closed: []int{2}},
			map[int]string{2: "Fixed in round 2: the review loop `review` on #12 no longer reports the findings of this issue. The loop goes on; this issue is reopened if one of them comes back."}},
		{"round 2 again changes nothing",
			trackedSpec(2, []string{fpA1}, []int{1, 2}, trackedTask("FIX-3-1", "a.go", fpA1)),
			[]string{"list page 1"}, SyncResult{}, nil},
		{"round 3 brings b.go's finding back: its issue is reopened, not duplicated",
			trackedSpec(3, []string{fpA1, fpB1}, []int{1, 2}, trackedTask("FIX-4-1", "a.go", fpA1), trackedTask("FIX-4-2", "b.go", fpB1)),
			[]string{"list page 1", "get #2", "edit #1", "edit #2 state=open reason=", "comment #2"},
			SyncResult{Updated: []int{1}, Reopened: []int{2}},
			map[int]string{2: "Reopened in round 3: the review loop `review` on #12 reports 1 finding of this issue again."}},
		{"round 3 again changes nothing",
			trackedSpec(3, []string{fpA1, fpB1}, []int{1, 2}, trackedTask("FIX-4-1", "a.go", fpA1), trackedTask("FIX-4-2", "b.go", fpB1)),
			[]string{"list page 1"}, SyncResult{}, nil},
		{"an escalation closes only the issues whose findings are all fixed",
			func() SyncSpec { s := trackedSpec(4, []string{fpB1}, []int{1, 2}); s.FixedOnly = true; return s }(),
			[]string{"list page 1", "comment #1", "edit #1 state=closed reason=completed"},
			SyncResult{Closed: []int{1}, KeptOpen: []int{2}},
			map[int]string{1: "Fixed in round 4: the review loop `review` on #12 no longer reports the findings of this issue. It is reopened if one of them comes back."}},
		{"a returning finding that a.go's closed issue did not hold opens a new issue",
			trackedSpec(5, []string{fpB2, fpB1}, []int{1, 2}, trackedTask("FIX-6-1", "a.go", fpB2), trackedTask("FIX-6-2", "b.go", fpB1)),
			[]string{"list page 1", "get #1", "create gcloop: fix a.go (PR #12, round 5)", "edit #2"},
			SyncResult{Created: []int{3}, Updated: []int{2}}, nil},
	}
	for _, st := range steps {
		m.calls = nil
		res := syncRound(t, m, st.spec)
		if diff := cmp.Diff(st.calls, m.calls); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.result, res, cmpNoPlans); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s", st.name, diff)
		}
		for n, want := range st.comments {
			got := m.comments[n]
			if len(got) == 0 || got[len(got)-1] != want {
				t.Errorf("%s: comments on #%d %q, want last %q", st.name, n, got, want)
			}
		}
	}
	if got := m.find(2); got.GetState() != "open" || !strings.Contains(got.GetTitle(), "round 5") {
		t.Errorf("issue #2 %s %q, want open and updated in round 5", got.GetState(), got.GetTitle())
	}
}

// TestIssueWithoutFingerprintsIsNotClosedAsFixed: an issue opened before
// issues carried their findings (or for a task without tracked findings)
// is left to the rules it was opened under.
func TestIssueWithoutFingerprintsIsNotClosedAsFixed(t *testing.T) {
	t.Parallel()
	m := newMem()
	syncRound(t, m, spec(1, reviewTask("FIX-2-1", "a.go", "high a.go finding")))
	s := trackedSpec(2, []string{}, []int{1})
	s.FixedOnly = true
	res := syncRound(t, m, s)
	if diff := cmp.Diff(SyncResult{KeptOpen: []int{1}}, res, cmpNoPlans); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestOnlyAReturningFindingLooksForAClosedIssue: a task about findings
// that never were fixed before reads no closed issue.
func TestOnlyAReturningFindingLooksForAClosedIssue(t *testing.T) {
	t.Parallel()
	m := newMem()
	syncRound(t, m, trackedSpec(1, []string{fpA1}, nil, trackedTask("FIX-2-1", "a.go", fpA1)))
	syncRound(t, m, trackedSpec(2, []string{}, []int{1}, trackedTask("FIX-3-1", "b.go", fpB1)))
	s := trackedSpec(3, []string{fpB1, fpA2}, []int{1, 2}, trackedTask("FIX-4-1", "a.go", fpA2), trackedTask("FIX-4-2", "b.go", fpB1))
	s.Returned = nil // fpA2 is new: a.go's closed issue is not read
	m.calls = nil
	res := syncRound(t, m, s)
	if slices.ContainsFunc(m.calls, func(c string) bool { return strings.HasPrefix(c, "get #") }) || len(res.Created) != 1 {
		t.Errorf("calls %q created %v; want a new issue for a.go and no closed issue read", m.calls, res.Created)
	}
}

// TestDuplicatesAreNotReopened: an issue closed as a duplicate
// (not_planned) stays closed when its finding comes back.
func TestDuplicatesAreNotReopened(t *testing.T) {
	t.Parallel()
	m := newMem()
	syncRound(t, m, trackedSpec(1, []string{fpA1}, nil, trackedTask("FIX-2-1", "a.go", fpA1)))
	m.find(1).State, m.find(1).StateReason = github.String("closed"), github.String("not_planned")
	res := syncRound(t, m, trackedSpec(2, []string{fpA1}, []int{1}, trackedTask("FIX-3-1", "a.go", fpA1)))
	if diff := cmp.Diff(SyncResult{Created: []int{2}}, res, cmpNoPlans); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestFindingsMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fps  []string
		want string
	}{
		{"fingerprints in order", []string{fpA1, fpB1}, "<!-- gcloop:findings review " + fpA1 + " " + fpB1 + " -->"},
		{"malformed ones are left out", []string{"x", fpA1, strings.ToUpper(fpB1), fpB1 + "0"}, "<!-- gcloop:findings review " + fpA1 + " -->"},
		{"none, no marker", nil, ""},
	}
	for _, tt := range tests {
		got := findingsMarker("review", tt.fps)
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if got != "" {
			if back := parseFindingsMarker("text\n"+got+"\n", "review"); strings.Join(back, " ") != strings.TrimSuffix(strings.TrimPrefix(got, "<!-- gcloop:findings review "), " -->") {
				t.Errorf("%s: read back %q", tt.name, back)
			}
		}
	}
	many := make([]string, 300)
	for i := range many {
		many[i] = fpA1
	}
	if n := len(parseFindingsMarker(findingsMarker("review", many), "review")); n != maxMarkedFingerprints {
		t.Errorf("%d fingerprints kept, want %d", n, maxMarkedFingerprints)
	}
	if got := parseFindingsMarker(findingsMarker("other", []string{fpA1}), "review"); got != nil {
		t.Errorf("another loop's marker read as ours: %q", got)
	}
}

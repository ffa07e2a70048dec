package pushfix

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/decide"
)

func f64(v float64) *float64 { return &v }

func TestPlanIsAllOrNothing(t *testing.T) {
	t.Parallel()
	improved := guard.Metrics{CoverageBefore: f64(50), CoverageAfter: f64(60)}
	flat := guard.Metrics{CoverageBefore: f64(50), CoverageAfter: f64(50)}
	testFile := guard.Change{Path: "pkg/b_test.go", New: []byte("package pkg\n\nfunc TestB(t *testing.T) {}\n"), NewExists: true}
	golden := guard.Change{Path: "pkg/testdata/out.golden", Old: []byte("a\n"), New: []byte("b\n"), OldExists: true, NewExists: true}
	noop := guard.Change{Path: "pkg/c_test.go", Old: []byte("same"), New: []byte("same"), OldExists: true, NewExists: true}
	source := guard.Change{Path: "pkg/a.go", Old: []byte("package pkg\n"), New: []byte("package pkg\n// x\n"), OldExists: true, NewExists: true}
	workflow := guard.Change{Path: ".github/workflows/ci.yml", Old: []byte("on: push\n"), OldExists: true}
	skip := guard.Change{Path: "pkg/d_test.go", New: []byte("package pkg\n\nfunc TestD(t *testing.T) { t.Skip(\"later\") }\n"), NewExists: true}

	tests := []struct {
		name         string
		changes      []guard.Change
		before       *decide.TestFacts
		after        *decide.TestFacts
		metrics      guard.Metrics
		wantAccepted []string
		wantReverted []string
		wantReason   string
	}{
		{
			name:         "test files that improve coverage are accepted",
			changes:      []guard.Change{golden, testFile, noop},
			metrics:      improved,
			wantAccepted: []string{"pkg/b_test.go", "pkg/testdata/out.golden"},
			wantReason:   "2 changed files accepted by the test-only guard",
		},
		{
			name:         "one source file reverts every change",
			changes:      []guard.Change{testFile, source},
			metrics:      improved,
			wantReverted: []string{"pkg/a.go", "pkg/b_test.go"},
			wantReason:   "refused by the test-only guard (1 violation: 1 non_test_file); 2 changed files reverted, nothing pushed",
		},
		{
			name:         "a workflow file and an added skip are both reported",
			changes:      []guard.Change{workflow, skip},
			metrics:      improved,
			wantReverted: []string{".github/workflows/ci.yml", "pkg/d_test.go"},
			wantReason:   "refused by the test-only guard (2 violations: 1 workflow_file, 1 forbidden_marker); 2 changed files reverted, nothing pushed",
		},
		{
			name:         "no improvement reverts test-only changes",
			changes:      []guard.Change{testFile},
			metrics:      flat,
			wantReverted: []string{"pkg/b_test.go"},
			wantReason:   "refused by the test-only guard (1 violation: 1 no_improvement); 1 changed file reverted, nothing pushed",
		},
		{
			name:    "a broken test reverts the change",
			changes: []guard.Change{testFile},
			before:  &decide.TestFacts{Cases: []decide.TestCase{{Name: "TestA", Status: decide.Passed}}},
			after:   &decide.TestFacts{Cases: []decide.TestCase{{Name: "TestA", Status: decide.Failed}}},
			metrics: improved, wantReverted: []string{"pkg/b_test.go"},
			wantReason: "refused by the test-only guard (1 violation: 1 test_broken); 1 changed file reverted, nothing pushed",
		},
		{
			name:       "an empty workspace change has nothing to push",
			changes:    []guard.Change{noop},
			wantReason: "no changed files in the workspace: nothing to push",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Plan(tt.changes, tt.before, tt.after, tt.metrics, guard.Options{})
			var accepted []string
			for _, c := range r.Accepted {
				accepted = append(accepted, c.Path)
			}
			if diff := cmp.Diff(tt.wantAccepted, accepted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("accepted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantReverted, r.Reverted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reverted (-want +got):\n%s", diff)
			}
			if r.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", r.Reason, tt.wantReason)
			}
			if r.Pushed || r.Commit != "" {
				t.Errorf("Plan pushed = %v, commit = %q; it never pushes", r.Pushed, r.Commit)
			}
			if (len(tt.wantReverted) > 0) == r.Guard.OK() {
				t.Errorf("guard OK = %v with violations %v", r.Guard.OK(), r.Guard.Violations)
			}
		})
	}
}

func TestForkComparesRepositoryIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		head, base int64
		want       bool
	}{
		{"same repository", 42, 42, false},
		{"a fork", 43, 42, true},
		{"a deleted fork", 0, 42, true},
	}
	for _, tt := range tests {
		if got := Fork(tt.head, tt.base); got != tt.want {
			t.Errorf("%s: Fork(%d, %d) = %v, want %v", tt.name, tt.head, tt.base, got, tt.want)
		}
	}
	if ErrFork.Error() != ForkReason || !errors.Is(ErrFork, ErrFork) {
		t.Errorf("ErrFork = %q, want %q", ErrFork, ForkReason)
	}
}

// A change set the guard accepted and that cannot be pushed after all (a
// protected branch, a head that moved) is refused whole, and its Reason
// says so instead of the acceptance.
func TestRefuseAllTakesBackAnAcceptedPlan(t *testing.T) {
	t.Parallel()
	changes := []guard.Change{{Path: "pkg/b_test.go", New: []byte("package pkg\n\nfunc TestB(t *testing.T) {}\n"), NewExists: true}}
	res := Plan(changes, nil, nil, guard.Metrics{CoverageBefore: f64(50), CoverageAfter: f64(60)}, guard.Options{})
	if len(res.Accepted) != 1 {
		t.Fatalf("plan %+v, want the test file accepted", res)
	}
	res.RefuseAll(changes, guard.Violation{Kind: "conflict", Detail: "the PR head moved"})
	if len(res.Accepted) != 0 || !cmp.Equal(res.Reverted, []string{"pkg/b_test.go"}) || res.Guard.OK() {
		t.Errorf("after RefuseAll: accepted %v, reverted %v, guard ok %v; want nothing accepted, the file reverted", res.Accepted, res.Reverted, res.Guard.OK())
	}
	if want := "(1 violation: 1 conflict); 1 changed file reverted, nothing pushed"; !strings.Contains(res.Reason, want) {
		t.Errorf("reason %q, want it to contain %q", res.Reason, want)
	}
}

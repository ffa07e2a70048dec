package action_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// groups lists the ::group:: titles of a log in order, and fails the test
// when a group is opened inside another or left open.
func groups(t *testing.T, log string) []string {
	t.Helper()
	var titles []string
	open := false
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(line, "::group::"):
			if open {
				t.Errorf("group %q opened inside another:\n%s", line, log)
			}
			open = true
			titles = append(titles, strings.TrimPrefix(line, "::group::"))
		case line == "::endgroup::":
			if !open {
				t.Errorf("::endgroup:: without a group:\n%s", log)
			}
			open = false
		}
	}
	if open {
		t.Errorf("a group is left open:\n%s", log)
	}
	return titles
}

// The action's log has its sections and one line per step: the evidence
// read and as what, the decision, each effect on GitHub.
func TestActionLogGroupsAndSteps(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "review-results.json"}
	r1 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewFix}})
	if r1.code != 0 {
		t.Fatalf("round 1 exit %d\n%s\n%s", r1.code, r1.stdout, r1.stderr)
	}
	want := []string{"gcloop: inputs", "gcloop: evidence", "gcloop: decision", "gcloop: effects on GitHub", "gcloop: result"}
	if diff := cmp.Diff(want, groups(t, r1.stdout)); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	mustContain(t, "the log", r1.stdout,
		"gcloop: evidence review-results.json; artifacts none\n",
		"gcloop: evidence review-results.json: read as review, 4 finding(s)\n",
		"gcloop: decision: FIX — round 1 of 3 (review)\n",
		"gcloop: issues: opened #",
		"gcloop: check run gcloop / review: written (id ",
		"gcloop: report comment created: https://",
	)
	for _, line := range strings.Split(r1.stdout+r1.stderr, "\n") {
		if strings.Contains(line, token) && line != "::add-mask::"+token {
			t.Errorf("the log shows the token: %q", line)
		}
	}

	// The same run re-run changes nothing: the log says so.
	r2 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewFix}, attempt: 2})
	mustContain(t, "the re-run's log", r2.stdout, "gcloop: report comment unchanged: https://", "gcloop: check run gcloop / review: unchanged\n")

	// A new head that converges: the comment is edited, the issues closed.
	w.push(map[string]string{"cart.go": "package cart // fixed\n"})
	r3 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewOK}, runID: 5001})
	mustContain(t, "round 2's log", r3.stdout, "gcloop: report comment edited: https://", "; closed #")
}

// By hand (no GITHUB_ACTIONS) the log is plain lines on stderr: no group.
func TestActionLogPlainByHand(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "review-results.json"},
		files: map[string]string{"review-results.json": reviewOK}, extra: map[string]string{"GITHUB_ACTIONS": "false"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "::group::") || strings.Contains(r.stdout+r.stderr, "::endgroup::") {
		t.Errorf("groups by hand:\n%s\n%s", r.stdout, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "gcloop: evidence review-results.json: read as review\n", "gcloop: decision: CONVERGE")
}

// Each unusable input is an ::error of its own naming it (exit 2, usage);
// stderr keeps the one line naming them all.
func TestActionOneErrorPerBadInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "lint", "comment": "yes", "max-rounds": "three", "evidence": "r.json"}})
	if r.code != 2 {
		t.Fatalf("exit %d, want 2 (usage)\n%s", r.code, r.stderr)
	}
	errs := regexp.MustCompile(`(?m)^::error title=gcloop%3A input ([a-z-]+)::input ([a-z-]+): .*$`).FindAllStringSubmatch(r.stdout, -1)
	var names []string
	for _, m := range errs {
		if m[1] != m[2] {
			t.Errorf("annotation %q: title and message name different inputs", m[0])
		}
		names = append(names, m[1])
	}
	if diff := cmp.Diff([]string{"loop", "comment", "max-rounds"}, names); diff != "" {
		t.Errorf("::error per input (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	mustContain(t, "stderr", r.stderr, `input loop: unknown loop "lint"`, `; input comment: "yes": want true or false; input max-rounds`)
	if m := w.mutations(0); len(m) != 0 {
		t.Errorf("mutations %v, want none", m)
	}
}

// Diagnostics met while reading are printed also when the round fails.
func TestActionNotesPrintedOnFailure(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	empty := `<?xml version="1.0"?><coverage line-rate="1" lines-covered="0" lines-valid="0"><packages/></coverage>`
	r := w.runAction(step{inputs: map[string]string{"loop": "coverage", "evidence": "coverage.xml"},
		files: map[string]string{"coverage.xml": empty}})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mustContain(t, "the log", r.stdout, "gcloop: evidence coverage.xml: read as coverage (cobertura)")
	groups(t, r.stdout) // closed before the error
}

// A comma separates list entries: evidence given as one line of several
// paths reads each.
func TestActionEvidenceCommaSeparated(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": " a.json ,b.json,\n"},
		files: map[string]string{"a.json": reviewFix, "b.json": reviewFix}})
	if r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	mustContain(t, "the log", r.stdout, "gcloop: evidence a.json: read as review", "gcloop: evidence b.json: read as review")
}

// logGroups are the workflow commands of the action's log sections, for
// runnerCommands: their titles are gcloop's own, never evidence text.
var logGroups = []string{"group::gcloop: inputs", "group::gcloop: evidence", "group::gcloop: decision",
	"group::gcloop: effects on GitHub", "group::gcloop: result", "endgroup::"}

// The log names each artifact file read and what as, and the files passed
// over; artifacts given as a comma-separated list are each downloaded.
func TestActionLogArtifacts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{ID: 8000, HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review", ghfake.Zip(t, map[string][]byte{"review-results.json": []byte(reviewFix), "notes.txt": []byte("hello")}))
	w.gh.AddArtifact(owner, repo, runID, "more", ghfake.Zip(t, map[string][]byte{"ok.json": []byte(reviewFix)}))
	payload := map[string]any{"action": "completed", "workflow_run": map[string]any{"id": runID, "head_sha": w.head, "head_branch": "feature/cart",
		"head_repository": map[string]any{"id": 100}, "pull_requests": []any{map[string]any{"number": w.pr,
			"head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}}
	r := w.runAction(step{event: "workflow_run", payload: payload, inputs: map[string]string{"loop": "review", "artifacts": "review, more"}, runID: 8001})
	if r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v\n%s\n%s", r.code, r.outputs, r.stdout, r.stderr)
	}
	mustContain(t, "the log", r.stdout,
		"gcloop: evidence none; artifacts review, more\n",
		"gcloop: artifacts of workflow run 8000: 2 found for review, more\n",
		"gcloop: evidence artifact review/review-results.json: read as review, 4 finding(s)\n",
		"gcloop: artifact review/notes.txt: not a format gcloop reads, passed over\n",
		"gcloop: evidence artifact more/ok.json: read as review, 4 finding(s)\n")
}

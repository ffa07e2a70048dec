package action_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// decisionNotes reads the notes of the decision JSON a run wrote.
func decisionNotes(t *testing.T, r run) []string {
	t.Helper()
	data, err := os.ReadFile(r.file("decision-json"))
	if err != nil {
		t.Fatalf("read the decision JSON: %v", err)
	}
	var d struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("decision JSON %s: %v", r.file("decision-json"), err)
	}
	return d.Notes
}

// mustNotLeak fails when s names a URL, the fake's address or the token.
func mustNotLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, leak := range []string{"://", "127.0.0.1", token, "/repos/"} {
		if strings.Contains(s, leak) {
			t.Errorf("%s names %q: %s", what, leak, s)
		}
	}
}

func TestFailedMutationReadsAsGitHubsWordsInTheNotes(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 500, Message: "Server Error"})
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewFix}})
	if r.outputs["status"] != "partial" {
		t.Fatalf("exit %d outputs %v, want a partial decision\n%s", r.code, r.outputs, r.stderr)
	}
	notes := strings.Join(decisionNotes(t, r), "\n")
	mustContain(t, "the notes", notes, "the report comment could not be written: report comment: create on PR #1: server error: Server Error")
	mustNotLeak(t, "the notes", notes)
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.Contains(line, "GitHub API") {
			mustContain(t, "stderr", line, "gcloop: GitHub API: write the report comment: report comment: create on PR #1: server error: Server Error")
			mustNotLeak(t, "stderr", line)
		}
	}
}

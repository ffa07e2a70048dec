package action_test

import (
	"strings"
	"testing"
)

// The action on issue_comment reads the command's comment again before it
// acts: a comment edited since the event (another body now) or deleted is
// ignored — no reaction, no dispatch, no change to the report.
func TestCommandChangedSinceTheEventIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "dispatch": "review.yml"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}}); r.outputs["decision"] != "escalate" {
		t.Fatalf("setup: outputs %v\n%s", r.outputs, r.stderr)
	}
	w.gh.SetPermission(owner, repo, "writer", "write")
	report := w.gh.Comments(owner, repo, w.pr)[0].Body
	// The comment says something else now than the event delivered.
	id := w.gh.AddComment(owner, repo, w.pr, "writer", "/gc retry — no, wait")
	from := len(w.gh.Requests())
	r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "writer", "/gc retry"), inputs: in})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "the log", r.stdout+r.stderr, "ignored", "edited after it was delivered")
	if m := w.mutations(from); len(m) != 0 {
		t.Errorf("an edited command wrote %q", m)
	}
	if got := w.gh.Comments(owner, repo, w.pr)[0].Body; got != report || len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Error("an edited command changed the report or dispatched a round")
	}
	// A comment that is gone.
	r = w.runAction(step{event: "issue_comment", payload: w.commentEvent(999999, "writer", "/gc retry"), inputs: in})
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "deleted after it was delivered") {
		t.Errorf("a deleted command: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Error("a deleted command dispatched a round")
	}
}

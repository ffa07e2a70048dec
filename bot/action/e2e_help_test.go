package action_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestHelpOnceEndToEnd: the action on an issue_comment `/gc halp` by a
// reader posts one reply — the commands and who may run them, as the
// default branch's configuration sets it — and a re-run of the workflow on
// the same comment posts none.
func TestHelpOnceEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  commands:\n    permission: maintain\n"))
	w.gh.SetPermission(owner, repo, "reader", "read")
	const body = "thanks!\n\n/gc halp"
	id := w.gh.AddComment(owner, repo, w.pr, "reader", body)
	in := map[string]string{"loop": "review"}
	replies := func(from int) []string {
		var out []string
		for _, r := range w.gh.Requests()[from:] {
			if r.Method == http.MethodPost && r.Path == fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, w.pr) {
				var c struct{ Body string }
				if err := json.Unmarshal(r.Body, &c); err != nil {
					t.Fatal(err)
				}
				out = append(out, c.Body)
			}
		}
		return out
	}
	for attempt := 1; attempt <= 2; attempt++ {
		from := len(w.gh.Requests())
		r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "reader", body), inputs: in, attempt: attempt})
		if r.code != 0 {
			t.Fatalf("attempt %d: exit %d\n%s", attempt, r.code, r.stderr)
		}
		got := replies(from)
		for _, path := range w.requestsSince(from) {
			if strings.Contains(path, "/permission") {
				t.Errorf("attempt %d: the help checked a permission: %s", attempt, path)
			}
		}
		if attempt == 2 {
			if len(got) != 0 {
				t.Errorf("the re-run posted %d replies, want none:\n%s", len(got), strings.Join(got, "\n---\n"))
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%d replies, want 1", len(got))
		}
		mustContain(t, "the reply", got[0], "@reader 😕 “halp” is not a command.", "`/gc retry [loop]`", "`/gc help`",
			"**Who may run them:** users with **maintain** or admin permission on the repository",
			fmt.Sprintf("<!-- gcloop:reply %d -->", id))
	}
	mustContain(t, "the reactions", fmt.Sprint(w.gh.Reactions(owner, repo, id)), "eyes", "confused")
}

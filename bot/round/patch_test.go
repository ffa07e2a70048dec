package round_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/bot/round"
)

// newTestPatch adds cart_test.go, which the world's head does not have.
const newTestPatch = "diff --git a/cart_test.go b/cart_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/cart_test.go\n@@ -0,0 +1,5 @@\n+package cart\n+\n+import \"testing\"\n+\n+func TestEmpty(t *testing.T) {}\n"

func readPatch(t *testing.T, text string) *pushfix.Patch {
	t.Helper()
	p, err := pushfix.ReadPatch("coverage/gcloop-changes.patch", strings.NewReader(text), pushfix.PatchLimits{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEngineThePatchIsTheChangeSetNotTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("coverage:\n  bot:\n    artifacts: [coverage]\n"))
	pull := w.pull()
	e := w.engine(round.Event{Name: "workflow_run", SHA: pull.HeadSHA, RunID: 7, RunAttempt: 1, Pull: pull}, round.Options{Comment: true})
	// The workspace is empty: compared with the head, every file would be
	// deleted and the round refused. With a patch it is not looked at.
	ws := t.TempDir()
	res := &round.Result{}
	in := round.Input{Pull: pull, Evidence: evidence(t, "coverage"), Workspace: ws, Patch: readPatch(t, newTestPatch)}
	if err := e.Run(context.Background(), in, res); err != nil {
		t.Fatal(err)
	}
	if res.Commit == "" {
		t.Fatalf("no commit; reasons %q, notes %q", res.Decision.Reasons, res.Decision.Notes)
	}
	files := w.gh.TreeFiles(owner, repo, res.Commit)
	if string(files["cart_test.go"]) != "package cart\n\nimport \"testing\"\n\nfunc TestEmpty(t *testing.T) {}\n" || len(files) != 3 {
		t.Errorf("pushed tree of %d files, cart_test.go %q: want the head's two files and the patch's test", len(files), files["cart_test.go"])
	}
}

func TestEngineDryRunPlansNoCommitFromAPatch(t *testing.T) {
	t.Parallel()
	rec := &round.Recorder{}
	pull := &round.Pull{Number: 3, HeadSHA: strings.Repeat("a", 40), HeadRef: "feature/cart", HeadRepoID: 1, BaseRepoID: 1}
	ev := &round.Event{Name: "workflow_run", Owner: owner, Repo: repo, SHA: pull.HeadSHA, Pull: pull}
	e := &round.Engine{GH: rec, Event: ev, Opts: round.Options{Loop: "coverage"}, Now: func() time.Time { return clock }}
	res := &round.Result{}
	if err := e.Run(context.Background(), round.Input{Pull: pull, Evidence: evidence(t, "coverage"), Patch: readPatch(t, newTestPatch)}, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Decision.Notes, "\n"), "dry run: the generator's patch is applied to the PR head's tree, which needs the API") {
		t.Errorf("notes %q: want the dry run to say the patch needs the API", res.Decision.Notes)
	}
	for _, w := range rec.Writes {
		if w.Kind == "push" {
			t.Errorf("a dry run recorded a push: %+v", w)
		}
	}
}

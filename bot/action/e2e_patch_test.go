package action_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// The head's cart_test.go, and patches a generator without write access
// made against it with git diff --binary.
const (
	patchCartTest  = "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total() != 1 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n"
	patchAddsTest  = "diff --git a/total_test.go b/total_test.go\nnew file mode 100644\nindex 0000000..88eb002\n--- /dev/null\n+++ b/total_test.go\n@@ -0,0 +1,5 @@\n+package cart\n+\n+import \"testing\"\n+\n+func TestEmpty(t *testing.T) {}\n"
	patchDropsTest = "diff --git a/cart_test.go b/cart_test.go\nindex 88b418a..5ce858c 100644\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -1,9 +1 @@\n package cart\n-\n-import \"testing\"\n-\n-func TestTotal(t *testing.T) {\n-\tif Total() != 1 {\n-\t\tt.Fatal(\"total\")\n-\t}\n-}\n"
	junitBaseline  = `<testsuites><testsuite name="cart" tests="1"><testcase classname="cart" name="TestTotal"/></testsuite></testsuites>`
)

// patchRound runs the action on workflow_run, the privileged half of the
// fork-safe split: the read-only run left the artifact "coverage" with its
// evidence, its patch and the baseline; the workspace is a checkout of
// the default branch, whose changes are not the generator's.
func (w *world) patchRound(t *testing.T, patch string) run {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{ID: 8100, HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "coverage", ghfake.Zip(t, map[string][]byte{
		"lcov.info": []byte(lcovHigh), "junit.xml": []byte(junitPass),
		"gcloop-changes.patch": []byte(patch), "gcloop-baseline.xml": []byte(junitBaseline)}))
	payload := map[string]any{"action": "completed", "workflow_run": map[string]any{"id": runID, "head_sha": w.head, "head_branch": "feature/cart",
		"event": "pull_request", "head_repository": map[string]any{"id": 100}, "pull_requests": []any{map[string]any{"number": w.pr,
			"head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}}
	return w.runAction(step{event: "workflow_run", payload: payload, runID: 8101,
		inputs: map[string]string{"loop": "coverage", "artifacts": "coverage", "dispatch": "coverage.yml"},
		files:  map[string]string{"README.md": "# shop\n", "cart.go": "package cart // the default branch, not the generator's change\n"}})
}

func TestWorkflowRunAppliesTheGeneratorsPatch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": patchCartTest})
	head := w.head
	r := w.patchRound(t, patchAddsTest)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sha := r.outputs["commit"]
	if sha == "" || w.gh.Ref(owner, repo, "heads/feature/cart") != sha {
		t.Fatalf("commit output %q, branch at %q\n%s%s", sha, w.gh.Ref(owner, repo, "heads/feature/cart"), r.stdout, r.stderr)
	}
	if c := w.gh.Commit(owner, repo, sha); len(c.Parents) != 1 || c.Parents[0] != head || !c.Verified {
		t.Errorf("commit %+v: want one verified commit on %s", c, head)
	}
	files := w.gh.TreeFiles(owner, repo, sha)
	if string(files["total_test.go"]) != "package cart\n\nimport \"testing\"\n\nfunc TestEmpty(t *testing.T) {}\n" || string(files["cart.go"]) != "package cart\n" {
		t.Errorf("pushed tree: total_test.go %q, cart.go %q; want the patch's test on the head, and nothing of the workspace", files["total_test.go"], files["cart.go"])
	}
	for _, q := range w.gh.Requests() {
		if q.Method == "PATCH" && strings.Contains(q.Path, "/git/refs/") {
			var body map[string]any
			if err := json.Unmarshal(q.Body, &body); err != nil || body["force"] != false {
				t.Errorf("ref update %s: want force false", q.Body)
			}
		}
	}
	// GITHUB_TOKEN's push starts no workflow: the next round is dispatched.
	if d := w.gh.Dispatches(owner, repo); len(d) != 1 || d[0].Workflow != "coverage.yml" {
		t.Errorf("dispatches %+v, want coverage.yml", d)
	}
	mustContain(t, "the log", r.stdout+r.stderr, "coverage/gcloop-changes.patch")
}

func TestWorkflowRunRefusesAPatchThatDropsATest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"cart_test.go": patchCartTest})
	head := w.head
	r := w.patchRound(t, patchDropsTest)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.outputs["commit"] != "" || w.gh.Ref(owner, repo, "heads/feature/cart") != head || len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Fatalf("commit %q, dispatches %v: want nothing pushed or dispatched", r.outputs["commit"], w.gh.Dispatches(owner, repo))
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "reverted", `test\_removed`, "TestTotal")
}

package delivery_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/ghfake"
)

// The head of the pull request the generator's patches were made on
// (git diff --binary against it).
var patchHeadFiles = map[string][]byte{
	"README.md":    []byte("# shop\n"),
	"cart.go":      []byte("package cart\n\nfunc Total() int { return 1 }\n"),
	"cart_test.go": []byte("package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total() != 1 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n"),
}

const (
	// patchNewTest adds total_test.go.
	patchNewTest   = "diff --git a/total_test.go b/total_test.go\nnew file mode 100644\nindex 0000000..a6cb7d5\n--- /dev/null\n+++ b/total_test.go\n@@ -0,0 +1,9 @@\n+package cart\n+\n+import \"testing\"\n+\n+func TestTotalAgain(t *testing.T) {\n+\tif Total() != 1 {\n+\t\tt.Fatal(\"again\")\n+\t}\n+}\n"
	newTestContent = "package cart\n\nimport \"testing\"\n\nfunc TestTotalAgain(t *testing.T) {\n\tif Total() != 1 {\n\t\tt.Fatal(\"again\")\n\t}\n}\n"
	// patchDeletesTest empties cart_test.go of TestTotal.
	patchDeletesTest = "diff --git a/cart_test.go b/cart_test.go\nindex 88b418a..5ce858c 100644\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -1,9 +1 @@\n package cart\n-\n-import \"testing\"\n-\n-func TestTotal(t *testing.T) {\n-\tif Total() != 1 {\n-\t\tt.Fatal(\"total\")\n-\t}\n-}\n"
	// patchOtherContext was made on a cart_test.go that fails with "sum".
	patchOtherContext = "diff --git a/cart_test.go b/cart_test.go\n--- a/cart_test.go\n+++ b/cart_test.go\n@@ -7,3 +7,4 @@ func TestTotal(t *testing.T) {\n \t\tt.Fatal(\"sum\")\n \t}\n }\n+// more\n"
	// patchNonTest changes cart.go.
	patchNonTest = "diff --git a/cart.go b/cart.go\nindex 4f3a0bb..2fed4c1 100644\n--- a/cart.go\n+++ b/cart.go\n@@ -1,3 +1,3 @@\n package cart\n \n-func Total() int { return 1 }\n+func Total() int { return 2 }\n"

	junitBefore = `<testsuites><testsuite name="cart" tests="1"><testcase classname="cart" name="TestTotal"/></testsuite></testsuites>`
	junitAfter  = `<testsuites><testsuite name="cart" tests="2"><testcase classname="cart" name="TestTotal"/><testcase classname="cart" name="TestTotalAgain"/></testsuite></testsuites>`
	junitLost   = `<testsuites><testsuite name="cart" tests="1"><testcase classname="cart" name="TestOther"/></testsuite></testsuites>`
	coverProf   = "mode: set\ngithub.com/octo/shop/cart.go:3.19,3.30 1 1\n"
)

// patchWorld is a repository whose coverage loop reads the artifact
// "coverage" of a run of a read-only workflow on the pull request, and
// dispatches ci.yml after a fix commit.
func patchWorld(t *testing.T, pull ...func(*ghfake.PullSpec)) *world {
	t.Helper()
	return patchWorldWith(t, "coverage:\n  dispatch: ci.yml\n  bot:\n    artifacts: [coverage]\n", pull...)
}

// patchWorldWith is patchWorld with the repository's configuration.
func patchWorldWith(t *testing.T, config string, pull ...func(*ghfake.PullSpec)) *world {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, bot, true)
	gh.AddWorkflow(owner, repo, "ci.yml")
	base := gh.AddCommit(owner, repo, "main", map[string][]byte{"README.md": []byte("# shop\n"), ".github/gcloop.yml": []byte(config)})
	head := gh.AddCommit(owner, repo, "feature/cart", patchHeadFiles, base)
	spec := ghfake.PullSpec{Title: "Cart", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base}
	for _, f := range pull {
		f(&spec)
	}
	pr := gh.AddPull(owner, repo, spec)
	gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(config))
	log := &memLog{}
	h := &delivery.Handler{Clients: ghfake.Installation{Server: gh, ID: 42, Token: token}, Login: bot, Log: log, Timeout: time.Minute,
		Plain: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		Now:   func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }}
	return &world{gh: gh, h: h, log: log, pr: pr, head: head, base: base}
}

// coverageRun is the completed workflow_run delivery of a read-only run
// whose artifact "coverage" holds files.
func (w *world) coverageRun(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "coverage", ghfake.Zip(t, files))
	return w.runPayload(t, runID, 100, owner+"/"+repo, []any{map[string]any{"number": w.pr, "head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}})
}

// forkCoverageRun is coverageRun for a pull request from the fork fork/shop (id
// 200): GitHub lists no pull request in a fork's run.
func (w *world) forkCoverageRun(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: w.head, HeadBranch: "feature/cart", HeadRepoID: 200, HeadRepo: "fork/shop"})
	w.gh.AddArtifact(owner, repo, runID, "coverage", ghfake.Zip(t, files))
	return w.runPayload(t, runID, 200, "fork/shop", []any{})
}

// runPayload is a completed workflow_run delivery, shaped as GitHub's
// webhook documentation shows it.
func (w *world) runPayload(t *testing.T, runID, headRepoID int64, headRepo string, pulls []any) []byte {
	t.Helper()
	return payload(t, map[string]any{"action": "completed", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender": map[string]any{"login": "dev"},
		"workflow_run": map[string]any{"id": runID, "run_attempt": 1, "head_sha": w.head, "head_branch": "feature/cart", "status": "completed", "conclusion": "success",
			"event": "pull_request", "head_repository": map[string]any{"id": headRepoID, "full_name": headRepo},
			"pull_requests": pulls}})
}

// coverageFiles is the artifact of a run whose generator left patch.
func coverageFiles(patch, after string) map[string][]byte {
	return map[string][]byte{"junit.xml": []byte(after), "cover.out": []byte(coverProf),
		"gcloop-changes.patch": []byte(patch), "gcloop-baseline.xml": []byte(junitBefore)}
}

// gitWrites are the Git Data API writes among the requests from on.
func gitWrites(gh *ghfake.Server, from int) []string {
	var out []string
	for _, m := range mutations(gh, from) {
		if strings.Contains(m, "/git/") || strings.Contains(m, "/dispatches") {
			out = append(out, m)
		}
	}
	return out
}

func TestTheBotAppliesGuardsAndPushesAGeneratorsPatch(t *testing.T) {
	t.Parallel()
	w := patchWorld(t)
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.coverageRun(t, coverageFiles(patchNewTest, junitAfter))); err != nil {
		t.Fatal(err)
	}
	// One commit through the Git Data API, on the judged head, and no
	// dispatch: the App's push starts the workflows itself.
	want := []string{
		"POST /repos/octo/shop/git/blobs",
		"POST /repos/octo/shop/git/trees",
		"POST /repos/octo/shop/git/commits",
		"PATCH /repos/octo/shop/git/refs/heads/feature/cart",
	}
	if diff := cmp.Diff(want, gitWrites(w.gh, 0)); diff != "" {
		t.Fatalf("git writes (-want +got):\n%s", diff)
	}
	var read []string
	for _, r := range w.gh.Requests() {
		if r.Method == "GET" && (r.Path == "/repos/octo/shop" || strings.HasPrefix(r.Path, "/repos/octo/shop/branches/")) {
			read = append(read, r.Path)
		}
		if r.Method == "PATCH" && strings.Contains(r.Path, "/git/refs/") {
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil || body["force"] != false {
				t.Errorf("ref update %s, want force false", r.Body)
			}
		}
	}
	if diff := cmp.Diff([]string{"/repos/octo/shop", "/repos/octo/shop/branches/feature%2Fcart"}, read); diff != "" {
		t.Errorf("the default branch and the branch's protection were not read before the push (-want +got):\n%s", diff)
	}
	sha := w.gh.Ref(owner, repo, "heads/feature/cart")
	c := w.gh.Commit(owner, repo, sha)
	if sha == w.head || len(c.Parents) != 1 || c.Parents[0] != w.head || c.Author != nil || c.Committer != nil {
		t.Fatalf("branch at %s, commit %+v: want one signed commit whose parent is the judged head %s", sha, c, w.head)
	}
	files := w.gh.TreeFiles(owner, repo, sha)
	if string(files["total_test.go"]) != newTestContent || string(files["cart_test.go"]) != string(patchHeadFiles["cart_test.go"]) || len(files) != len(patchHeadFiles)+1 {
		t.Errorf("tree of the commit: %d files, total_test.go %q; want the head's files and the new test", len(files), files["total_test.go"])
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "pushed 1 test-only file(s) as "+sha[:7]) {
		t.Errorf("report %+v: want it to name the pushed commit", comments)
	}
	if len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Errorf("dispatched %v after a push that starts the workflows itself", w.gh.Dispatches(owner, repo))
	}
}

func TestTheBotRefusesAPatchItMustNotPush(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		patch   string
		after   string
		protect bool
		say     []string
	}{
		{"a patch that deletes a test", patchDeletesTest, junitLost, false,
			[]string{"refused and not pushed (reverted)", `cart\_test.go`, "TestTotal", "passed before and is missing after"}},
		{"a patch that does not apply exactly", patchOtherContext, junitAfter, false,
			[]string{"refused and not pushed (reverted)", "conflict", "hunk 1", "does not apply exactly"}},
		{"a patch to a file that is not a test", patchNonTest, junitAfter, false,
			[]string{"refused and not pushed (reverted)", "cart.go", "not a test file"}},
		{"a patch to a protected branch", patchNewTest, junitAfter, true,
			[]string{"refused and not pushed (reverted)", "protected branch"}},
		{"a patch to a workflow", "diff --git a/.github/workflows/ci_test.yml b/.github/workflows/ci_test.yml\nnew file mode 100644\n--- /dev/null\n+++ b/.github/workflows/ci_test.yml\n@@ -0,0 +1 @@\n+on: push\n", junitAfter, false,
			[]string{"refused and not pushed (reverted)", `workflow\_file`}},
		{"a patch that cannot be read", "diff --git a/../x_test.go b/../x_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/../x_test.go\n@@ -0,0 +1 @@\n+x\n", junitAfter, false,
			[]string{"refused and not pushed (reverted)", "coverage/gcloop-changes.patch", "not a clean repository-relative path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := patchWorld(t)
			if tt.protect {
				w.gh.Protect(owner, repo, "feature/cart", true)
			}
			if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.coverageRun(t, coverageFiles(tt.patch, tt.after))); err != nil {
				t.Fatal(err)
			}
			if got := gitWrites(w.gh, 0); len(got) != 0 {
				t.Errorf("wrote %v: want nothing pushed", got)
			}
			if at := w.gh.Ref(owner, repo, "heads/feature/cart"); at != w.head {
				t.Errorf("branch moved to %s", at)
			}
			comments := w.gh.Comments(owner, repo, w.pr)
			if len(comments) != 1 {
				t.Fatalf("%d comments, want the report", len(comments))
			}
			for _, s := range tt.say {
				if !strings.Contains(comments[0].Body, s) {
					t.Errorf("the report does not say %q:\n%s", s, comments[0].Body)
				}
			}
		})
	}
}

func TestTheBotEscalatesAPatchForAForksPullRequest(t *testing.T) {
	t.Parallel()
	w := patchWorld(t, func(p *ghfake.PullSpec) { p.HeadRepo, p.HeadRepoID = "fork/shop", 200 })
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.forkCoverageRun(t, coverageFiles(patchNewTest, junitAfter))); err != nil {
		t.Fatal(err)
	}
	if got := gitWrites(w.gh, 0); len(got) != 0 {
		t.Errorf("wrote %v: a fork's branch cannot be pushed to", got)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "ESCALATE") || !strings.Contains(comments[0].Body, "fork") {
		t.Fatalf("report %+v: want an escalation that names the fork", comments)
	}
}

func TestAPatchIsNotAppliedWhenTheLoopPushesNothing(t *testing.T) {
	t.Parallel()
	w := patchWorldWith(t, "coverage:\n  commit: false\n  bot:\n    artifacts: [coverage]\n")
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", w.coverageRun(t, coverageFiles(patchNewTest, junitAfter))); err != nil {
		t.Fatal(err)
	}
	for _, r := range w.gh.Requests() {
		if strings.Contains(r.Path, "/git/") || strings.Contains(r.Path, "/contents/") && !strings.Contains(r.Path, "gcloop.yml") {
			t.Errorf("%s %s: the patch was read against the head though the loop pushes nothing", r.Method, r.Path)
		}
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "it was not applied") {
		t.Fatalf("report %+v: want a note that the patch was not applied", comments)
	}
}

func TestAPatchOnAHeadThatMovedSinceTheRunIsAConflict(t *testing.T) {
	t.Parallel()
	w := patchWorld(t)
	body := w.coverageRun(t, coverageFiles(patchNewTest, junitAfter))
	files := map[string][]byte{"later.go": []byte("package cart\n")}
	for k, v := range patchHeadFiles {
		files[k] = v
	}
	moved := w.gh.AddCommit(owner, repo, "feature/cart", files, w.head)
	w.gh.MovePullHead(owner, repo, w.pr, moved)
	if err := w.h.Handle(context.Background(), "d-1", "workflow_run", body); err != nil {
		t.Fatal(err)
	}
	if got := gitWrites(w.gh, 0); len(got) != 0 {
		t.Errorf("wrote %v: a patch made on %s must not land on %s", got, w.head, moved)
	}
	if at := w.gh.Ref(owner, repo, "heads/feature/cart"); at != moved {
		t.Errorf("branch at %s, want it left at %s", at, moved)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "conflict") || !strings.Contains(comments[0].Body, "moved") {
		t.Fatalf("report %+v: want the moved head reported as a conflict", comments)
	}
}

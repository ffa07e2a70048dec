package containertest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
)

const reviewFix = `{"review_score": 5, "gc_signal": "REVISION_NEEDED", "findings": [
 {"severity": "high", "file": "cart.go", "line": 3, "description": "total ignores discounts"}]}`

const lcov = "TN:\nSF:cart.go\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,1\nend_of_record\n"
const junit = `<testsuites><testsuite name="cart" tests="1"><testcase classname="cart" name="TestTotal"/></testsuite></testsuites>`

// maxFirstLine bounds the time from docker run to the first output line.
const maxFirstLine = 5 * time.Second

// fakeRepo is octo/shop on the fake GitHub with pull request feature/cart.
type fakeRepo struct {
	gh         *ghfake.Server
	pr         int
	head, base string
	headFiles  map[string]string
	payload    map[string]any
}

func newFakeRepo(t *testing.T) *fakeRepo {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo("octo", "shop", 100, "main")
	gh.AddToken("ghs_actiontoken", "github-actions[bot]", true)
	gh.AddWorkflow("octo", "shop", "coverage.yml")
	files := map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}
	base := gh.AddCommit("octo", "shop", "main", files)
	head := gh.AddCommit("octo", "shop", "feature/cart", files, base)
	pr := gh.AddPull("octo", "shop", ghfake.PullSpec{Title: "Cart totals", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	headFiles := map[string]string{}
	for k, v := range files {
		headFiles[k] = string(v)
	}
	return &fakeRepo{gh: gh, pr: pr, head: head, base: base, headFiles: headFiles, payload: map[string]any{
		"action": "synchronize", "number": pr, "pull_request": map[string]any{
			"number": pr, "html_url": fmt.Sprintf("https://github.com/octo/shop/pull/%d", pr),
			"head": map[string]any{"sha": head, "ref": "feature/cart", "repo": map[string]any{"id": 100}},
			"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"id": 100}},
		}}}
}

func (f *fakeRepo) mutations() []string {
	var out []string
	for _, r := range f.gh.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// users are the two ways a hosted runner's job runs the container: as the
// image's default user (root) and as the runner's own user.
var users = []struct{ name, flag string }{
	{"as root", ""},
	{"as the runner's user", "1001:1001"},
}

func TestTheImageRunsRoundsAsTheRunnerRunsIt(t *testing.T) {
	t.Parallel()
	img := needImage(t)
	tests := []struct {
		name   string
		files  func(f *fakeRepo) map[string]string
		inputs map[string]string
		check  func(t *testing.T, f *fakeRepo, r result)
	}{
		{"a dry run", func(*fakeRepo) map[string]string { return map[string]string{"review-results.json": reviewFix} },
			map[string]string{"loop": "review", "evidence": "review-results.json", "dry-run": "true"},
			func(t *testing.T, f *fakeRepo, r result) {
				if !strings.Contains(r.stdout, "=== report comment") || !strings.Contains(r.stdout, "=== fix issues") {
					t.Errorf("the dry run printed no comment and issues:\n%s", r.stdout)
				}
				if n := len(f.gh.Requests()); n != 0 {
					t.Errorf("a dry run made %d requests", n)
				}
			}},
		{"a review round", func(*fakeRepo) map[string]string { return map[string]string{"review-results.json": reviewFix} },
			map[string]string{"loop": "review", "evidence": "review-results.json"},
			func(t *testing.T, f *fakeRepo, r result) {
				muts := f.mutations()
				for _, want := range []string{fmt.Sprintf("POST /repos/octo/shop/issues/%d/comments", f.pr), "POST /repos/octo/shop/issues"} {
					if !slices.Contains(muts, want) {
						t.Errorf("no %s among the requests: %v", want, muts)
					}
				}
				if r.outputs["comment-url"] == "" || r.outputs["issues"] == "" {
					t.Errorf("outputs comment-url %q issues %q; want both set", r.outputs["comment-url"], r.outputs["issues"])
				}
			}},
		{"a coverage round that pushes a test-only commit", func(f *fakeRepo) map[string]string {
			files := map[string]string{"cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {}\n",
				"gcloop-evidence/lcov.info": lcov, "gcloop-evidence/junit.xml": junit}
			for k, v := range f.headFiles {
				files[k] = v
			}
			return files
		}, map[string]string{"loop": "coverage", "evidence": "gcloop-evidence/*", "dispatch": "coverage.yml", "layer": "L1"},
			func(t *testing.T, f *fakeRepo, r result) {
				sha := r.outputs["commit"]
				if sha == "" || f.gh.Ref("octo", "shop", "heads/feature/cart") != sha {
					t.Fatalf("commit output %q, branch at %q\n%s", sha, f.gh.Ref("octo", "shop", "heads/feature/cart"), r.stderr)
				}
				if _, ok := f.gh.TreeFiles("octo", "shop", sha)["cart_test.go"]; !ok {
					t.Error("cart_test.go is not in the pushed commit")
				}
				if d := f.gh.Dispatches("octo", "shop"); len(d) != 1 || d[0].Workflow != "coverage.yml" {
					t.Errorf("dispatches %+v; want coverage.yml", d)
				}
			}},
	}
	for _, tt := range tests {
		for _, u := range users {
			t.Run(tt.name+" "+u.name, func(t *testing.T) {
				t.Parallel()
				f := newFakeRepo(t)
				j := newJob(t, tt.files(f), f.payload)
				r := j.run(t, img, u.flag, f.gh, f.head, tt.inputs)
				t.Logf("docker run to the first output line: %v", r.firstLine)
				// 0.1–0.7 s measured on a loaded 2-core machine; the bound
				// only catches a start-up that waits on something.
				if r.firstLine > maxFirstLine {
					t.Errorf("docker run to the first output line took %v; want at most %v", r.firstLine, maxFirstLine)
				}
				if r.code != 0 {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				if v := f.gh.Violations(); len(v) > 0 {
					t.Errorf("requests GitHub would refuse: %v", v)
				}
				checkWorkspaceFiles(t, j, r, tt.inputs["loop"])
				if !strings.Contains(r.summary, "gcloop") {
					t.Errorf("job summary %q; want the report", r.summary)
				}
				if owned := rootOwned(t, j.work); len(owned) > 0 {
					t.Errorf("the run left root-owned files on the runner: %v", owned)
				}
				removeAsRunner(t, filepath.Join(j.ws, ".gcloop"))
				tt.check(t, f, r)
			})
		}
	}
}

func TestUnwritableFileCommandsFailWithAnErrorNotAPanic(t *testing.T) {
	t.Parallel()
	img := needImage(t)
	f := newFakeRepo(t)
	j := newJob(t, map[string]string{"review-results.json": reviewFix}, f.payload)
	// The runner made the output file as another user than the container's.
	if err := os.Chown(j.output, 0, 0); err != nil {
		t.Fatal(err)
	}
	r := j.run(t, img, "1001:1001", f.gh, f.head, map[string]string{"loop": "review", "evidence": "review-results.json", "dry-run": "true"})
	if r.code != 1 {
		t.Errorf("exit %d; want 1", r.code)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("gcloop panicked:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "::error::gcloop: cannot write the runner's GITHUB_OUTPUT file /github/file_commands/"+j.outName) {
		t.Errorf("no ::error:: line naming the file on stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("stderr does not say why:\n%s", r.stderr)
	}
}

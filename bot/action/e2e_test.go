package action_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/google/go-cmp/cmp"
)

// gcloopBin is the gcloop binary built once for the end-to-end tests: they
// run it exactly as the Actions runner runs the container's entrypoint,
// with INPUT_* and GITHUB_* variables and file commands in a temp dir,
// against the in-process fake GitHub.
var gcloopBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gcloop-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gcloopBin = filepath.Join(dir, "gcloop")
	build := exec.Command("go", "build", "-trimpath", "-o", gcloopBin, "github.com/gcloop/gcloop/cmd/gcloop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build gcloop: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	owner = "octo"
	repo  = "shop"
	bot   = "github-actions[bot]"
	token = "ghs_actiontoken"
)

// world is one repository on the fake GitHub with an open pull request.
type world struct {
	t    *testing.T
	gh   *ghfake.Server
	pr   int
	head string // the PR head commit
	base string
}

func newWorld(t *testing.T, headFiles map[string]string) *world {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, bot, true)
	gh.AddToken("ghp_dev", "dev", false)
	gh.AddWorkflow(owner, repo, "review.yml")
	gh.AddWorkflow(owner, repo, "coverage.yml")
	baseFiles := map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}
	base := gh.AddCommit(owner, repo, "main", baseFiles)
	files := map[string][]byte{}
	for k, v := range baseFiles {
		files[k] = v
	}
	for k, v := range headFiles {
		files[k] = []byte(v)
	}
	head := gh.AddCommit(owner, repo, "feature/cart", files, base)
	pr := gh.AddPull(owner, repo, ghfake.PullSpec{Title: "Cart totals", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	return &world{t: t, gh: gh, pr: pr, head: head, base: base}
}

// push adds a commit on the PR branch and moves the PR head to it.
func (w *world) push(files map[string]string) string {
	w.t.Helper()
	tree := w.gh.TreeFiles(owner, repo, w.head)
	for k, v := range files {
		tree[k] = []byte(v)
	}
	w.head = w.gh.AddCommit(owner, repo, "feature/cart", tree, w.head)
	return w.head
}

// run is one step run of the action.
type run struct {
	code    int
	stdout  string
	stderr  string
	outputs map[string]string
	summary string
	ws      string
}

// file is the path of the file an output names: outputs give paths
// relative to the workspace, as a later step of the job reads them.
func (r run) file(output string) string {
	p := r.outputs[output]
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.ws, p)
}

// step describes how the runner starts the action.
type step struct {
	event   string         // GITHUB_EVENT_NAME, default pull_request
	payload map[string]any // the event payload; default: the PR's
	inputs  map[string]string
	files   map[string]string // workspace files (evidence, generator changes)
	ws      string            // reuse a workspace
	runID   int64
	attempt int
	extra   map[string]string // more environment
}

func (w *world) pullPayload() map[string]any {
	return map[string]any{"action": "synchronize", "number": w.pr, "pull_request": map[string]any{
		"number": w.pr, "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, w.pr),
		"head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}},
		"base": map[string]any{"sha": w.base, "ref": "main", "repo": map[string]any{"id": 100}},
	}}
}

// runAction runs the built binary the way the runner runs a Docker action.
func (w *world) runAction(s step) run {
	w.t.Helper()
	tmp := w.t.TempDir()
	ws := s.ws
	if ws == "" {
		ws = filepath.Join(tmp, "workspace")
	}
	for name, body := range s.files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		w.t.Fatal(err)
	}
	event := s.event
	if event == "" {
		event = "pull_request"
	}
	payload := s.payload
	if payload == nil {
		payload = w.pullPayload()
	}
	eventPath := filepath.Join(tmp, "event.json")
	data, _ := json.Marshal(payload)
	if err := os.WriteFile(eventPath, data, 0o644); err != nil {
		w.t.Fatal(err)
	}
	outPath, sumPath := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
	for _, p := range []string{outPath, sumPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	runID, attempt := s.runID, s.attempt
	if runID == 0 {
		runID = 5000
	}
	if attempt == 0 {
		attempt = 1
	}
	env := []string{
		"HOME=" + tmp, "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_API_URL=" + strings.TrimSuffix(w.gh.URL(), "/"), "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_REPOSITORY=" + owner + "/" + repo, "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_SHA=" + w.head, "GITHUB_RUN_ID=" + fmt.Sprint(runID), "GITHUB_RUN_ATTEMPT=" + fmt.Sprint(attempt),
		"GITHUB_ACTOR=dev", "GITHUB_WORKSPACE=" + ws, "GITHUB_OUTPUT=" + outPath, "GITHUB_STEP_SUMMARY=" + sumPath,
		"SOURCE_DATE_EPOCH=1767225600", "RUNNER_TEMP=" + filepath.Join(tmp, "runner_temp"),
		"INPUT_TOKEN=" + token,
	}
	for k, v := range s.inputs {
		env = append(env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	for k, v := range s.extra {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(gcloopBin, "run")
	cmd.Env = env
	cmd.Dir = ws
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	out, _ := os.ReadFile(outPath)
	sum, _ := os.ReadFile(sumPath)
	return run{code: code, stdout: stdout.String(), stderr: stderr.String(), outputs: parseOutputs(w.t, out), summary: string(sum), ws: ws}
}

// parseOutputs reads a GITHUB_OUTPUT file of name<<delimiter blocks.
func parseOutputs(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<delimiter", sc.Text())
		}
		var val []string
		for sc.Scan() && sc.Text() != delim {
			val = append(val, sc.Text())
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// mutations lists the method and path of every mutating request since
// request index from.
func (w *world) mutations(from int) []string {
	var out []string
	for _, r := range w.gh.Requests()[from:] {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func (w *world) requestsSince(from int) []string {
	var out []string
	for _, r := range w.gh.Requests()[from:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

const reviewFix = `{"review_score": 5, "gc_signal": "REVISION_NEEDED", "findings": [
 {"severity": "high", "file": "cart.go", "line": 3, "description": "total ignores discounts"},
 {"severity": "critical", "file": "pay.go", "line": 9, "description": "amount read from the client"},
 {"severity": "high", "file": "cart.go", "line": 20, "description": "race on the item map"},
 {"severity": "low", "file": "README.md", "description": "typo"}]}`

const reviewOK = `{"review_score": 9, "gc_signal": "CONVERGED", "findings": []}`

func TestReviewLoopEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "review-results.json"}

	// Round 1: a fix round with one issue per file.
	r1 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewFix}})
	if r1.code != 0 {
		t.Fatalf("round 1 exit %d\n%s\n%s", r1.code, r1.stdout, r1.stderr)
	}
	if r1.outputs["decision"] != "fix" || r1.outputs["verdict"] != "FIX" || r1.outputs["round"] != "1" || r1.outputs["status"] != "complete" {
		t.Fatalf("round 1 outputs %v\n%s", r1.outputs, r1.stderr)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || comments[0].Author != bot {
		t.Fatalf("comments after round 1: %+v", comments)
	}
	mustContain(t, "the report comment", comments[0].Body, "gcloop review", "FIX", "<!-- gcloop:state review ",
		"https://github.com/octo/shop/blob/"+w.head+"/cart.go#L3")
	issues := w.gh.Issues(owner, repo)
	var titles []string
	for _, is := range issues {
		if !is.IsPull {
			titles = append(titles, is.Title)
		}
	}
	// The most severe first (DESIGN §5.2): pay.go has the critical finding.
	wantTitles := []string{fmt.Sprintf("gcloop: fix pay.go (PR #%d, round 1)", w.pr), fmt.Sprintf("gcloop: fix cart.go (PR #%d, round 1)", w.pr)}
	if strings.Join(titles, "|") != strings.Join(wantTitles, "|") {
		t.Fatalf("issue titles %q, want %q", titles, wantTitles)
	}
	mustContain(t, "outputs", r1.outputs["issues"], ",")
	mustContain(t, "the annotations", r1.stdout, "::error file=pay.go,line=9", "::warning file=cart.go,line=3")
	mustContain(t, "the job summary", r1.summary, "<details><summary>Iteration history: 1 round")
	// The files are in the workspace, at the workspace-relative paths the
	// outputs give (a later step's working directory is the workspace).
	for out, want := range map[string]string{"report": ".gcloop/review/report.md", "decision-json": ".gcloop/review/decision.json", "tasks": ".gcloop/review/tasks.json"} {
		if got := r1.outputs[out]; got != want {
			t.Errorf("output %s = %q, want %q", out, got, want)
		}
	}
	report, err := os.ReadFile(filepath.Join(r1.ws, r1.outputs["report"]))
	if err != nil {
		t.Fatalf("report output: %v", err)
	}
	mustContain(t, "report.md", string(report), "FIX-2-1")

	// The same run re-run: the same round, no new comment, no duplicate issue.
	from := len(w.gh.Requests())
	r2 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewFix}, attempt: 2})
	if r2.code != 0 || r2.outputs["round"] != "1" {
		t.Fatalf("re-run: exit %d outputs %v\n%s", r2.code, r2.outputs, r2.stderr)
	}
	if m := w.mutations(from); len(m) > 1 {
		t.Errorf("a re-run made mutations %q, want at most the comment edit", m)
	}
	if n := len(w.gh.Comments(owner, repo, w.pr)); n != 1 {
		t.Errorf("%d comments after the re-run, want 1", n)
	}
	if n := len(w.gh.Issues(owner, repo)); n != len(issues) {
		t.Errorf("%d issues after the re-run, want %d", n, len(issues))
	}

	// A new head sha that converges: the comment is edited, the issues close.
	w.push(map[string]string{"cart.go": "package cart // fixed\n"})
	r3 := w.runAction(step{inputs: in, files: map[string]string{"review-results.json": reviewOK}, runID: 5001})
	if r3.code != 0 || r3.outputs["decision"] != "converge" || r3.outputs["round"] != "2" {
		t.Fatalf("round 2: exit %d outputs %v\n%s", r3.code, r3.outputs, r3.stderr)
	}
	comments = w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 {
		t.Fatalf("%d comments after round 2, want 1 edited in place", len(comments))
	}
	mustContain(t, "the edited comment", comments[0].Body, "CONVERGE", "| 1 |", "| 2 |")
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("issue #%d %q still %s after convergence", is.Number, is.Title, is.State)
		}
	}
}

// A new round's report costs three requests: the comments, the report
// read again just before its edit (the compare-and-swap that keeps a
// command landing during the round), the edit. Its check run, one more, is
// counted in TestCheckRunGatesTheJudgedCommit.
func TestConvergedRoundCostsThreeRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "issues": "false", "check": "false"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewOK}}); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	w.push(map[string]string{"README.md": "# shop!\n"})
	from := len(w.gh.Requests())
	r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewOK}, runID: 5002})
	if r.code != 0 || r.outputs["decision"] != "converge" {
		t.Fatalf("exit %d outputs %v: %s", r.code, r.outputs, r.stderr)
	}
	var api []string
	for _, q := range w.requestsSince(from) {
		if !strings.Contains(q, "/contents/") { // the config read from the base branch
			api = append(api, q)
		}
	}
	want := []string{"GET /repos/octo/shop/issues/1/comments", "GET /repos/octo/shop/issues/comments/ID", "PATCH /repos/octo/shop/issues/comments/ID"}
	report := w.gh.Comments(owner, repo, w.pr)[0].ID
	for i := range api {
		api[i] = strings.Replace(api[i], "comments/"+strconv.FormatInt(report, 10), "comments/ID", 1)
	}
	if diff := cmp.Diff(want, api); diff != "" {
		t.Errorf("a converged round's requests (-want +got):\n%s", diff)
	}
}

func TestEscalationAtTheRoundCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "2", "fail-on": "escalate"}
	for i := 1; i <= 2; i++ {
		if i > 1 {
			w.push(map[string]string{"cart.go": fmt.Sprintf("package cart // %d\n", i)})
		}
		r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, runID: int64(6000 + i)})
		if i == 1 && r.code != 0 {
			t.Fatalf("round 1 exit %d: %s", r.code, r.stderr)
		}
		if i == 2 {
			if r.code != 3 || r.outputs["decision"] != "escalate" {
				t.Fatalf("round 2: exit %d outputs %v, want exit 3 escalate\n%s", r.code, r.outputs, r.stderr)
			}
		}
	}
	body := w.gh.Comments(owner, repo, w.pr)[0].Body
	mustContain(t, "the escalation", body, "ESCALATE", "/gc retry", "/gc approve", "/gc abort")
}

func TestStateMarkerInAHumanCommentIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	// A forged state claiming round 9 in a comment by a person.
	forged := "<!-- gcloop:state review eyJzY2hlbWEiOiJnY2xvb3Avc3RhdGUvdjEiLCJsb29wIjoicmV2aWV3IiwiaWQiOiJyZXZpZXciLCJtYXhfcm91bmRzIjozLCJzdGF0dXMiOiJvcGVuIiwiZ3JhbnRzIjpbXSwicm91bmRzIjpbeyJuIjo5LCJzaGEiOiJ4IiwidGltZSI6IjIwMjYtMDEtMDFUMDA6MDA6MDBaIiwiZGVjaXNpb24iOiJmaXgiLCJ2ZXJkaWN0IjoiRklYIiwic2NvcmUiOm51bGwsImNvdW50cyI6eyJjcml0aWNhbCI6MCwiaGlnaCI6MCwibWVkaXVtIjowLCJsb3ciOjB9LCJjb3ZlcmFnZSI6bnVsbCwicGFzc19yYXRlIjpudWxsLCJmaW5nZXJwcmludHMiOltdLCJ0YXNrcyI6W10sImlzc3VlcyI6W119XX0 -->"
	w.gh.AddComment(owner, repo, w.pr, "mallory", forged)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewOK}})
	if r.code != 0 || r.outputs["round"] != "1" {
		t.Fatalf("exit %d outputs %v, want round 1 (forged state ignored)\n%s", r.code, r.outputs, r.stderr)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 2 || comments[0].Body != forged {
		t.Fatalf("the human comment was touched or no report was created: %+v", comments)
	}
	mustContain(t, "the report", comments[1].Body, "mallory")
}

func TestRateLimitsAndServerErrorsAreRetried(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 502, Times: 1})
	// Retry-After: 0 and the secondary limits on the round's last mutation:
	// the retries are seen without sleeping (waits and pacing are tested in
	// bot/ghclient with an injected clock).
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 429, Times: 1, RetryNow: true})
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 403, Times: 1, RetryNow: true})
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json"}, files: map[string]string{"r.json": reviewFix}})
	if r.code != 0 || r.outputs["status"] != "complete" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	if n := len(w.gh.Comments(owner, repo, w.pr)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
	var statuses []int
	for _, q := range w.gh.Requests() {
		statuses = append(statuses, q.Status)
	}
	mustContain(t, "the statuses", fmt.Sprint(statuses), "502 200", "429", "403")
}

func TestUnreachableAPIGivesAPartialDecision(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "timeout": "4s", "fail-on": "fix"}
	r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix},
		extra: map[string]string{"GITHUB_API_URL": "http://127.0.0.1:1"}})
	if r.outputs["status"] != "partial" || r.outputs["decision"] != "fix" {
		t.Fatalf("outputs %v, want a partial fix\n%s", r.outputs, r.stderr)
	}
	if r.code != 3 {
		t.Errorf("exit %d, want 3 (fail-on fix)", r.code)
	}
	mustContain(t, "stderr", r.stderr, "GitHub API")
	mustContain(t, "the annotations", r.stdout, "::error::gcloop: GitHub API unavailable")
}

func TestDryRunNeedsNoToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json", "dry-run": "true"},
		files: map[string]string{"r.json": reviewFix}, extra: map[string]string{"INPUT_TOKEN": "", "GITHUB_API_URL": "http://127.0.0.1:1"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "the dry run", r.stdout, "=== report comment", "=== fix issues", "gcloop: fix cart.go", "=== commit")
	if n := len(w.gh.Requests()); n != 0 {
		t.Errorf("a dry run made %d requests", n)
	}
}

const lcovHigh = "TN:\nSF:cart.go\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,1\nend_of_record\n"
const junitPass = `<testsuites><testsuite name="cart" tests="2"><testcase classname="cart" name="TestTotal"/><testcase classname="cart" name="TestEmpty"/></testsuite></testsuites>`

// coverageRound runs a coverage round whose generator wrote files into the
// workspace (a checkout of the PR head) beside the coverage evidence.
func (w *world) coverageRound(t *testing.T, changes map[string]string, extra map[string]string, payload map[string]any) run {
	t.Helper()
	files := map[string]string{}
	for path, body := range w.gh.TreeFiles(owner, repo, w.head) {
		files[path] = string(body)
	}
	for k, v := range changes {
		files[k] = v
	}
	files["gcloop-evidence/lcov.info"] = lcovHigh
	files["gcloop-evidence/junit.xml"] = junitPass
	in := map[string]string{"loop": "coverage", "evidence": "gcloop-evidence/*", "dispatch": "coverage.yml", "layer": "L1"}
	return w.runAction(step{inputs: in, files: files, extra: extra, payload: payload})
}

func TestCoverageRoundPushesTestOnlyChangesAndDispatches(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	headBefore := w.head
	r := w.coverageRound(t, map[string]string{"cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {}\n"}, nil, nil)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sha := r.outputs["commit"]
	if sha == "" || w.gh.Ref(owner, repo, "heads/feature/cart") != sha {
		t.Fatalf("commit output %q, branch at %q\n%s", sha, w.gh.Ref(owner, repo, "heads/feature/cart"), r.stderr)
	}
	c := w.gh.Commit(owner, repo, sha)
	if len(c.Parents) != 1 || c.Parents[0] != headBefore {
		t.Errorf("commit parents %v, want [%s]", c.Parents, headBefore)
	}
	if !c.Verified {
		t.Errorf("the commit is not verified: it must be made without author, committer or signature")
	}
	files := w.gh.TreeFiles(owner, repo, sha)
	if _, ok := files["cart_test.go"]; !ok {
		t.Errorf("cart_test.go not in the pushed tree: %v", keys(files))
	}
	for p := range files {
		if strings.HasPrefix(p, "gcloop-evidence/") || strings.HasPrefix(p, ".gcloop/") {
			t.Errorf("the round's own file %s was pushed", p)
		}
	}
	d := w.gh.Dispatches(owner, repo)
	if len(d) != 1 || d[0].Workflow != "coverage.yml" || d[0].Ref != "feature/cart" {
		t.Errorf("dispatches %+v, want coverage.yml on feature/cart", d)
	}
}

func TestCoverageRoundRefusesUnsafeChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		changes map[string]string
		reason  string
	}{
		{"a source change", map[string]string{"cart.go": "package cart // changed by the generator\n"}, `non\_test\_file`},
		{"an added skip", map[string]string{"cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) { t.Skip(\"later\") }\n"}, `forbidden\_marker`},
		{"a workflow change", map[string]string{".github/workflows/ci.yml": "on: push\n"}, `workflow\_file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			head := w.head
			r := w.coverageRound(t, tt.changes, nil, nil)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if r.outputs["commit"] != "" || w.gh.Ref(owner, repo, "heads/feature/cart") != head {
				t.Fatalf("something was pushed: commit %q", r.outputs["commit"])
			}
			if len(w.gh.Dispatches(owner, repo)) != 0 {
				t.Error("a refused round dispatched the next one")
			}
			body := w.gh.Comments(owner, repo, w.pr)[0].Body
			mustContain(t, "the report", body, "reverted", tt.reason)
			for _, q := range w.gh.Requests() {
				if strings.Contains(q.Path, "/git/blobs") || strings.Contains(q.Path, "/git/commits") && q.Method == "POST" {
					t.Errorf("refused changes reached the Git Data API: %s %s", q.Method, q.Path)
				}
			}
		})
	}
}

func TestCoverageRoundOnAForkEscalatesWithoutPushing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	payload := w.pullPayload()
	payload["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = map[string]any{"id": 999}
	r := w.coverageRound(t, map[string]string{"cart_test.go": "package cart\n"}, nil, payload)
	if r.code != 0 || r.outputs["decision"] != "escalate" || r.outputs["commit"] != "" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	for _, q := range w.gh.Requests() {
		if strings.Contains(q.Path, "/git/") {
			t.Errorf("a fork round touched the Git Data API: %s %s", q.Method, q.Path)
		}
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "fork")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// commentEvent is the payload of an issue_comment event on the PR.
func (w *world) commentEvent(id int64, author, body string) map[string]any {
	return map[string]any{"action": "created",
		"issue":   map[string]any{"number": w.pr, "pull_request": map[string]any{"url": "x"}},
		"comment": map[string]any{"id": id, "body": body, "user": map[string]any{"login": author, "type": "User"}}}
}

func TestRetryCommand(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1", "dispatch": "review.yml"}
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}}); r.outputs["decision"] != "escalate" {
		t.Fatalf("setup: outputs %v\n%s", r.outputs, r.stderr)
	}
	w.gh.SetPermission(owner, repo, "reader", "read")
	w.gh.SetPermission(owner, repo, "writer", "write")
	report := w.gh.Comments(owner, repo, w.pr)[0].Body

	// A read-only user is refused and nothing changes.
	id := w.gh.AddComment(owner, repo, w.pr, "reader", "/gc retry")
	from := len(w.gh.Requests())
	r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "reader", "/gc retry"), inputs: in})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := w.gh.Comments(owner, repo, w.pr)[0].Body; got != report {
		t.Error("a refused command changed the report")
	}
	if len(w.gh.Dispatches(owner, repo)) != 0 {
		t.Error("a refused command dispatched a round")
	}
	mustContain(t, "the reactions", fmt.Sprint(w.gh.Reactions(owner, repo, id)), "eyes", "confused")
	mustContain(t, "the requests", strings.Join(w.requestsSince(from), "\n"), "/collaborators/reader/permission")
	last := w.gh.Comments(owner, repo, w.pr)
	mustContain(t, "the reply", last[len(last)-1].Body, "was not run", "write")

	// A writer's retry grants a round and dispatches it.
	id = w.gh.AddComment(owner, repo, w.pr, "writer", "please\n/gc retry review")
	r = w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "writer", "please\n/gc retry review"), inputs: in})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	d := w.gh.Dispatches(owner, repo)
	if len(d) != 1 || d[0].Workflow != "review.yml" || d[0].Ref != "feature/cart" {
		t.Fatalf("dispatches %+v", d)
	}
	mustContain(t, "the reactions", fmt.Sprint(w.gh.Reactions(owner, repo, id)), "eyes", "rocket")
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "/gc retry", "writer")

	// The dispatched round runs on the same sha: a new round, with the grant.
	r = w.runAction(step{event: "workflow_dispatch", payload: map[string]any{"inputs": map[string]any{"pr": fmt.Sprint(w.pr)}},
		inputs: in, files: map[string]string{"r.json": reviewOK}, runID: 7000})
	if r.code != 0 || r.outputs["round"] != "2" || r.outputs["max-rounds"] != "2" || r.outputs["decision"] != "converge" {
		t.Fatalf("the retried round: exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
}

func TestWorkflowRunReadsArtifacts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{ID: 8000, HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review", ghfake.Zip(t, map[string][]byte{"review/review-results.json": []byte(reviewFix)}))
	payload := map[string]any{"action": "completed", "workflow_run": map[string]any{"id": runID, "head_sha": w.head, "head_branch": "feature/cart",
		"head_repository": map[string]any{"id": 100}, "pull_requests": []any{map[string]any{"number": w.pr,
			"head": map[string]any{"sha": w.head, "ref": "feature/cart", "repo": map[string]any{"id": 100}}}}}}
	r := w.runAction(step{event: "workflow_run", payload: payload, inputs: map[string]string{"loop": "review", "artifacts": "review"}, runID: 8001})
	if r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "review/review-results.json")
}

func TestTimeoutWritesAPartialDecision(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.Delay("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", 20*time.Second)
	start := time.Now()
	r := w.runAction(step{inputs: map[string]string{"loop": "review", "evidence": "r.json", "timeout": "4s"},
		files: map[string]string{"r.json": reviewFix}})
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run took %s with a 4s timeout", took)
	}
	if r.code != 0 || r.outputs["status"] != "partial" || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v, want a partial fix and exit 0\n%s", r.code, r.outputs, r.stderr)
	}
	if n := len(w.gh.Comments(owner, repo, w.pr)); n != 0 {
		t.Errorf("%d comments written after the timeout", n)
	}
}

func TestApproveAndAbortSettleTheLoop(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"approve", "abort"} {
		t.Run(verb, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			w.gh.SetPermission(owner, repo, "lead", "maintain")
			in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "1"}
			if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}}); r.outputs["decision"] != "escalate" {
				t.Fatalf("setup: outputs %v\n%s", r.outputs, r.stderr)
			}
			id := w.gh.AddComment(owner, repo, w.pr, "lead", "/gc "+verb)
			if r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "lead", "/gc "+verb), inputs: in}); r.code != 0 {
				t.Fatalf("command: exit %d\n%s", r.code, r.stderr)
			}
			mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "/gc "+verb, "lead")

			// The next push: the loop stays settled, no fix round starts.
			w.push(map[string]string{"cart.go": "package cart // later\n"})
			issuesBefore := len(w.gh.Issues(owner, repo))
			r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, runID: 9000})
			want := map[string]string{"approve": "CONVERGE (approved)", "abort": "ABORTED"}[verb]
			if r.code != 0 || r.outputs["verdict"] != want {
				t.Fatalf("after %s: exit %d outputs %v\n%s", verb, r.code, r.outputs, r.stderr)
			}
			if n := len(w.gh.Issues(owner, repo)); n != issuesBefore {
				t.Errorf("a settled loop opened issues: %d → %d", issuesBefore, n)
			}
			mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, want)
		})
	}
}

package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

const (
	owner  = "octo"
	repo   = "shop"
	appID  = 5150
	slug   = "gcloop-e2e"
	instID = 42
	secret = "e2e-webhook-secret-0123456789"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The gcloop binary is built once for the tests running at the same time
// and removed when the last of them ends (pgtest.Main exits the process,
// so nothing can run after the tests).
var bin struct {
	sync.Mutex
	users int
	dir   string
	err   error
}

// gcloop returns the gcloop binary, built for the tests that run it as a
// process.
func gcloop(t *testing.T) string {
	t.Helper()
	bin.Lock()
	defer bin.Unlock()
	if bin.users == 0 {
		bin.dir, bin.err = os.MkdirTemp("", "gcloop-bot-e2e-")
		if bin.err == nil {
			build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(bin.dir, "gcloop"), "github.com/gcloop/gcloop/cmd/gcloop")
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				bin.err = fmt.Errorf("build gcloop: %v\n%s", err, out)
			}
		}
	}
	bin.users++
	dir := bin.dir
	t.Cleanup(func() {
		bin.Lock()
		defer bin.Unlock()
		if bin.users--; bin.users == 0 {
			os.RemoveAll(dir)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return filepath.Join(dir, "gcloop")
}

// world is a repository with a pull request on the fake GitHub, where a
// GitHub App is installed.
type world struct {
	gh      *ghfake.Server
	pr      int
	head    string
	keyFile string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, ghfake.KeyPEM(ghfake.AppKeys()[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	const config = "review:\n  dispatch: review.yml\n  bot:\n    artifacts: [review-results]\n"
	gh := ghfake.New(t)
	gh.AddApp(ghfake.AppSpec{ID: appID, Slug: slug, Key: &ghfake.AppKeys()[0].PublicKey})
	gh.AddInstallation(appID, instID, owner)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddWorkflow(owner, repo, "review.yml")
	files := map[string][]byte{"README.md": []byte("# shop\n"), ".github/gcloop.yml": []byte(config)}
	base := gh.AddCommit(owner, repo, "main", files)
	gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(config))
	head := gh.AddCommit(owner, repo, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}, base)
	pr := gh.AddPull(owner, repo, ghfake.PullSpec{Title: "Cart", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	gh.SetPermission(owner, repo, "lead", "write")
	return &world{gh: gh, pr: pr, head: head, keyFile: keyFile}
}

// bot is a running `gcloop bot` process.
type bot struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	log    bytes.Buffer // stderr: JSON lines
	exited chan error
}

// startBot starts gcloop bot with env and waits until it listens.
func startBot(t *testing.T, bin string, env ...string) *bot {
	t.Helper()
	cmd := exec.Command(bin, "bot", "--listen", "127.0.0.1:0")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &bot{cmd: cmd, exited: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			b.mu.Lock()
			b.log.Write(line)
			b.log.WriteByte('\n')
			b.mu.Unlock()
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "gcloop bot listening" {
				addr <- rec.Addr
			}
		}
		b.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	select {
	case a := <-addr:
		b.url = "http://" + a
	case err := <-b.exited:
		t.Fatalf("gcloop bot exited before listening: %v\n%s", err, b.logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("gcloop bot did not listen within 30 s\n%s", b.logs())
	}
	return b
}

func (b *bot) logs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.String()
}

// deliver sends a signed delivery and returns the status and body.
func (b *bot) deliver(t *testing.T, event, id string, payload any) (int, string) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, b.url+"/webhook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// waitFor polls cond until it holds or 30 s pass.
func waitFor(t *testing.T, b *bot, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nbot log:\n%s", what, b.logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metrics is the bot's /metrics.
func (b *bot) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(b.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return string(out)
}

// stop sends SIGTERM and returns the exit code.
func (b *bot) stop(t *testing.T) int {
	t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("gcloop bot did not exit within 30 s of SIGTERM\n%s", b.logs())
	}
	return b.cmd.ProcessState.ExitCode()
}

func repository() map[string]any {
	return map[string]any{"id": 100, "name": repo, "full_name": owner + "/" + repo, "html_url": "https://github.com/" + owner + "/" + repo,
		"default_branch": "main", "owner": map[string]any{"login": owner, "type": "Organization"}}
}

func (w *world) workflowRun(t *testing.T) map[string]any {
	t.Helper()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{Name: "review", HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review-results", ghfake.Zip(t, map[string][]byte{"review-results.json": review}))
	side := map[string]any{"ref": "feature/cart", "sha": w.head, "repo": map[string]any{"id": 100, "name": repo}}
	return map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{
			"id": runID, "name": "review", "head_branch": "feature/cart", "head_sha": w.head, "run_attempt": 1,
			"event": "pull_request", "status": "completed", "conclusion": "success",
			"pull_requests": []any{map[string]any{"number": w.pr, "head": side, "base": map[string]any{"ref": "main", "repo": map[string]any{"id": 100, "name": repo}}}},
			"repository":    repository(), "head_repository": repository(),
		},
		"repository": repository(), "installation": map[string]any{"id": instID},
		"sender": map[string]any{"login": "dev", "type": "User"},
	}
}

func (w *world) comment(author, body string) map[string]any {
	id := w.gh.AddComment(owner, repo, w.pr, author, body)
	user := map[string]any{"login": author, "type": "User"}
	return map[string]any{
		"action":       "created",
		"issue":        map[string]any{"number": w.pr, "pull_request": map[string]any{"url": "https://api.github.com/repos/octo/shop/pulls/1"}, "user": map[string]any{"login": "dev"}},
		"comment":      map[string]any{"id": id, "body": body, "user": user, "author_association": "MEMBER"},
		"repository":   repository(),
		"installation": map[string]any{"id": instID},
		"sender":       user,
	}
}

// TestBotProcessEndToEnd runs the gcloop binary as the App against the
// fake GitHub: a completed critic run makes the round's report comment, a
// /gc retry dispatches the next round, a redelivery changes nothing, and
// SIGTERM ends it with exit 0.
func TestBotProcessEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := startBot(t, gcloop(t), "GCLOOP_WEBHOOK_SECRET="+secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
		"GCLOOP_APP_PRIVATE_KEY_FILE="+w.keyFile, "GITHUB_API_URL="+w.gh.URL())

	if status, body := b.deliver(t, "workflow_run", "run-1", w.workflowRun(t)); status != http.StatusAccepted || !strings.Contains(body, `"delivery":"run-1"`) {
		t.Fatalf("workflow_run delivery: %d %s", status, body)
	}
	waitFor(t, b, "the round's report comment", func() bool { return len(w.gh.Comments(owner, repo, w.pr)) == 1 })
	report := w.gh.Comments(owner, repo, w.pr)[0]
	if report.Author != slug+"[bot]" || !strings.Contains(report.Body, "gcloop review") {
		t.Errorf("report comment by %s:\n%s\nwant the App's review report", report.Author, report.Body)
	}

	if status, body := b.deliver(t, "issue_comment", "cmd-1", w.comment("lead", "/gc retry")); status != http.StatusAccepted {
		t.Fatalf("issue_comment delivery: %d %s", status, body)
	}
	waitFor(t, b, "the retry's dispatch", func() bool { return len(w.gh.Dispatches(owner, repo)) == 1 })
	waitFor(t, b, "the command's delivery to be done", func() bool {
		return strings.Contains(b.metrics(t), `gcloop_deliveries_total{event="issue_comment",result="done"} 1`)
	})
	d := w.gh.Dispatches(owner, repo)[0]
	if d.Workflow != "review.yml" || d.Ref != "feature/cart" || d.By != slug+"[bot]" {
		t.Errorf("dispatch %+v, want review.yml on feature/cart by the App", d)
	}

	before := len(w.gh.Requests())
	if status, body := b.deliver(t, "issue_comment", "cmd-1", w.comment("lead", "/gc retry")); status != http.StatusOK || !strings.Contains(body, `"duplicate":true`) {
		t.Errorf("redelivery: %d %s, want 200 duplicate", status, body)
	}
	// An unsigned delivery is refused at the door.
	req, _ := http.NewRequest(http.MethodPost, b.url+"/webhook", strings.NewReader(`{"action":"created"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", "unsigned")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned delivery: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	if n := len(w.gh.Dispatches(owner, repo)); n != 1 {
		t.Errorf("%d dispatches after the redelivery, want 1", n)
	}
	for _, r := range w.gh.Requests()[before:] {
		if r.Method != http.MethodGet {
			t.Errorf("the redelivery wrote %s %s", r.Method, r.Path)
		}
	}

	// The App's token was minted once and used for everything.
	if toks := w.gh.IssuedTokens(); len(toks) != 1 || toks[0].Installation != instID {
		t.Errorf("installation tokens %+v, want one for installation %d", toks, instID)
	}
	metrics := b.metrics(t)
	for _, want := range []string{
		`gcloop_deliveries_total{event="workflow_run",result="accepted"} 1`,
		`gcloop_deliveries_total{event="issue_comment",result="duplicate"} 1`,
		`gcloop_rounds_total 1`,
		`gcloop_github_requests_total{method="POST",status="201"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}

	// The event log, as the dashboard reads it (loopback may look).
	resp, err := http.Get(b.url + "/api/events?since=0")
	if err != nil {
		t.Fatal(err)
	}
	events, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"type":"round"`, `"type":"decision"`, `"type":"command"`, `"repo":"octo/shop"`} {
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(events), want) {
			t.Errorf("/api/events: %d, no %s in %.300s", resp.StatusCode, want, events)
		}
	}

	if code := b.stop(t); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0\n%s", code, b.logs())
	}
	if !strings.Contains(b.logs(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", b.logs())
	}
}

// TestBotRefusesToStartWithoutASecret: the process exits 2 with one line
// naming the variable.
func TestBotRefusesToStartWithoutASecret(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(gcloop(t), "bot")
	cmd.Env = []string{"GCLOOP_TOKEN=ghp_x", "GCLOOP_REPOSITORY=octo/shop"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "GCLOOP_WEBHOOK_SECRET is not set") {
		t.Errorf("exit %d (%v), stderr %q; want 2 naming GCLOOP_WEBHOOK_SECRET", code, err, stderr.String())
	}
}

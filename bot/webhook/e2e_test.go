package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
)

const (
	owner    = "octo"
	repoName = "shop"
	token    = "ghs_installationtoken"
	appLogin = "gcloop-app[bot]"
)

// bot is the whole path of a delivery: the receiver on a loopback server,
// the store, the workers and the delivery handler against the fake GitHub.
type bot struct {
	gh   *ghfake.Server
	fs   *testStore
	srv  *httptest.Server
	pr   int
	head string
}

func newBot(t *testing.T) *bot {
	t.Helper()
	const config = "review:\n  bot:\n    artifacts: [review-results]\n"
	gh := ghfake.New(t)
	gh.AddRepo(owner, repoName, 100, "main")
	gh.AddToken(token, appLogin, true)
	base := gh.AddCommit(owner, repoName, "main", map[string][]byte{"README.md": []byte("# shop\n"), ".github/gcloop.yml": []byte(config)})
	head := gh.AddCommit(owner, repoName, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}, base)
	pr := gh.AddPull(owner, repoName, ghfake.PullSpec{Title: "Cart", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	gh.AddFile(owner, repoName, "main", ".github/gcloop.yml", []byte(config))
	gh.SetPermission(owner, repoName, "lead", "write")
	gh.SetPermission(owner, repoName, "visitor", "read")

	fs := newTestStore(nil)
	h := &delivery.Handler{Clients: ghfake.Installation{Server: gh, ID: 42, Token: token}, Login: appLogin, Log: fs, Timeout: time.Minute,
		Plain: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		Now:   func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }}
	pool, err := webhook.NewPool(fs, h, webhook.PoolOptions{Workers: 2, Logger: quiet, Name: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := webhook.NewReceiver(secret, fs, webhook.ReceiverOptions{Wake: pool.Wake, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	pool.Start()
	srv := httptest.NewServer(rc)
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := pool.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return &bot{gh: gh, fs: fs, srv: srv, pr: pr, head: head}
}

// deliver sends a signed delivery and waits until the workers finished it;
// it returns the outcome and the writes the bot made on GitHub meanwhile.
func (b *bot) deliver(t *testing.T, event, id string, payload []byte) (string, []string) {
	t.Helper()
	from := len(b.gh.Requests())
	status, body := do(t, b.srv.Client(), request(t, b.srv.URL, event, id, payload))
	if status != http.StatusAccepted {
		t.Fatalf("delivery %s: %d %s", id, status, body)
	}
	outcome := settled(t, b.fs, id)
	return outcome, b.writes(from)
}

// writes are the requests other than GET made on GitHub since from.
func (b *bot) writes(from int) []string {
	var out []string
	for _, r := range b.gh.Requests()[from:] {
		if r.Method != http.MethodGet {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// comment is an issue_comment delivery of a comment on the pull request
// that exists on the fake GitHub.
func (b *bot) comment(t *testing.T, author, userType, body string) []byte {
	t.Helper()
	id := b.gh.AddComment(owner, repoName, b.pr, author, body)
	return patched(t, "issue_comment.created.json", map[string]any{
		"issue.number": b.pr, "comment.id": id, "comment.body": body,
		"comment.user.login": author, "comment.user.type": userType, "sender.login": author, "sender.type": userType,
	})
}

// workflowRun is a completed run of the pull request's head with the
// review artifact, as GitHub delivers it.
func (b *bot) workflowRun(t *testing.T) []byte {
	t.Helper()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	runID := b.gh.AddWorkflowRun(owner, repoName, ghfake.RunSpec{HeadSHA: b.head, HeadBranch: "feature/cart", PullRequests: []int{b.pr}})
	b.gh.AddArtifact(owner, repoName, runID, "review-results", ghfake.Zip(t, map[string][]byte{"review-results.json": review}))
	return patched(t, "workflow_run.completed.json", map[string]any{
		"workflow_run.id": runID, "workflow_run.head_sha": b.head,
		"workflow_run.pull_requests.0.number": b.pr, "workflow_run.pull_requests.0.head.sha": b.head,
	})
}

func TestEndToEndCommands(t *testing.T) {
	t.Parallel()
	b := newBot(t)
	outcome, writes := b.deliver(t, "workflow_run", "run-1", b.workflowRun(t))
	if outcome != store.Done {
		t.Fatalf("the round's delivery is %s", outcome)
	}
	comments := b.gh.Comments(owner, repoName, b.pr)
	if len(comments) != 1 || comments[0].Author != appLogin || !strings.Contains(comments[0].Body, "gcloop review") {
		t.Fatalf("comments %+v, want the App's report (writes %v)", comments, writes)
	}
	report := comments[0].Body
	prefix := "/repos/octo/shop/issues/"

	tests := []struct {
		name        string
		author, typ string
		body        string
		outcome     string
		writes      []string // the paths, with the comment's id for {c}
		reply       string   // a piece of the reply comment
		reactions   []string // the bot's reactions to the comment
	}{
		{name: "the bot's own comment", author: appLogin, typ: "Bot", body: "/gc abort", outcome: store.Ignored},
		{name: "a command in a quote", author: "lead", typ: "User", body: "I'd say\n\n> /gc abort\n", outcome: store.Ignored},
		{name: "a command in a fenced code block", author: "lead", typ: "User", body: "Run:\n\n```\n/gc abort\n```\n", outcome: store.Ignored},
		{name: "a command in an inline code span", author: "lead", typ: "User", body: "type `/gc abort` to stop", outcome: store.Ignored},
		{name: "a command of a user who may only read", author: "visitor", typ: "User", body: "/gc abort", outcome: store.Done,
			writes: []string{"POST " + prefix + "comments/{c}/reactions", "POST " + prefix + "1/comments", "POST " + prefix + "comments/{c}/reactions"},
			reply:  "needs the **write** role", reactions: []string{"eyes", "confused"}},
	}
	for i, tt := range tests {
		payload := b.comment(t, tt.author, tt.typ, tt.body)
		cid := b.gh.Comments(owner, repoName, b.pr)[len(b.gh.Comments(owner, repoName, b.pr))-1].ID
		before := len(b.gh.Comments(owner, repoName, b.pr))
		outcome, writes := b.deliver(t, "issue_comment", "c-"+string(rune('a'+i)), payload)
		if outcome != tt.outcome {
			t.Errorf("%s: outcome %s, want %s", tt.name, outcome, tt.outcome)
		}
		var want []string
		for _, w := range tt.writes {
			want = append(want, strings.ReplaceAll(w, "{c}", strconv.FormatInt(cid, 10)))
		}
		if diff := cmp.Diff(want, writes); diff != "" {
			t.Errorf("%s: writes on GitHub (-want +got):\n%s", tt.name, diff)
		}
		after := b.gh.Comments(owner, repoName, b.pr)
		if tt.reply != "" {
			if len(after) != before+1 || !strings.Contains(after[len(after)-1].Body, tt.reply) {
				t.Errorf("%s: no reply saying %q: %+v", tt.name, tt.reply, after[len(after)-1])
			}
		}
		var reactions []string
		for _, r := range b.gh.Reactions(owner, repoName, cid) {
			reactions = append(reactions, r.Content)
		}
		if want := tt.reactions; !cmp.Equal(want, reactions) {
			t.Errorf("%s: reactions %v, want %v", tt.name, reactions, want)
		}
		if after[0].Body != report {
			t.Errorf("%s: the report changed", tt.name)
		}
	}

	// An authorized command takes effect once; its redelivery is a duplicate.
	payload := b.comment(t, "lead", "User", "/gc abort")
	outcome, writes = b.deliver(t, "issue_comment", "abort-1", payload)
	if outcome != store.Done || len(writes) == 0 {
		t.Fatalf("/gc abort by a writer: %s, writes %v", outcome, writes)
	}
	from := len(b.gh.Requests())
	status, body := do(t, b.srv.Client(), request(t, b.srv.URL, "issue_comment", "abort-1", payload))
	if status != http.StatusOK || strings.TrimSpace(body) != `{"duplicate":true}` {
		t.Errorf("redelivery: %d %s", status, body)
	}
	// Nothing is queued for the redelivery: a later delivery runs, and the
	// requests meanwhile are its own.
	closed := patched(t, "pull_request.closed.json", map[string]any{"number": b.pr, "pull_request.number": b.pr})
	b.deliver(t, "pull_request", "closed-1", closed)
	for _, r := range b.gh.Requests()[from:] {
		if strings.Contains(r.Path, "/reactions") || (r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/comments")) {
			t.Errorf("the redelivery acted again: %s %s", r.Method, r.Path)
		}
	}
}

package dash

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gcloop/gcloop/internal/testkit/browser"

	"github.com/gcloop/gcloop/bot/access"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/feed"
	"github.com/gcloop/gcloop/bot/store"
)

var screenshot = flag.Bool("screenshot", false, "write the dashboard's screenshot to docs/dashboard.png")

// droppingListener remembers its connections so the test can cut them,
// as a load balancer or a network does.
type droppingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *droppingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *droppingListener) dropAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		_ = c.Close()
	}
	l.conns = nil
}

// bot serves the dashboard, the feed and the API over a store as the bot
// does, behind the loopback guard; refuse makes /ws answer 503, restart
// puts a new store and hub behind the same address.
type bot struct {
	srv    *httptest.Server
	ln     *droppingListener
	guard  *access.Guard
	hub    atomic.Pointer[feed.Hub]
	refuse atomic.Bool
}

func startBot(t *testing.T, st *store.Memory) *bot {
	t.Helper()
	guard, err := access.New(access.Config{})
	if err != nil {
		t.Fatal(err)
	}
	b := &bot{guard: guard}
	b.restart(t, st)
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", guard.Wrap(Handler()))
	mux.Handle("/ws", guard.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.refuse.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		b.hub.Load().ServeHTTP(w, r)
	})))
	mux.Handle("/api/events", guard.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hub.Load().Events().ServeHTTP(w, r)
	})))
	mux.Handle("/api/loops", guard.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hub.Load().Loops().ServeHTTP(w, r)
	})))
	b.srv = httptest.NewUnstartedServer(mux)
	b.ln = &droppingListener{Listener: b.srv.Listener}
	b.srv.Listener = b.ln
	b.srv.Start()
	t.Cleanup(b.srv.Close)
	return b
}

// restart serves st through a new hub, as a restarted bot does.
func (b *bot) restart(t *testing.T, st *store.Memory) {
	t.Helper()
	hub, err := feed.New(st, feed.Options{FilterFor: b.guard.RepoFilter})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = hub.Run(ctx) }()
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer scancel()
		_ = hub.Shutdown(sctx)
		cancel()
	})
	<-hub.Ready()
	b.hub.Store(hub)
}

func appendEvent(t *testing.T, st *store.Memory, typ, repo string, pr int, loop string, data any) event.Event {
	t.Helper()
	raw, _ := json.Marshal(data)
	e, err := st.Append(context.Background(), event.Event{Type: typ, Repo: repo, PR: pr, Loop: loop, Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// shownIDs are the ids of the events the page lists, newest first.
const shownIDs = `[...document.querySelectorAll('#events li')].map(li => +li.dataset.id)`

func TestDashboardShowsDecisionsLiveAndReplaysWhatItMissed(t *testing.T) {
	browser.Path(t) // skips, or under CI=true fails, before the test goes parallel
	t.Parallel()
	st := store.NewMemory(store.Options{})
	t.Cleanup(func() { _ = st.Close() })
	seed(t, st)
	b := startBot(t, st)
	ctx := browser.New(t, 1280, 760)

	err := chromedp.Do(ctx,
		chromedp.Navigate(b.srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#loops tr[data-key="gcloop/gcloop#42#review"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	)
	if err != nil {
		t.Fatalf("loading the dashboard: %v", err)
	}

	// A decision appended to the log appears live, in the list and the table.
	d := appendEvent(t, st, event.Decision, "gcloop/gcloop", 42, "review",
		map[string]any{"round": 3, "max_rounds": 3, "decision": "converge", "verdict": "score 8/10", "status": "complete", "title": "converged: score 8 ≥ 7"})
	err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#events li[data-id="%d"]`, d.ID))))
	if err != nil {
		t.Fatalf("waiting for the live decision: %v", err)
	}
	decision, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#loops tr[data-key="gcloop/gcloop#42#review"] .badge`)))
	if err != nil {
		t.Fatalf("waiting for the live decision: %v", err)
	}
	if decision != "converge" {
		t.Errorf("the loop's row shows %q, want converge", decision)
	}

	// The connection drops (server side) and stays down while events are
	// appended; the page reconnects with since= and shows what it missed.
	b.refuse.Store(true)
	b.ln.dropAll()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="closed"]`))); err != nil {
		t.Fatalf("waiting for the page to see the drop: %v", err)
	}
	var missed []event.Event
	missed = append(missed, appendEvent(t, st, event.Round, "gcloop/gcloop", 57, "coverage", map[string]any{"sha": "9f8e7d6c"}))
	missed = append(missed, appendEvent(t, st, event.Decision, "gcloop/gcloop", 57, "coverage",
		map[string]any{"round": 1, "max_rounds": 3, "decision": "fix", "verdict": "coverage 71.2% < 80%", "status": "complete", "title": "fix: coverage 71.2% below 80%"}))
	missed = append(missed, appendEvent(t, st, event.Issue, "gcloop/gcloop", 57, "coverage", map[string]any{"issues": []int{101, 102}}))
	b.refuse.Store(false)
	last := missed[len(missed)-1]
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#events li[data-id="%d"]`, last.ID))),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	)
	if err != nil {
		t.Fatalf("waiting for the replay after the reconnect: %v", err)
	}
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]int64](shownIDs))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]-1 {
			t.Fatalf("the page lists ids %v: a gap or a duplicate at %d", ids, ids[i])
		}
	}
	if ids[0] != last.ID {
		t.Errorf("newest shown %d, want %d", ids[0], last.ID)
	}
	row, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#loops tr[data-key="gcloop/gcloop#57#coverage"] .badge`)))
	if err != nil {
		t.Fatal(err)
	}
	if row != "fix" {
		t.Errorf("the missed decision's row shows %q, want fix", row)
	}

	if *screenshot {
		shoot(t, ctx)
	}

	// The bot restarts with an empty in-memory log, whose ids start at 1
	// again: the page notices and starts over instead of waiting for ids
	// above the ones it has seen.
	fresh := store.NewMemory(store.Options{})
	t.Cleanup(func() { _ = fresh.Close() })
	first := appendEvent(t, fresh, event.Round, "acme/new", 1, "review", nil)
	b.restart(t, fresh)
	b.ln.dropAll()
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#events li[data-id="%d"][data-type="round"]`, first.ID))),
		chromedp.WaitVisible(chromedp.CSS(`#loops tr[data-key="acme/new#1#review"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	)
	if err != nil {
		t.Fatalf("waiting for the page to start over after the restart: %v", err)
	}
	then := appendEvent(t, fresh, event.Decision, "acme/new", 1, "review", map[string]any{"round": 1, "max_rounds": 3, "decision": "converge"})
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#events li[data-id="%d"]`, then.ID)))); err != nil {
		t.Fatalf("live after the restart: %v", err)
	}
	ids, err = chromedp.Run(ctx, chromedp.Evaluate[[]int64](shownIDs))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids) != fmt.Sprint([]int64{then.ID, first.ID}) {
		t.Errorf("after the restart the page lists ids %v, want [%d %d]", ids, then.ID, first.ID)
	}
}

// shoot writes the page's screenshot to docs/dashboard.png.
func shoot(t *testing.T, ctx context.Context) {
	t.Helper()
	// After the highlight of the newest rows has faded.
	if err := chromedp.Do(ctx, chromedp.Sleep(2200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "docs", "dashboard.png")
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(png))
}

// seed fills the log with the loops of a few pull requests.
func seed(t *testing.T, st *store.Memory) {
	t.Helper()
	type dec struct {
		repo     string
		pr       int
		loop     string
		round    int
		decision string
		verdict  string
		title    string
	}
	for _, d := range []dec{
		{"acme/api", 311, "audit", 2, "escalate", "3 critical findings after 2 rounds", "escalate: critical findings remain at the last round"},
		{"acme/web", 88, "validation", 1, "converge", "no regressions", "converged: 0 regressions"},
		{"gcloop/gcloop", 42, "review", 2, "fix", "score 5/10, 2 high", "fix: 2 high findings in 2 files"},
	} {
		appendEvent(t, st, event.Delivery, d.repo, 0, "", map[string]any{"event": "workflow_run", "result": "accepted"})
		appendEvent(t, st, event.Round, d.repo, d.pr, d.loop, map[string]any{"sha": "a1b2c3d4e5"})
		appendEvent(t, st, event.Decision, d.repo, d.pr, d.loop, map[string]any{"round": d.round, "max_rounds": 3, "decision": d.decision, "verdict": d.verdict, "status": "complete", "title": d.title})
		appendEvent(t, st, event.Comment, d.repo, d.pr, d.loop, map[string]any{"url": "https://github.com/" + d.repo + "/pull/1#issuecomment-1"})
	}
	appendEvent(t, st, event.Round, "acme/web", 90, "critique", nil)
	appendEvent(t, st, event.Error, "acme/api", 305, "review", map[string]any{"error": "artifact review-results: zip holds 10001 entries, over the cap of 10000"})
	appendEvent(t, st, event.Command, "gcloop/gcloop", 42, "review", map[string]any{"command": "retry"})
	appendEvent(t, st, event.Round, "gcloop/gcloop", 42, "review", map[string]any{"sha": "c0ffee12"})
}

package feed

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

func TestReplayThenLiveHasNoGapAndNoDuplicateUnderRacingAppends(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		before int   // events appended before the subscribers connect
		during int   // events appended while they connect and replay
		sinces []int // one subscriber per since
	}{
		{"a subscriber from the start", 10, 100, []int{0}},
		{"subscribers from several points", 50, 150, []int{0, 1, 25, 49, 50}},
		{"a replay longer than one page", 600, 100, []int{0, 3, 550}},
	}
	logs := []struct {
		name string
		new  func(t *testing.T) appender
	}{
		{"test log", func(*testing.T) appender { return newMemLog() }},
		{"store.Memory", func(t *testing.T) appender {
			st := store.NewMemory(store.Options{Buffer: 4096})
			t.Cleanup(func() { _ = st.Close() })
			return st
		}},
	}
	for _, lg := range logs {
		for _, tt := range tests {
			t.Run(lg.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				l := lg.new(t)
				add := func() {
					if _, err := l.Append(context.Background(), event.Event{Type: event.Round, Repo: "o/r", PR: 1, Loop: "review"}); err != nil {
						t.Error(err)
					}
				}
				for range tt.before {
					add()
				}
				_, srv := testHub(t, l, Options{Buffer: 4096})
				last := int64(tt.before + tt.during)
				var wg sync.WaitGroup
				start := make(chan struct{})
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for range tt.during {
						add()
					}
				}()
				errs := make(chan error, len(tt.sinces))
				for _, since := range tt.sinces {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+fmt.Sprintf("/ws?since=%d", since), nil)
						if err != nil {
							errs <- err
							return
						}
						defer c.Close()
						ids, err := readUntil(c, last)
						if err != nil {
							errs <- fmt.Errorf("since=%d: after %d events: %w", since, len(ids), err)
							return
						}
						if bad := consecutive(int64(since), ids); bad != 0 {
							errs <- fmt.Errorf("since=%d: id %d out of sequence (gap or duplicate) in %d events", since, bad, len(ids))
						}
					}()
				}
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		}
	}
}

// appender is a log the tests append to.
type appender interface {
	Log
	Append(ctx context.Context, e event.Event) (event.Event, error)
}

func TestLiveOnlySubscriberGetsNoHistory(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	for range 5 {
		l.add(event.Round, "o/r", 1, "review", nil)
	}
	h, srv := testHub(t, l, Options{})
	c := dial(t, srv, "", nil)
	waitFor(t, "the subscriber", func() bool { return h.Subscribers() == 1 })
	want := l.add(event.Decision, "o/r", 1, "review", map[string]any{"decision": "fix"})
	got, err := readEvent(c, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != want.ID || got.Type != event.Decision || got.Repo != "o/r" || got.PR != 1 || got.Loop != "review" ||
		!got.Time.Equal(want.Time) || string(got.Data) != `{"decision":"fix"}` {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestEventsAreSentInTheLogShape(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	l.add(event.Decision, "o/r", 7, "review", map[string]any{"round": 2})
	_, srv := testHub(t, l, Options{})
	c := dial(t, srv, "?since=0", nil)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"time":"2026-11-26T12:00:01Z","type":"decision","repo":"o/r","pr":7,"loop":"review","data":{"round":2}}`
	if string(b) != want {
		t.Errorf("message\n got %s\nwant %s", b, want)
	}
}

func TestSlowSubscriberIsClosedWith1013WhileOthersKeepReceiving(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	hold := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	// The slow subscriber's writer stalls in its filter, so its buffer
	// of 4 fills while the fast one keeps up.
	h, srv := testHub(t, l, Options{Buffer: 4, FilterFor: func(r *http.Request) func(context.Context, string) bool {
		if r.URL.Query().Get("slow") == "" {
			return nil
		}
		return func(ctx context.Context, repo string) bool {
			<-hold
			return true
		}
	}})
	fast := dial(t, srv, "?since=0", nil)
	slow := dial(t, srv, "?since=0&slow=1", nil)
	waitFor(t, "two subscribers", func() bool { return h.Subscribers() == 2 })
	const n = 40
	// Lockstep: the next event is appended once the fast subscriber read
	// the last, so its buffer never holds more than one.
	got := make(chan error)
	go func() {
		for i := int64(1); i <= n; i++ {
			e, err := readEvent(fast, 5*time.Second)
			if err == nil && e.ID != i {
				err = fmt.Errorf("id %d, want %d", e.ID, i)
			}
			got <- err
			if err != nil {
				return
			}
		}
	}()
	for range n {
		l.add(event.Round, "o/r", 1, "review", nil)
		if err := <-got; err != nil {
			t.Fatalf("fast subscriber: %v", err)
		}
	}
	waitFor(t, "the slow subscriber's drop", func() bool { return h.Dropped() == 1 })
	release()
	var lastID int64
	code := -1
	_ = slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, b, err := slow.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				code = ce.Code
			}
			break
		}
		var e struct{ ID int64 }
		_ = jsonUnmarshal(b, &e)
		lastID = e.ID
	}
	if code != websocket.CloseTryAgainLater {
		t.Fatalf("slow subscriber closed with %d, want 1013", code)
	}
	// It resumes where it stopped and misses nothing.
	again := dial(t, srv, fmt.Sprintf("?since=%d", lastID), nil)
	ids, err := readUntil(again, n)
	if err != nil {
		t.Fatal(err)
	}
	if bad := consecutive(lastID, ids); bad != 0 {
		t.Errorf("resumed subscriber: id %d out of sequence after %d", bad, lastID)
	}
	if h.Subscribers() > 2 {
		t.Errorf("%d subscribers, want at most 2", h.Subscribers())
	}
}

func TestShutdownClosesEverySubscriberWith1001(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	h, srv := testHub(t, l, Options{})
	var cs []*websocket.Conn
	for range 3 {
		cs = append(cs, dial(t, srv, "?since=0", nil))
	}
	waitFor(t, "three subscribers", func() bool { return h.Subscribers() == 3 })
	codes := make(chan int, len(cs))
	for _, c := range cs {
		go func() { codes <- closeCode(c, 5*time.Second) }()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (the close handshakes did not finish)", err)
	}
	for range cs {
		if code := <-codes; code != websocket.CloseGoingAway {
			t.Errorf("closed with %d, want 1001", code)
		}
	}
	if n := h.Subscribers(); n != 0 {
		t.Errorf("%d subscribers after Shutdown", n)
	}
	// A new subscriber is refused.
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("dial after Shutdown: %v, want 503", err)
	}
}

func TestShutdownDropsPeersThatNeverAnswerTheClose(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	h, srv := testHub(t, l, Options{CloseWait: time.Hour})
	c := dial(t, srv, "", nil) // never reads: never answers the close frame
	_ = c
	waitFor(t, "the subscriber", func() bool { return h.Subscribers() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := h.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Shutdown = %v, want the deadline", err)
	}
	waitFor(t, "the dropped connection to end", func() bool { return h.Subscribers() == 0 })
}

func TestPingsKeepAnIdleConnectionAndSilentPeersAreDropped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer bool // the client answers pings with pongs
	}{
		{"a peer that answers pings stays", true},
		{"a peer that answers no ping is dropped", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newMemLog()
			// A generous pong wait: a loaded test machine can hold a
			// ticker back by a few hundred milliseconds.
			h, srv := testHub(t, l, Options{PingInterval: 100 * time.Millisecond, PongWait: 400 * time.Millisecond})
			c := dial(t, srv, "", nil)
			var mu sync.Mutex
			pings := 0
			c.SetPingHandler(func(data string) error {
				mu.Lock()
				pings++
				mu.Unlock()
				if !tt.answer {
					return nil
				}
				return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
			})
			waitFor(t, "the subscriber", func() bool { return h.Subscribers() == 1 })
			if !tt.answer {
				// The server gives up after the pong wait.
				if _, err := readEvent(c, 5*time.Second); err == nil {
					t.Fatal("read a message from an idle feed")
				}
				waitFor(t, "the silent peer to be dropped", func() bool { return h.Subscribers() == 0 })
				return
			}
			go func() {
				// Append once the connection idled through ten
				// intervals: more than twice the pong wait.
				for {
					mu.Lock()
					n := pings
					mu.Unlock()
					if n >= 10 {
						l.add(event.Decision, "o/r", 1, "review", nil)
						return
					}
					time.Sleep(time.Millisecond)
				}
			}()
			e, err := readEvent(c, 5*time.Second)
			if err != nil {
				t.Fatalf("after idling: %v", err)
			}
			if e.Type != event.Decision {
				t.Errorf("got %+v", e)
			}
		})
	}
}

func TestOriginIsChecked(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	_, srv := testHub(t, l, Options{
		PublicURL:      "https://gcloop.example.com",
		AllowedOrigins: []string{"https://dash.example.org", "ops.example.net:8443"},
	})
	self := srv.URL // http://127.0.0.1:port: the host the request goes to
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusSwitchingProtocols},
		{self, http.StatusSwitchingProtocols},
		{"https://gcloop.example.com", http.StatusSwitchingProtocols},
		{"https://dash.example.org", http.StatusSwitchingProtocols},
		{"http://ops.example.net:8443", http.StatusSwitchingProtocols},
		{"https://evil.example", http.StatusForbidden},
		{"http://gcloop.example.com", http.StatusForbidden}, // the public URL's scheme only
		{"https://gcloop.example.com.evil.example", http.StatusForbidden},
		{"http://dash.example.org", http.StatusForbidden},
		{"https://ops.example.net", http.StatusForbidden}, // another port
		{"null", http.StatusForbidden},
		{"https://dash.example.org@evil.example", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", h)
			if c != nil {
				defer c.Close()
			}
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Errorf("Origin %q: status %d, want %d", tt.origin, resp.StatusCode, tt.want)
			}
		})
	}
}

func TestAMessageOverTheReadLimitClosesWith1009(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	h, srv := testHub(t, l, Options{ReadLimit: 64})
	tests := []struct {
		name string
		size int
		want int // close code; 0: the connection stays
	}{
		{"a small message is ignored", 64, 0},
		{"a large one closes the connection", 65, websocket.CloseMessageTooBig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, srv, "", nil)
			if err := c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("x", tt.size))); err != nil {
				t.Fatal(err)
			}
			if tt.want == 0 {
				// The next live event still arrives.
				go func() {
					waitFor(t, "the subscriber", func() bool { return h.Subscribers() >= 1 })
					time.Sleep(20 * time.Millisecond)
					l.add(event.Round, "o/r", 1, "review", nil)
				}()
				if _, err := readEvent(c, 5*time.Second); err != nil {
					t.Fatalf("after a small message: %v", err)
				}
				return
			}
			if code := closeCode(c, 5*time.Second); code != tt.want {
				t.Errorf("closed with %d, want %d", code, tt.want)
			}
		})
	}
}

func TestRepoParameterAndViewerFilter(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	_, srv := testHub(t, l, Options{FilterFor: func(r *http.Request) func(context.Context, string) bool {
		who := r.URL.Query().Get("who")
		if who == "" {
			return nil
		}
		return func(_ context.Context, repo string) bool { return strings.HasPrefix(repo, who+"/") }
	}})
	l.add(event.Round, "alice/a", 1, "review", nil)
	l.add(event.Round, "bob/b", 1, "review", nil)
	l.add(event.Delivery, "", 0, "", nil)
	l.add(event.Round, "Alice/A", 2, "review", nil)
	l.add(event.Round, "bob/b", 2, "review", nil)
	end := l.add(event.Round, "carol/c", 9, "review", nil) // read up to here
	tests := []struct {
		query string
		want  []int64
	}{
		{"?since=0", []int64{1, 2, 3, 4, 5, 6}},
		{"?since=0&repo=alice/a", []int64{1, 4}},
		{"?since=0&who=bob", []int64{2, 5}},
		{"?since=0&who=carol", []int64{6}},
		{"?since=0&who=bob&repo=alice/a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			c := dial(t, srv, tt.query+"&marker=1", nil)
			var got []int64
			for {
				e, err := readEvent(c, 300*time.Millisecond)
				if err != nil {
					break // nothing more within 300ms
				}
				got = append(got, e.ID)
				if e.ID == end.ID {
					break
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got ids %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBadWebsocketRequestsAreRefusedBeforeTheUpgrade(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	_, srv := testHub(t, l, Options{})
	tests := []struct {
		query string
		want  int
	}{
		{"?since=-1", http.StatusBadRequest},
		{"?since=x", http.StatusBadRequest},
		{"?since=1&since=2", http.StatusBadRequest},
		{"?repo=../etc", http.StatusBadRequest},
		{"?repo=onlyowner", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws"+tt.query, nil)
			if err == nil || resp == nil || resp.StatusCode != tt.want {
				t.Errorf("dial: %v, want status %d", err, tt.want)
			}
		})
	}
	resp, err := http.Post(srv.URL+"/ws", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /ws: %d, want 405", resp.StatusCode)
	}
}

func TestHubResubscribesAndFillsTheGap(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	l.refuse = 3 // the first three Subscribe calls fail; the hub backs off
	var mu sync.Mutex
	var waits []time.Duration
	h, srv := testHub(t, l, Options{Sleep: func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}})
	mu.Lock()
	if fmt.Sprint(waits) != "[1s 2s 4s]" {
		t.Errorf("waits %v, want [1s 2s 4s]", waits)
	}
	mu.Unlock()
	c := dial(t, srv, "", nil)
	waitFor(t, "the subscriber", func() bool { return h.Subscribers() == 1 })
	l.add(event.Round, "o/r", 1, "review", nil)
	release := l.kick() // the store ends the hub's subscription
	for range 5 {
		l.add(event.Decision, "o/r", 1, "review", nil) // while the hub has none
	}
	release()
	waitFor(t, "the hub's new subscription", func() bool { return l.subscribers() == 1 })
	l.add(event.Check, "o/r", 1, "review", nil)
	ids, err := readUntil(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	if bad := consecutive(0, ids); bad != 0 {
		t.Errorf("ids %v: %d out of sequence", ids, bad)
	}
	l.mu.Lock()
	calls := l.subCalls
	l.mu.Unlock()
	if calls != 5 {
		t.Errorf("%d Subscribe calls, want 5 (3 refused, the first, the second)", calls)
	}
}

func TestFeedRefusesSubscribersUntilItHoldsTheLog(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	h, err := New(l, Options{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	_, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("before Run: %v, want 503 with Retry-After", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.Run(ctx) }()
	<-h.Ready()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("after Run subscribed: %v", err)
	}
	c.Close()
	cancel()
	<-done
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = h.Shutdown(sctx)
}

func TestAClientsCloseFrameIsAnswered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		since string
	}{
		{"a live subscriber", ""},
		{"a subscriber replaying", "?since=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newMemLog()
			h, srv := testHub(t, l, Options{})
			c := dial(t, srv, tt.since, nil)
			waitFor(t, "the subscriber", func() bool { return h.Subscribers() == 1 })
			msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye")
			if err := c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			// The server's answer is the close handshake's second half.
			if code := closeCode(c, 5*time.Second); code != websocket.CloseNormalClosure {
				t.Errorf("the server answered %d, want 1000", code)
			}
			waitFor(t, "the subscriber to go", func() bool { return h.Subscribers() == 0 })
		})
	}
}

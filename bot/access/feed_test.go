package access

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/feed"
	"github.com/gcloop/gcloop/bot/store"
)

// TestTheFeedBehindTheGuard wires the guard in front of a real feed, as the
// bot does, and opens /ws as browsers and scripts would.
func TestTheFeedBehindTheGuard(t *testing.T) {
	t.Parallel()
	gh := newFakeGitHub(t, 0)
	clk := &clock{now: time.Now()}
	g := oauthGuard(t, gh, clk, goodToken)
	st := store.NewMemory(store.Options{})
	t.Cleanup(func() { _ = st.Close() })
	for _, repo := range []string{"octo/public", "org/secret", "org/shared", ""} {
		if _, err := st.Append(context.Background(), event.Event{Type: event.Round, Repo: repo, PR: 1, Loop: "review"}); err != nil {
			t.Fatal(err)
		}
	}
	hub, err := feed.New(st, feed.Options{PublicURL: "https://bot.example.com", FilterFor: g.RepoFilter, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = hub.Run(ctx) }()
	<-hub.Ready()
	mux := http.NewServeMux()
	g.Routes(mux)
	mux.Handle("/ws", g.Wrap(hub))
	mux.Handle("/api/events", g.Wrap(hub.Events()))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer scancel()
		_ = hub.Shutdown(sctx)
		cancel()
		srv.Close()
	})
	session := logIn(t, g, "/")
	wsURL := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?since=0"

	tests := []struct {
		name   string
		header http.Header
		status int      // of the handshake
		repos  []string // the events' repositories the viewer gets
	}{
		{"no credentials", nil, 401, nil},
		{"a wrong token", http.Header{"Authorization": {"Bearer nope-nope-nope-nope"}}, 401, nil},
		{"the dashboard token: everything", http.Header{"Authorization": {"Bearer " + goodToken}}, 101, []string{"octo/public", "org/secret", "org/shared", ""}},
		{"a GitHub login: what octo can read", http.Header{"Cookie": {session.Name + "=" + session.Value}, "Origin": {"https://bot.example.com"}}, 101, []string{"octo/public", "org/shared"}},
		{"a valid session from a foreign page (cross-site websocket hijacking)", http.Header{"Cookie": {session.Name + "=" + session.Value}, "Origin": {"https://evil.example"}}, 403, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, resp, err := websocket.DefaultDialer.Dial(wsURL, tt.header)
			if resp == nil {
				t.Fatalf("no handshake: %v", err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("handshake %d, want %d", resp.StatusCode, tt.status)
			}
			if c == nil {
				return
			}
			defer c.Close()
			var got []string
			for {
				_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				_, b, err := c.ReadMessage()
				if err != nil {
					break // nothing more within 500ms
				}
				var e event.Event
				if err := json.Unmarshal(b, &e); err != nil {
					t.Fatal(err)
				}
				got = append(got, e.Repo)
				if len(got) == len(tt.repos) {
					break
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.repos) {
				t.Errorf("events of %q, want %q", got, tt.repos)
			}
		})
	}
}

func TestWebFromAPI(t *testing.T) {
	t.Parallel()
	for api, want := range map[string]string{
		"":                                "https://github.com",
		"https://api.github.com":          "https://github.com",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com",
		"http://127.0.0.1:9/fake":         "https://github.com",
	} {
		if got := webFromAPI(api); got != want {
			t.Errorf("webFromAPI(%q) = %q, want %q", api, got, want)
		}
	}
}

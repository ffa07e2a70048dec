package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/ghfake"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// tokenServer is a bot in token mode against the fake GitHub; kv are
// more settings.
func tokenServer(t testing.TB, gh *ghfake.Server, kv ...string) *Server {
	t.Helper()
	gh.AddToken("ghp_bot", "loop-bot", false)
	env := map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret, "GCLOOP_TOKEN": "ghp_bot", "GCLOOP_REPOSITORY": "octo/shop",
		"GITHUB_API_URL": gh.URL(), "GCLOOP_LISTEN": "127.0.0.1:0"}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	cfg, err := Gather(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), cfg, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serve runs s until the returned stop is called; stop returns Serve's
// error.
func serve(t testing.TB, s *Server) (base string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("Serve did not return within 10 s of the cancel")
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerEndpointsAndShutdown(t *testing.T) {
	t.Parallel()
	gh := ghfake.New(t)
	s := tokenServer(t, gh)
	if s.Login() != "loop-bot" {
		t.Errorf("login = %q, want the token's user", s.Login())
	}
	base, stop := serve(t, s)
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/healthz", 200, `"status":"up"`},
		{"/readyz", 200, `"status":"ready"`},
		{"/metrics", 200, `gcloop_queue_depth 0`},
		{"/metrics", 200, `gcloop_github_requests_total{method="GET",status="200"}`},
		{"/nowhere", 404, ""},
	}
	for _, tt := range tests {
		status, body := get(t, base+tt.path)
		if status != tt.status || !strings.Contains(body, tt.body) {
			t.Errorf("GET %s = %d %q, want %d with %q", tt.path, status, body, tt.status, tt.body)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("shutdown: %v, want nil", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

func TestReadyzIsNotReadyWhileDraining(t *testing.T) {
	t.Parallel()
	s := tokenServer(t, ghfake.New(t))
	base, stop := serve(t, s)
	defer stop()
	s.draining.Store(true)
	if status, body := get(t, base+"/readyz"); status != 503 || !strings.Contains(body, "shutting down") {
		t.Errorf("/readyz while draining = %d %q, want 503", status, body)
	}
}

func TestNewFailsOnRefusedCredentials(t *testing.T) {
	t.Parallel()
	gh := ghfake.New(t)
	cfg, err := Gather(func(k string) string {
		return map[string]string{"GCLOOP_WEBHOOK_SECRET": testSecret, "GCLOOP_TOKEN": "ghp_unknown", "GCLOOP_REPOSITORY": "octo/shop", "GITHUB_API_URL": gh.URL()}[k]
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), cfg, Options{Logger: quiet()})
	if err == nil || !strings.Contains(err.Error(), "ask GitHub who the bot is") || !strings.Contains(err.Error(), "unauthorized: Bad credentials") {
		t.Errorf("New: err = %v, want GitHub's 401 at start", err)
	}
}

type recordingWorker struct{ calls []string }

func (w *recordingWorker) Handle(_ context.Context, id, name string, _ []byte) error {
	w.calls = append(w.calls, id)
	return nil
}

type recordingForgetter struct{ forgot []int64 }

func (f *recordingForgetter) Forget(id int64) { f.forgot = append(f.forgot, id) }

func TestHandler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, payload, repository string
		wantErr                          error
		wantCalled                       bool
		wantForgot                       []int64
	}{
		{"a delivery of the token's repository is worked on", "issue_comment", `{"repository":{"full_name":"Octo/Shop"}}`, "octo/shop", nil, true, nil},
		{"a delivery of another repository is ignored in token mode", "issue_comment", `{"repository":{"full_name":"evil/fork"}}`, "octo/shop", delivery.ErrIgnored, false, nil},
		{"an App works on every repository", "workflow_run", `{"repository":{"full_name":"any/repo"},"installation":{"id":3}}`, "", nil, true, nil},
		{"an installation change refreshes its token", "installation", `{"action":"new_permissions_accepted","installation":{"id":9}}`, "", nil, false, []int64{9}},
		{"a repositories change too", "installation_repositories", `{"action":"added","installation":{"id":4}}`, "", nil, false, []int64{4}},
		{"an installation event without an installation", "installation", `{"action":"created"}`, "", delivery.ErrIgnored, false, nil},
		{"malformed JSON", "issue_comment", `{`, "", nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, f := &recordingWorker{}, &recordingForgetter{}
			h := &handler{next: w, clients: f, repository: tt.repository, log: quiet()}
			err := h.Handle(context.Background(), "d1", tt.event, []byte(tt.payload))
			switch {
			case tt.payload == "{":
				if err == nil || !strings.Contains(err.Error(), "delivery d1") {
					t.Errorf("err = %v, want one naming the delivery", err)
				}
			case !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if (len(w.calls) == 1) != tt.wantCalled {
				t.Errorf("delivery handler called %v, want %v", w.calls, tt.wantCalled)
			}
			if len(f.forgot) != len(tt.wantForgot) || (len(f.forgot) == 1 && f.forgot[0] != tt.wantForgot[0]) {
				t.Errorf("forgot %v, want %v", f.forgot, tt.wantForgot)
			}
		})
	}
}

func TestDashboardFeedAndAPIAreBehindTheGuard(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef-dashboard"
	s := tokenServer(t, ghfake.New(t), "GCLOOP_DASHBOARD_TOKEN", token)
	base, stop := serve(t, s)
	defer stop()
	tests := []struct {
		path, bearer string
		status       int
		body         string
	}{
		{"/", "", 401, "dashboard token"},
		{"/api/events", "", 401, ""},
		{"/api/loops", "wrong-token-0123456789", 401, ""},
		{"/", token, 200, "<html"},
		{"/api/events", token, 200, "[]"},
		{"/api/loops", token, 200, "[]"},
		{"/healthz", "", 200, "up"},
		{"/metrics", "", 200, "gcloop_websocket_subscribers 0"},
		{"/auth/login", "", 404, ""},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, base+tt.path, nil)
		if tt.bearer != "" {
			req.Header.Set("Authorization", "Bearer "+tt.bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.body) {
			t.Errorf("GET %s (token %q) = %d %.80q, want %d with %q", tt.path, tt.bearer, resp.StatusCode, b, tt.status, tt.body)
		}
	}
}

func TestShutdownClosesWebsocketsWith1001(t *testing.T) {
	t.Parallel()
	s := tokenServer(t, ghfake.New(t)) // loopback: the test's requests may look
	base, stop := serve(t, s)
	// The feed answers 503 "feed starting" until its subscription to the
	// store is up: dial again, as a browser's dashboard does.
	var conn *websocket.Conn
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
		if err == nil {
			conn = c
			break
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("dial /ws: %v (%v)", err, resp)
		}
	}
	defer conn.Close()
	got := make(chan error, 1)
	go func() {
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				got <- err
				return
			}
		}
	}()
	if err := stop(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	select {
	case err := <-got:
		if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
			t.Errorf("the subscriber saw %v, want close 1001", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subscriber saw no close within 10 s")
	}
}

func TestWebURL(t *testing.T) {
	t.Parallel()
	for api, want := range map[string]string{
		"":                                "",
		"https://api.github.com":          "",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com",
		"http://127.0.0.1:4000/":          "",
	} {
		if got := webURL(api); got != want {
			t.Errorf("webURL(%q) = %q, want %q", api, got, want)
		}
	}
}

func TestReadyzOnGitHubsAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int // GitHub's answer to the check; 0: fine
		want   int
	}{
		{"GitHub accepts the credentials", 0, 200},
		{"GitHub refuses the credentials", 401, 503},
		{"GitHub is down: deliveries are still accepted", 502, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := ghfake.New(t)
			s := tokenServer(t, gh)
			if tt.status != 0 {
				gh.Fail(ghfake.FailRule{Pattern: "GET /rate_limit", Status: tt.status})
			}
			base, stop := serve(t, s)
			defer stop()
			if status, body := get(t, base+"/readyz"); status != tt.want {
				t.Errorf("/readyz = %d %s, want %d", status, body, tt.want)
			}
		})
	}
}

package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func TestMetricsOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	s := tokenServer(t, ghfake.New(t), "GCLOOP_METRICS_LISTEN", "127.0.0.1:0")
	addr := make(chan net.Addr, 1)
	s.opts.MetricsListening = func(a net.Addr) { addr <- a }
	base, stop := serve(t, s)
	metrics := "http://" + (<-addr).String()
	tests := []struct {
		url    string
		status int
		body   string
	}{
		{metrics + "/metrics", 200, "gcloop_webhook_unverified_max_bytes 6.7108864e+07"},
		{metrics + "/metrics", 200, "gcloop_queue_depth 0"},
		{base + "/metrics", 404, ""},
		{metrics + "/healthz", 404, ""},
		{metrics + "/webhook", 404, ""},
		{base + "/healthz", 200, "up"},
	}
	for _, tt := range tests {
		if status, body := get(t, tt.url); status != tt.status || !strings.Contains(body, tt.body) {
			t.Errorf("GET %s = %d %.80q, want %d with %q", tt.url, status, body, tt.status, tt.body)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if _, err := http.Get(metrics + "/metrics"); err == nil {
		t.Error("the metrics address still answers after shutdown")
	}
}

func TestMetricsListenerThatCannotListen(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	s := tokenServer(t, ghfake.New(t), "GCLOOP_METRICS_LISTEN", taken.Addr().String())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Serve(t.Context(), ln)
	if err == nil || !strings.Contains(err.Error(), "GCLOOP_METRICS_LISTEN "+taken.Addr().String()) {
		t.Errorf("Serve = %v, want the metrics address named", err)
	}
}

// lockedBuffer is a log's output, safe to read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(l.b.Bytes(), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func TestStartWarnsWhenTheDashboardHasNoAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kv   []string
		warn bool
	}{
		{"neither a token nor OAuth", nil, true},
		{"a dashboard token", []string{"GCLOOP_DASHBOARD_TOKEN", "0123456789abcdef-dashboard"}, false},
		{"GitHub logins", []string{"GCLOOP_OAUTH_CLIENT_ID", "Iv1.x", "GCLOOP_OAUTH_CLIENT_SECRET", "y", "GCLOOP_PUBLIC_URL", "https://bot.example.com"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tokenServer(t, ghfake.New(t), tt.kv...)
			var out lockedBuffer
			s.log = slog.New(slog.NewJSONHandler(&out, nil))
			listening := make(chan struct{})
			s.opts.Listening = func(net.Addr) { close(listening) }
			_, stop := serve(t, s)
			<-listening
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, l := range out.lines() {
				if l["level"] == "WARN" && strings.Contains(l["msg"].(string), "no authentication") {
					warned = true
					if !strings.Contains(l["msg"].(string), "GCLOOP_DASHBOARD_TOKEN") {
						t.Errorf("the warning %q does not say what to set", l["msg"])
					}
				}
			}
			if warned != tt.warn {
				t.Errorf("warned = %v, want %v; log:\n%v", warned, tt.warn, out.lines())
			}
		})
	}
}

func TestLoopbackDashboardRefusesAProxysRequest(t *testing.T) {
	t.Parallel()
	s := tokenServer(t, ghfake.New(t))
	base, stop := serve(t, s)
	defer stop()
	for _, tt := range []struct {
		header, value string
		status        int
	}{
		{"", "", 200},
		{"X-Forwarded-For", "203.0.113.9", 403},
		{"X-Real-IP", "203.0.113.9", 403},
		{"Forwarded", "for=203.0.113.9", 403},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/loops", nil)
		if tt.header != "" {
			req.Header.Set(tt.header, tt.value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("GET /api/loops with %s %q from loopback = %d, want %d", tt.header, tt.value, resp.StatusCode, tt.status)
		}
	}
}

package metrics

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

// scrape reads /metrics and returns each sample line's value by its
// "name{labels}".
func scrape(t *testing.T, m *Metrics) map[string]string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:]
	}
	return out
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		do   func(m *Metrics)
		want map[string]string // sample → value
	}{
		{"deliveries are counted by event and result", func(m *Metrics) {
			m.Observe("issue_comment", "accepted", time.Millisecond)
			m.Observe("issue_comment", "accepted", time.Millisecond)
			m.Observe("issue_comment", "done", time.Second)
			m.Observe("", "unauthorized", 0)
		}, map[string]string{
			`gcloop_deliveries_total{event="issue_comment",result="accepted"}`: "2",
			`gcloop_deliveries_total{event="issue_comment",result="done"}`:     "1",
			`gcloop_deliveries_total{event="none",result="unauthorized"}`:      "1",
			`gcloop_delivery_duration_seconds_count{result="accepted"}`:        "2",
		}},
		{"a long event name is clipped", func(m *Metrics) { m.Observe(long, "bad_request", 0) },
			map[string]string{`gcloop_deliveries_total{event="` + long[:64] + `",result="bad_request"}`: "1"}},
		{"rounds and decisions come from the log", func(m *Metrics) {
			l := CountingLog{Log: memLog{}, Metrics: m}
			ctx := context.Background()
			_, _ = l.Append(ctx, event.Event{Type: event.Round})
			_, _ = l.Append(ctx, event.Event{Type: event.Decision, Data: json.RawMessage(`{"decision":"fix"}`)})
			_, _ = l.Append(ctx, event.Event{Type: event.Decision, Data: json.RawMessage(`{"decision":"converge"}`)})
			_, _ = l.Append(ctx, event.Event{Type: event.Decision, Data: json.RawMessage(`{"decision":"<script>"}`)})
			_, _ = CountingLog{Log: memLog{err: errors.New("down")}, Metrics: m}.Append(ctx, event.Event{Type: event.Round})
		}, map[string]string{
			`gcloop_rounds_total`:                         "1",
			`gcloop_decisions_total{decision="fix"}`:      "1",
			`gcloop_decisions_total{decision="converge"}`: "1",
			`gcloop_decisions_total{decision="other"}`:    "1",
			`gcloop_events_total{type="decision"}`:        "3",
		}},
		{"refused artifacts come from the log's error events", func(m *Metrics) {
			l := CountingLog{Log: memLog{}, Metrics: m}
			ctx := context.Background()
			_, _ = l.Append(ctx, event.Event{Type: event.Error, Data: json.RawMessage(`{"error":"artifact \"a\": over the limit","refused":true}`)})
			_, _ = l.Append(ctx, event.Event{Type: event.Error, Data: json.RawMessage(`{"error":"GitHub is down"}`)})
		}, map[string]string{
			`gcloop_artifacts_refused_total`:    "1",
			`gcloop_events_total{type="error"}`: "2",
		}},
		{"the queue depth is read at each scrape", func(m *Metrics) {
			m.QueueDepth(func(context.Context) (int, error) { return 7, nil })
		}, map[string]string{`gcloop_queue_depth`: "7"}},
		{"a store that does not answer shows -1", func(m *Metrics) {
			m.QueueDepth(func(context.Context) (int, error) { return 0, errors.New("down") })
		}, map[string]string{`gcloop_queue_depth`: "-1"}},
		{"websocket subscribers and the dropped ones", func(m *Metrics) {
			m.Subscribers(func() int { return 3 }, func() int64 { return 2 })
		}, map[string]string{`gcloop_websocket_subscribers`: "3", `gcloop_websocket_dropped_total`: "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New()
			tt.do(m)
			got := scrape(t, m)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

type memLog struct{ err error }

func (l memLog) Append(_ context.Context, e event.Event) (event.Event, error) { return e, l.err }

func TestTransportCountsEveryAnswer(t *testing.T) {
	t.Parallel()
	statuses := []int{200, 200, 404, 502}
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(statuses[i])
		i++
	}))
	defer srv.Close()
	m := New()
	c := &http.Client{Transport: m.Transport(http.DefaultTransport.(*http.Transport).Clone())}
	for range statuses {
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	bad := &http.Client{Transport: m.Transport(failing{})}
	if _, err := bad.Post("http://example.invalid/", "text/plain", nil); err == nil {
		t.Fatal("want a transport error")
	}
	got := scrape(t, m)
	for k, v := range map[string]string{
		`gcloop_github_requests_total{method="GET",status="200"}`:    "2",
		`gcloop_github_requests_total{method="GET",status="404"}`:    "1",
		`gcloop_github_requests_total{method="GET",status="502"}`:    "1",
		`gcloop_github_requests_total{method="POST",status="error"}`: "1",
	} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, errors.New("refused") }

func TestStoreGaugesShowMinusOneWhenTheStoreDoesNotAnswer(t *testing.T) {
	t.Parallel()
	m := New()
	m.DeadDeliveries(func(context.Context) (int, error) { return 0, errors.New("connection refused") })
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if body := rec.Body.String(); !strings.Contains(body, "\ngcloop_deliveries_dead -1\n") {
		t.Errorf("/metrics without the store:\n%s", body)
	}
}

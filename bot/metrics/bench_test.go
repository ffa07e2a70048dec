package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

type okTransport struct{ resp *http.Response }

func (t okTransport) RoundTrip(*http.Request) (*http.Response, error) { return t.resp, nil }

// BenchmarkTransport is what counting costs each GitHub request.
func BenchmarkTransport(b *testing.B) {
	rt := New().Transport(okTransport{&http.Response{StatusCode: 200}})
	req, _ := http.NewRequest(http.MethodGet, "https://api.github.com/", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := rt.RoundTrip(req); err != nil {
				b.Error(err)
			}
		}
	})
}

// BenchmarkObserve is what counting costs each delivery.
func BenchmarkObserve(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for b.Loop() {
		m.Observe("issue_comment", "accepted", time.Millisecond)
	}
}

// populated is a registry with the bot's whole metric set and series as
// a busy replica has them: ten events by eight results, every method and
// the usual statuses, five installations paced.
func populated() *Metrics {
	m := New()
	m.QueueDepth(func(context.Context) (int, error) { return 12, nil })
	m.DeadDeliveries(func(context.Context) (int, error) { return 1, nil })
	m.Subscribers(func() int { return 3 }, func() int64 { return 1 })
	m.Unverified(func() int64 { return 4096 }, 64<<20)
	m.ConfigReads(func() (int64, int64) { return 40, 3 })
	p := m.Pacing()
	events := []string{"issue_comment", "pull_request", "push", "workflow_run", "check_run", "check_suite", "installation", "ping", "pull_request_review", "status"}
	results := []string{"accepted", "duplicate", "unauthorized", "done", "ignored", "retried", "dead", "lost"}
	for i, e := range events {
		for j, r := range results {
			m.Observe(e, r, time.Duration(i*j)*time.Millisecond)
		}
		m.Event(event.Event{Type: e})
	}
	for _, d := range []string{"converge", "fix", "escalate"} {
		m.Event(event.Event{Type: event.Decision, Data: json.RawMessage(`{"decision":"` + d + `"}`)})
	}
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		for _, code := range []int{200, 201, 304, 403, 404, 422} {
			rt := m.Transport(okTransport{&http.Response{StatusCode: code}})
			req, _ := http.NewRequest(method, "https://api.github.com/", nil)
			_, _ = rt.RoundTrip(req)
		}
	}
	for inst := int64(1); inst <= 5; inst++ {
		p.Wait(inst, true, time.Second)
		p.Wait(inst, false, 0)
		p.Block(inst, time.Minute)
	}
	return m
}

// BenchmarkScrape is what one GET /metrics costs on a busy replica's
// metric set, Go's runtime and process metrics included.
func BenchmarkScrape(b *testing.B) {
	h := populated().Handler()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET /metrics: %d", rec.Code)
		}
	}
}

package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// get serves GET /metrics and returns the body.
func get(t testing.TB, m *Metrics) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	return rec.Body.Bytes()
}

// parse reads body with Prometheus' own parser of the text format.
func parse(t testing.TB, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// labelsOf returns a sample's labels by name.
func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// find returns the sample of f whose labels include want.
func find(t testing.TB, f *dto.MetricFamily, want map[string]string) *dto.Metric {
	t.Helper()
	for _, m := range f.GetMetric() {
		got := labelsOf(m)
		match := true
		for k, v := range want {
			if got[k] != v {
				match = false
			}
		}
		if match {
			return m
		}
	}
	t.Fatalf("%s: no sample with labels %q", f.GetName(), want)
	return nil
}

func TestExpositionParses(t *testing.T) {
	t.Parallel()
	const odd = "a\"b\\c\nd"
	m := New()
	observed := []struct {
		event, result string
		elapsed       time.Duration
	}{
		{"issue_comment", "accepted", 3 * time.Millisecond},
		{"issue_comment", "accepted", 50 * time.Millisecond},
		{"push", "accepted", 400 * time.Second},
		{"push", odd, time.Second},
	}
	for _, o := range observed {
		m.Observe(o.event, o.result, o.elapsed)
	}
	m.QueueDepth(func(context.Context) (int, error) { return 4, nil })
	m.DeadDeliveries(func(context.Context) (int, error) { return 3, nil })
	m.Subscribers(func() int { return 1 }, func() int64 { return 0 })
	m.Event(event.Event{Type: event.Decision, Data: json.RawMessage(`{"decision":"fix"}`)})
	if _, err := m.Transport(okTransport{&http.Response{StatusCode: 201}}).RoundTrip(httptest.NewRequest(http.MethodPost, "/", nil)); err != nil {
		t.Fatal(err)
	}
	body := get(t, m)
	fams := parse(t, body)

	t.Run("every family has its type", func(t *testing.T) {
		t.Parallel()
		want := map[string]string{
			"gcloop_deliveries_total":          "counter",
			"gcloop_delivery_duration_seconds": "histogram",
			"gcloop_events_total":              "counter",
			"gcloop_rounds_total":              "counter",
			"gcloop_decisions_total":           "counter",
			"gcloop_github_requests_total":     "counter",
			"gcloop_artifacts_refused_total":   "counter",
			"gcloop_queue_depth":               "gauge",
			"gcloop_deliveries_dead":           "gauge",
			"gcloop_websocket_subscribers":     "gauge",
			"gcloop_websocket_dropped_total":   "counter",
			"go_gc_duration_seconds":           "summary",
			"go_gc_gogc_percent":               "gauge",
			"go_gc_gomemlimit_bytes":           "gauge",
			"go_goroutines":                    "gauge",
			"go_info":                          "gauge",
			"go_sched_gomaxprocs_threads":      "gauge",
			"go_threads":                       "gauge",
			"process_cpu_seconds_total":        "counter",
			"process_max_fds":                  "gauge",
			"process_virtual_memory_max_bytes": "gauge",
			"process_start_time_seconds":       "gauge",
		}
		for _, name := range memStatGauges {
			want[name] = "gauge"
		}
		for _, name := range []string{"go_memstats_alloc_bytes_total", "go_memstats_mallocs_total", "go_memstats_frees_total"} {
			want[name] = "counter"
		}
		if _, err := os.Stat("/proc/self/statm"); err == nil {
			want["process_open_fds"] = "gauge"
			want["process_resident_memory_bytes"] = "gauge"
			want["process_virtual_memory_bytes"] = "gauge"
		}
		if _, err := os.Stat("/proc/self/net/dev"); err == nil {
			want["process_network_receive_bytes_total"] = "counter"
			want["process_network_transmit_bytes_total"] = "counter"
		}
		for name, typ := range want {
			f, ok := fams[name]
			if !ok {
				t.Errorf("%s missing", name)
				continue
			}
			if got := strings.ToLower(f.GetType().String()); got != typ {
				t.Errorf("%s is a %s, want a %s", name, got, typ)
			}
			if f.GetHelp() == "" {
				t.Errorf("%s has no help", name)
			}
		}
		for name := range fams {
			if _, ok := want[name]; !ok {
				t.Errorf("%s exported, not expected", name)
			}
		}
	})

	t.Run("the histogram's buckets are cumulative", func(t *testing.T) {
		t.Parallel()
		h := find(t, fams["gcloop_delivery_duration_seconds"], map[string]string{"result": "accepted"}).GetHistogram()
		wantCounts := []uint64{1, 1, 2, 2, 2, 2, 2, 2, 2, 3} // .005 .025 .1 .5 1 5 15 60 300 +Inf
		wantBounds := []float64{.005, .025, .1, .5, 1, 5, 15, 60, 300, math.Inf(1)}
		if len(h.GetBucket()) != len(wantCounts) {
			t.Fatalf("%d buckets, want %d", len(h.GetBucket()), len(wantCounts))
		}
		for i, b := range h.GetBucket() {
			if b.GetUpperBound() != wantBounds[i] || b.GetCumulativeCount() != wantCounts[i] {
				t.Errorf("bucket %d: le=%g %d, want le=%g %d", i, b.GetUpperBound(), b.GetCumulativeCount(), wantBounds[i], wantCounts[i])
			}
		}
		var sum float64
		for _, o := range observed[:3] {
			sum += o.elapsed.Seconds()
		}
		if h.GetSampleCount() != 3 || h.GetSampleSum() != sum {
			t.Errorf("count %d sum %g, want 3 and %g", h.GetSampleCount(), h.GetSampleSum(), sum)
		}
	})

	t.Run("a label value's quote, backslash and newline are escaped", func(t *testing.T) {
		t.Parallel()
		if !bytes.Contains(body, []byte(`gcloop_deliveries_total{event="push",result="a\"b\\c\nd"} 1`+"\n")) {
			t.Errorf("escaped sample missing:\n%s", body)
		}
		find(t, fams["gcloop_deliveries_total"], map[string]string{"event": "push", "result": odd})
		find(t, fams["gcloop_delivery_duration_seconds"], map[string]string{"result": odd})
	})

	t.Run("samples", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			family string
			labels map[string]string
			want   float64
		}{
			{"gcloop_queue_depth", nil, 4},
			{"gcloop_deliveries_dead", nil, 3},
			{"gcloop_websocket_subscribers", nil, 1},
			{"gcloop_rounds_total", nil, 0},
			{"gcloop_decisions_total", map[string]string{"decision": "fix"}, 1},
			{"gcloop_github_requests_total", map[string]string{"method": "POST", "status": "201"}, 1},
			{"go_info", map[string]string{"version": runtime.Version()}, 1},
		}
		for _, tt := range tests {
			s := find(t, fams[tt.family], tt.labels)
			got := s.GetCounter().GetValue() + s.GetGauge().GetValue()
			if got != tt.want {
				t.Errorf("%s%v = %g, want %g", tt.family, tt.labels, got, tt.want)
			}
		}
		if n := fams["go_goroutines"].GetMetric()[0].GetGauge().GetValue(); n < 1 {
			t.Errorf("go_goroutines = %g", n)
		}
		if q := fams["go_gc_duration_seconds"].GetMetric()[0].GetSummary().GetQuantile(); len(q) != 5 {
			t.Errorf("go_gc_duration_seconds has %d quantiles, want 5 (0, 0.25, 0.5, 0.75, 1)", len(q))
		}
	})
}

func TestHandlerMethods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method    string
		status    int
		allow     string
		emptyBody bool
	}{
		{http.MethodGet, http.StatusOK, "", false},
		{http.MethodHead, http.StatusOK, "", true},
		{http.MethodPost, http.StatusMethodNotAllowed, "GET, HEAD", false},
		{http.MethodPut, http.StatusMethodNotAllowed, "GET, HEAD", false},
		{http.MethodDelete, http.StatusMethodNotAllowed, "GET, HEAD", false},
	}
	h := New().Handler()
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, "/metrics", nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.status == http.StatusOK {
				if got := rec.Header().Get("Content-Type"); got != "text/plain; version=0.0.4; charset=utf-8" {
					t.Errorf("Content-Type %q", got)
				}
			}
			if empty := rec.Body.Len() == 0; empty != tt.emptyBody {
				t.Errorf("empty body %v, want %v", empty, tt.emptyBody)
			}
		})
	}
}

func TestFamiliesAndSeriesAreSorted(t *testing.T) {
	t.Parallel()
	m := New()
	for _, o := range [][2]string{{"push", "done"}, {"issue_comment", "done"}, {"issue_comment", "accepted"}} {
		m.Observe(o[0], o[1], 0)
	}
	var got []string
	for line := range strings.Lines(string(get(t, m))) {
		if name, _, ok := strings.Cut(line, "{"); ok && name == "gcloop_deliveries_total" {
			got = append(got, strings.TrimSpace(line))
		}
	}
	want := []string{
		`gcloop_deliveries_total{event="issue_comment",result="accepted"} 1`,
		`gcloop_deliveries_total{event="issue_comment",result="done"} 1`,
		`gcloop_deliveries_total{event="push",result="done"} 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(fams); i++ {
		if fams[i-1].GetName() >= fams[i].GetName() {
			t.Errorf("%s before %s", fams[i-1].GetName(), fams[i].GetName())
		}
	}
}

// memStatGauges are the go_memstats_* gauges; the three counters are
// named in the test.
var memStatGauges = []string{
	"go_memstats_alloc_bytes", "go_memstats_sys_bytes", "go_memstats_heap_alloc_bytes",
	"go_memstats_heap_sys_bytes", "go_memstats_heap_idle_bytes", "go_memstats_heap_inuse_bytes",
	"go_memstats_heap_released_bytes", "go_memstats_heap_objects", "go_memstats_stack_inuse_bytes",
	"go_memstats_stack_sys_bytes", "go_memstats_mspan_inuse_bytes", "go_memstats_mspan_sys_bytes",
	"go_memstats_mcache_inuse_bytes", "go_memstats_mcache_sys_bytes", "go_memstats_buck_hash_sys_bytes",
	"go_memstats_gc_sys_bytes", "go_memstats_other_sys_bytes", "go_memstats_next_gc_bytes",
	"go_memstats_last_gc_time_seconds",
}

func TestRegisterTwicePanics(t *testing.T) {
	t.Parallel()
	m := New()
	m.QueueDepth(func(context.Context) (int, error) { return 0, nil })
	defer func() {
		if recover() == nil {
			t.Error("a second gcloop_queue_depth did not panic")
		}
	}()
	m.QueueDepth(func(context.Context) (int, error) { return 0, nil })
}

func TestClip(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	tests := []struct{ name, in, want string }{
		{"short", "issue_comment", "issue_comment"},
		{"empty", "", ""},
		{"exactly 64 bytes", long[:64], long[:64]},
		{"cut at 64 bytes", long, long[:64]},
		{"a character across the cut is left out", long[:63] + "é", long[:63]},
		{"a character ending at the cut is kept", long[:62] + "é" + "x", long[:62] + "é"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", "a\uFFFDb"},
		{"quotes, backslashes and newlines stay", "a\"b\\c\nd", "a\"b\\c\nd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := clip(tt.in); got != tt.want {
				t.Errorf("clip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStatusLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		want string
	}{{100, "100"}, {200, "200"}, {404, "404"}, {599, "599"}, {99, "99"}, {600, "600"}, {0, "0"}}
	for _, tt := range tests {
		if got := statusLabel(tt.code); got != tt.want {
			t.Errorf("statusLabel(%d) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

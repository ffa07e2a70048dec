// Package metrics holds the bot's Prometheus metrics — deliveries by event
// and result, the queue's depth, rounds and decisions, GitHub requests by
// status, websocket subscribers and the ones dropped — served on /metrics,
// and its health endpoints: /healthz (the process is up) and /readyz (the
// store and GitHub's auth answer).
//
// The registry, the series and the text format are Prometheus' client
// library's (client_golang), Go's runtime and process metrics its
// collectors'. Only the bot's server links it: the action's image is built
// with -tags nobot.
package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/gcloop/gcloop/bot/event"
)

// scrapeTimeout bounds what a gauge asks of the store at each scrape.
const scrapeTimeout = 2 * time.Second

// Metrics is the bot's registry. Its methods are safe for concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	events     *prometheus.CounterVec
	rounds     prometheus.Counter
	decisions  *prometheus.CounterVec
	github     *prometheus.CounterVec
	refused    prometheus.Counter
}

// New returns a registry with the bot's metrics and Go's runtime and
// process metrics.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		deliveries: counterVec("gcloop_deliveries_total",
			"Webhook deliveries by event and result: the receiver's (accepted, duplicate, unauthorized, ...) and the workers' (done, ignored, dead, retried, rekeyed, released, lost).",
			"event", "result"),
		duration: histogramVec("gcloop_delivery_duration_seconds",
			"Time to answer a delivery or to work one off, by result.",
			[]float64{.005, .025, .1, .5, 1, 5, 15, 60, 300}, "result"),
		events: counterVec("gcloop_events_total", "Events written to the event log, by type.", "type"),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{Name: "gcloop_rounds_total",
			Help: "Server-side rounds started."}),
		decisions: counterVec("gcloop_decisions_total", "Rounds decided, by decision.", "decision"),
		github: counterVec("gcloop_github_requests_total",
			"Requests sent to GitHub (each attempt), by method and status; status \"error\" when no answer came.",
			"method", "status"),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "gcloop_artifacts_refused_total",
			Help: "Rounds whose artifacts were refused: over the artifact budget, a zip bomb, unsafe or broken."}),
	}
	m.reg.MustRegister(m.deliveries, m.duration, m.events, m.rounds, m.decisions, m.github, m.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// gaugeFunc and counterFunc are a gauge and a counter without labels
// whose value is read at each scrape.
func gaugeFunc(name, help string, value func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, value)
}

func counterFunc(name, help string, value func() float64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, value)
}

// Observe counts one delivery's result; its signature is the webhook
// receiver's and pool's Observer.
func (m *Metrics) Observe(event, result string, elapsed time.Duration) {
	if event == "" {
		event = "none"
	}
	result = clip(result)
	m.deliveries.WithLabelValues(clip(event), result).Inc()
	m.duration.WithLabelValues(result).Observe(elapsed.Seconds())
}

// QueueDepth exports depth (the store's Pending) as the gauge
// gcloop_queue_depth, read at each scrape; a store that does not answer
// shows -1.
func (m *Metrics) QueueDepth(depth func(ctx context.Context) (int, error)) {
	m.reg.MustRegister(gaugeFunc("gcloop_queue_depth",
		"Deliveries pending or being worked on, in the shared queue; -1 when the store does not answer.", storeRead(depth)))
}

// DeadDeliveries exports the number of dead deliveries the store keeps
// (count, read at each scrape) as the gauge gcloop_deliveries_dead; a
// store that does not answer shows -1.
func (m *Metrics) DeadDeliveries(count func(ctx context.Context) (int, error)) {
	m.reg.MustRegister(gaugeFunc("gcloop_deliveries_dead",
		"Dead deliveries kept for redelivery: failed for good, or still failing when their retry window ended; -1 when the store does not answer.", storeRead(count)))
}

// storeRead is a gauge's value read from the store at a scrape, bounded by
// scrapeTimeout; -1 when the store does not answer.
func storeRead(read func(ctx context.Context) (int, error)) func() float64 {
	return func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		n, err := read(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	}
}

// Subscribers exports the live feed's websocket subscribers (n, read at
// each scrape) and how many were dropped for falling behind (dropped).
func (m *Metrics) Subscribers(n func() int, dropped func() int64) {
	m.reg.MustRegister(
		gaugeFunc("gcloop_websocket_subscribers", "Websocket subscribers of the live feed on this replica.",
			func() float64 { return float64(n()) }),
		counterFunc("gcloop_websocket_dropped_total", "Websocket subscribers closed because their buffer filled (1013).",
			func() float64 { return float64(dropped()) }))
}

// Event counts an event written to the log: every type, and rounds and
// decisions (by the data's "decision") on their own.
func (m *Metrics) Event(e event.Event) {
	m.events.WithLabelValues(clip(e.Type)).Inc()
	switch e.Type {
	case event.Round:
		m.rounds.Inc()
	case event.Decision:
		var d struct {
			Decision string `json:"decision"`
		}
		_ = json.Unmarshal(e.Data, &d)
		m.decisions.WithLabelValues(decisionLabel(d.Decision)).Inc()
	case event.Error:
		var d struct {
			Refused bool `json:"refused"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.Refused {
			m.refused.Inc()
		}
	}
}

// decisionLabel keeps the label's values few: the decisions gcloop makes.
func decisionLabel(s string) string {
	switch s {
	case "converge", "fix", "escalate":
		return s
	}
	return "other"
}

// maxLabel caps a label value taken from a request, in bytes, so that no
// caller can grow the registry with long values.
const maxLabel = 64

// clip makes s a label value: invalid UTF-8 becomes U+FFFD, and the value
// is cut to maxLabel bytes, at a character's boundary.
func clip(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= maxLabel {
		return s
	}
	n := maxLabel
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Log is where events are appended (the store).
type Log interface {
	Append(ctx context.Context, e event.Event) (event.Event, error)
}

// CountingLog appends to Log and counts what was appended.
type CountingLog struct {
	Log     Log
	Metrics *Metrics
}

// Append appends e and counts it once the log took it.
func (l CountingLog) Append(ctx context.Context, e event.Event) (event.Event, error) {
	out, err := l.Log.Append(ctx, e)
	if err == nil {
		l.Metrics.Event(out)
	}
	return out, err
}

// Transport counts every request base sends (each retry too) by method
// and status.
func (m *Metrics) Transport(base http.RoundTripper) http.RoundTripper {
	return roundTripper{m: m, base: base}
}

type roundTripper struct {
	m    *Metrics
	base http.RoundTripper
}

func (t roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	status := "error"
	if err == nil {
		status = statusLabel(resp.StatusCode)
	}
	t.m.github.WithLabelValues(method(req.Method), status).Inc()
	return resp, err
}

func method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return m
	}
	return "other"
}

// statusLabels holds the labels of the statuses 100 to 599, made at the
// first request (not at the program's start), so that counting one
// allocates nothing.
var (
	statusOnce   sync.Once
	statusLabels [500]string
)

func statusLabel(code int) string {
	if code < 100 || code >= 600 {
		return strconv.Itoa(code)
	}
	statusOnce.Do(func() {
		for i := range statusLabels {
			statusLabels[i] = strconv.Itoa(100 + i)
		}
	})
	return statusLabels[code-100]
}

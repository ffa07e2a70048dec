// Package metrics holds the bot's Prometheus metrics — deliveries by event
// and result, the queue's depth, rounds and decisions, GitHub requests by
// status, websocket subscribers and the ones dropped — served on /metrics,
// and its health endpoints: /healthz (the process is up) and /readyz (the
// store and GitHub's auth answer).
package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
}

// New returns a registry with the bot's metrics and Go's process and
// runtime collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gcloop_deliveries_total",
			Help: "Webhook deliveries by event and result: the receiver's (accepted, duplicate, unauthorized, ...) and the workers' (done, ignored, failed, released, lost).",
		}, []string{"event", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gcloop_delivery_duration_seconds",
			Help:    "Time to answer a delivery or to work one off, by result.",
			Buckets: []float64{.005, .025, .1, .5, 1, 5, 15, 60, 300},
		}, []string{"result"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gcloop_events_total",
			Help: "Events written to the event log, by type.",
		}, []string{"type"}),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gcloop_rounds_total",
			Help: "Server-side rounds started.",
		}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gcloop_decisions_total",
			Help: "Rounds decided, by decision.",
		}, []string{"decision"}),
		github: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gcloop_github_requests_total",
			Help: "Requests sent to GitHub (each attempt), by method and status; status \"error\" when no answer came.",
		}, []string{"method", "status"}),
	}
	m.reg.MustRegister(m.deliveries, m.duration, m.events, m.rounds, m.decisions, m.github,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the underlying registry, for more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus' text format (/metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Observe counts one delivery's result; its signature is the webhook
// receiver's and pool's Observer.
func (m *Metrics) Observe(event, result string, elapsed time.Duration) {
	if event == "" {
		event = "none"
	}
	m.deliveries.WithLabelValues(clip(event), clip(result)).Inc()
	m.duration.WithLabelValues(clip(result)).Observe(elapsed.Seconds())
}

// QueueDepth exports depth (the store's Pending) as the gauge
// gcloop_queue_depth, read at each scrape; a store that does not answer
// shows -1.
func (m *Metrics) QueueDepth(depth func(ctx context.Context) (int, error)) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gcloop_queue_depth",
		Help: "Deliveries pending or being worked on, in the shared queue; -1 when the store does not answer.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		n, err := depth(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	}))
}

// Subscribers exports the live feed's websocket subscribers (n, read at
// each scrape) and how many were dropped for falling behind (dropped).
func (m *Metrics) Subscribers(n func() int, dropped func() int64) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gcloop_websocket_subscribers",
			Help: "Websocket subscribers of the live feed on this replica.",
		}, func() float64 { return float64(n()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "gcloop_websocket_dropped_total",
			Help: "Websocket subscribers closed because their buffer filled (1013).",
		}, func() float64 { return float64(dropped()) }))
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

// maxLabel caps a label value taken from a request, so that no caller can
// grow the registry with long values.
const maxLabel = 64

func clip(s string) string {
	if len(s) > maxLabel {
		return s[:maxLabel]
	}
	return s
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
		status = strconv.Itoa(resp.StatusCode)
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

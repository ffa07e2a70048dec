package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestConcurrentObserveAndScrape observes and scrapes at once (run it with
// -race): every scrape parses and its histograms agree with themselves,
// and the totals add up exactly in the end.
func TestConcurrentObserveAndScrape(t *testing.T) {
	t.Parallel()
	const workers, each = 8, 500
	// Durations whose seconds are exact in binary: their sum is exact in
	// any order.
	durations := []time.Duration{time.Second / 4, time.Second / 2, 2 * time.Second, 400 * time.Second}
	m := New()
	rt := m.Transport(okTransport{&http.Response{StatusCode: 200}})
	req, _ := http.NewRequest(http.MethodGet, "https://api.github.com/", nil)

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range each {
				m.Observe(fmt.Sprintf("e%d", i%3), "done", durations[i%len(durations)])
				if _, err := rt.RoundTrip(req); err != nil {
					t.Error(err)
				}
			}
		})
	}
	stop := make(chan struct{})
	scraped := make(chan int)
	go func() {
		n := 0
		defer func() { scraped <- n }()
		// At least one scrape, however soon the observers are done: the
		// loop looks for the stop after each, not before.
		for {
			// t.Fatal may not be called here, off the test's goroutine.
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			p := expfmt.NewTextParser(model.LegacyValidation)
			fams, err := p.TextToMetricFamilies(rec.Body)
			if err != nil {
				t.Errorf("parse /metrics: %v", err)
				return
			}
			n++
			if f := fams["gcloop_delivery_duration_seconds"]; f != nil {
				h := f.GetMetric()[0].GetHistogram()
				b := h.GetBucket()
				if inf := b[len(b)-1].GetCumulativeCount(); inf != h.GetSampleCount() {
					t.Errorf("+Inf bucket %d, count %d", inf, h.GetSampleCount())
				}
				for i := 1; i < len(b); i++ {
					if b[i].GetCumulativeCount() < b[i-1].GetCumulativeCount() {
						t.Errorf("bucket %d below bucket %d", i, i-1)
					}
				}
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	wg.Wait()
	close(stop)
	if n := <-scraped; n == 0 {
		t.Error("no scrape ran")
	}

	fams := parse(t, get(t, m))
	var deliveries float64
	for _, s := range fams["gcloop_deliveries_total"].GetMetric() {
		deliveries += s.GetCounter().GetValue()
	}
	if deliveries != workers*each {
		t.Errorf("deliveries %g, want %d", deliveries, workers*each)
	}
	var sum float64
	for i := range each {
		sum += durations[i%len(durations)].Seconds()
	}
	sum *= workers
	h := fams["gcloop_delivery_duration_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != workers*each || h.GetSampleSum() != sum {
		t.Errorf("histogram count %d sum %g, want %d and %g", h.GetSampleCount(), h.GetSampleSum(), workers*each, sum)
	}
	// le 0.5 holds the quarter and the half seconds: half the observations.
	if b := find(t, fams["gcloop_delivery_duration_seconds"], nil).GetHistogram().GetBucket()[3]; b.GetUpperBound() != 0.5 || b.GetCumulativeCount() != workers*each/2 {
		t.Errorf("le=%g holds %d, want le=0.5 holding %d", b.GetUpperBound(), b.GetCumulativeCount(), workers*each/2)
	}
	if got := find(t, fams["gcloop_github_requests_total"], map[string]string{"method": "GET", "status": "200"}).GetCounter().GetValue(); got != workers*each {
		t.Errorf("github requests %g, want %d", got, workers*each)
	}
}

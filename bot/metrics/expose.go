package metrics

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// contentType is Prometheus' text exposition format, version 0.0.4.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics in Prometheus' text format (/metrics) to GET
// and HEAD; other methods get 405. A registry that cannot be gathered
// (two series of one family that disagree: a programming error) answers
// 500, as Prometheus' own handler does.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodHead:
			w.Header().Set("Content-Type", contentType)
			return
		default:
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		var body bytes.Buffer
		if err := writeText(&body, m.reg); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
		_, _ = w.Write(body.Bytes()) // a scraper that hung up is no error of ours
	})
}

// writeText writes every family of g, sorted by name, with its series
// sorted by label values, in the text format.
func writeText(w io.Writer, g prometheus.Gatherer) error {
	fams, err := g.Gather()
	if err != nil {
		return fmt.Errorf("gather metrics: %w", err)
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("write %s: %w", f.GetName(), err)
		}
	}
	return nil
}

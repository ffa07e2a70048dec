package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// FuzzLabelEscaping sends any label value through Observe: the exposition
// still parses with Prometheus' parser and gives back the clipped value.
func FuzzLabelEscaping(f *testing.F) {
	for _, s := range []string{"", "issue_comment", `"`, `\`, "\n", "a\"b\\c\nd", `\n`, `\"`, "}", "=", ",",
		"\xff", "é", strings.Repeat("x", 63) + "é", strings.Repeat("\\", 100), "\x00", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := New()
		m.Observe(s, s, time.Second)
		r := prometheus.NewRegistry() // the families at stake, without the runtime's
		r.MustRegister(m.deliveries, m.duration)
		var text bytes.Buffer
		if err := writeText(&text, r); err != nil {
			t.Fatal(err)
		}
		fams := parse(t, text.Bytes())

		want := clip(s)
		if len(want) > maxLabel || !utf8.ValidString(want) {
			t.Fatalf("clip(%q) = %q: over %d bytes or not UTF-8", s, want, maxLabel)
		}
		if utf8.ValidString(s) && !strings.HasPrefix(s, want) {
			t.Fatalf("clip(%q) = %q: not a prefix", s, want)
		}
		event := want
		if s == "" {
			event = "none"
		}
		d := fams["gcloop_deliveries_total"].GetMetric()
		if len(d) != 1 {
			t.Fatalf("%d delivery samples, want 1", len(d))
		}
		if got := labelsOf(d[0]); got["event"] != event || got["result"] != want {
			t.Fatalf("labels %q, want event %q result %q", got, event, want)
		}
		h := fams["gcloop_delivery_duration_seconds"].GetMetric()
		if len(h) != 1 || labelsOf(h[0])["result"] != want || h[0].GetHistogram().GetSampleCount() != 1 {
			t.Fatalf("histogram %v, want one observation with result %q", h, want)
		}
	})
}

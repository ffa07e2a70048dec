package feed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// discardWriter is a ResponseWriter that keeps nothing of the body, so
// that a benchmark measures what the handler holds, not the client.
type discardWriter struct {
	h     http.Header
	bytes int64
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}
func (d *discardWriter) Write(p []byte) (int, error) { d.bytes += int64(len(p)); return len(p), nil }

// BenchmarkEventsNDJSON streams a retained log of n decision events:
// the bytes allocated per event stay the same whatever n, since the log is
// read and written one page at a time.
func BenchmarkEventsNDJSON(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			st := store.NewMemory(store.Options{Retained: n})
			defer st.Close()
			data := []byte(`{"round":2,"max_rounds":3,"decision":"fix","verdict":"FIX","status":"complete","sha":"89abcdef0123456789abcdef0123456789abcdef","run":123456789}`)
			for i := range n {
				if _, err := st.Append(context.Background(), event.Event{Type: event.Decision, Repo: "octo/shop", PR: 1 + i%50, Loop: "review", Data: data}); err != nil {
					b.Fatal(err)
				}
			}
			h, err := New(st, Options{Logger: discard()})
			if err != nil {
				b.Fatal(err)
			}
			handler := h.Events()
			req := httptest.NewRequest(http.MethodGet, "/api/events?format=ndjson", nil)
			b.ReportAllocs()
			b.ResetTimer()
			var written int64
			for range b.N {
				w := &discardWriter{h: http.Header{}}
				handler.ServeHTTP(w, req)
				written = w.bytes
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
			b.ReportMetric(float64(written)/float64(n), "bytes-out/event")
		})
	}
}

package metrics

import (
	"net/http"
	"testing"
	"time"
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

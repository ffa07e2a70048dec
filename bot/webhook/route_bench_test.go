package webhook

import (
	"os"
	"testing"
)

func BenchmarkRouteOf(b *testing.B) { benchmarkRoute(b, routeOf) }

// BenchmarkRouteOfEncodingJSON is what BenchmarkRouteOf would cost through
// encoding/json: the figure the scanner is measured against.
func BenchmarkRouteOfEncodingJSON(b *testing.B) { benchmarkRoute(b, routeOfJSON) }

// benchmarkRoute times route on an issue_comment delivery.
func benchmarkRoute[R any](b *testing.B, route func(event string, body []byte) (R, error)) {
	body, err := os.ReadFile("testdata/issue_comment.created.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := route("issue_comment", body); err != nil {
			b.Fatal(err)
		}
	}
}

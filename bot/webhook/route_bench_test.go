package webhook

import (
	"os"
	"testing"
)

func BenchmarkRouteOf(b *testing.B) {
	body, err := os.ReadFile("testdata/issue_comment.created.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := routeOf("issue_comment", body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignature(b *testing.B) {
	body, err := os.ReadFile("testdata/issue_comment.created.json")
	if err != nil {
		b.Fatal(err)
	}
	s := newSigner([]byte("secret"))
	sig := Sign([]byte("secret"), body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !s.valid(sig, body) {
			b.Fatal("invalid")
		}
	}
}

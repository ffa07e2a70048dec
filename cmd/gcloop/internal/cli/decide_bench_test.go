package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneFindingSARIF is a SARIF log of one error.
const oneFindingSARIF = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[{"level":"error","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}]}]}]}`

// BenchmarkDecideOneFinding is `gcloop decide --format json` on a log of
// one finding, in process: the decision's own cost, without the start of
// a process (BenchmarkCompareJQ in decide/evidence measures both).
func BenchmarkDecideOneFinding(b *testing.B) {
	path := filepath.Join(b.TempDir(), "one.sarif")
	if err := os.WriteFile(path, []byte(oneFindingSARIF), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"decide", "--format", "json", path}
	getenv := func(string) string { return "" }
	var stderr bytes.Buffer
	if code := Main(context.Background(), args, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
		b.Fatalf("gcloop decide: exit %d: %s", code, stderr.String())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := Main(context.Background(), args, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
			b.Fatalf("gcloop decide: exit %d: %s", code, stderr.String())
		}
	}
}

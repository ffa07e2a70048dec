package coverage

import (
	"bytes"
	"os"
	"runtime"
	"testing"
)

func BenchmarkZZProf(b *testing.B) {
	path := os.Getenv("PROF_FILE")
	if path == "" {
		b.Skip("no PROF_FILE")
	}
	for _, bc := range []struct {
		name string
		sp   profSplit
	}{
		{"one", profSplit{workers: 1}},
		{"parts", profSplit{workers: runtime.GOMAXPROCS(0), chunk: profChunkSize, maxChunk: profMaxChunk}},
		{"parts32k", profSplit{workers: runtime.GOMAXPROCS(0), chunk: 32 << 10, maxChunk: profMaxChunk}},
		{"parts64k", profSplit{workers: runtime.GOMAXPROCS(0), chunk: 64 << 10, maxChunk: profMaxChunk}},
		{"parts128k", profSplit{workers: runtime.GOMAXPROCS(0), chunk: 128 << 10, maxChunk: profMaxChunk}},
		{"parts1m", profSplit{workers: runtime.GOMAXPROCS(0), chunk: 1 << 20, maxChunk: profMaxChunk}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cpuTime()
			benchRead(b, path, func(f *os.File) error {
				_, err := readGoProfile("big.out", f, bc.sp)
				return err
			})
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkZZMem(b *testing.B) {
	path := os.Getenv("PROF_SLICE")
	if path == "" {
		b.Skip("no PROF_SLICE")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := readGoProfile("x", bytes.NewReader(data), profSplit{workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
}

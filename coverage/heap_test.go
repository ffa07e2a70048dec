package coverage

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// liveHeap returns the heap still in use, after a collection, by what read
// returns, above what was in use before it.
func liveHeap(read func() any) (uint64, any) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := read()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, kept
	}
	return after.HeapAlloc - before.HeapAlloc, kept
}

// The memory `coverage report` keeps for a monorepo LCOV is a few dozen
// bytes per distinct file (its path and its line bitmaps, needed to merge a
// file that appears again later), measured on 240 000 files of 60 lines.
// Not parallel: it measures the process heap.
func TestLCOVHeapPerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 240 000 generated records")
	}
	const files = 240_000
	record := func(i int) string {
		s := fmt.Sprintf("SF:/src/monorepo/services/svc%03d/internal/pkg%02d/file%06d.ts\n", i%500, i%37, i)
		for l := 1; l <= 60; l++ {
			s += fmt.Sprintf("DA:%d,%d\n", 2*l, (i+l)%3)
		}
		return s + "end_of_record\n"
	}
	n, kept := liveHeap(func() any {
		c, err := ReadLCOV("big.info", &filesReader{n: files, file: record})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	c := kept.(*decide.CoverageFacts)
	if len(c.Files) != files {
		t.Fatalf("%d files, want %d", len(c.Files), files)
	}
	per := n / files
	t.Logf("live heap after reading %d files: %d MiB, %d bytes a file", files, n>>20, per)
	if per > 150 {
		t.Errorf("%d bytes kept per file, want at most 150", per)
	}
}

package coverage

import (
	"fmt"
	"io"
	"runtime"
	"testing"
)

// regenerated is a generated report that can be read again from the start
// (StreamLCOV reads twice); it is never held whole.
type regenerated struct {
	gen func() io.Reader
	r   io.Reader
}

func (g *regenerated) Read(p []byte) (int, error) {
	if g.r == nil {
		g.r = g.gen()
	}
	return g.r.Read(p)
}

func (g *regenerated) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekStart {
		return 0, fmt.Errorf("regenerated: only a seek to the start")
	}
	g.r = nil
	return 0, nil
}

// peakSampler samples the live heap (after a collection, so garbage of
// the generator does not count) every stride bytes read.
type peakSampler struct {
	r          io.ReadSeeker
	n, next    int64
	stride     int64
	base, peak uint64
}

func (p *peakSampler) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.n >= p.next {
		p.next = p.n + p.stride
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.peak = max(p.peak, ms.HeapAlloc)
	}
	return n, err
}

func (p *peakSampler) Seek(offset int64, whence int) (int64, error) {
	return p.r.Seek(offset, whence)
}

// monorepoLCOV generates an LCOV report of files records of 60 lines.
func monorepoLCOV(files int) io.ReadSeeker {
	record := func(i int) string {
		s := fmt.Sprintf("SF:/src/monorepo/services/svc%03d/internal/pkg%02d/file%06d.ts\n", i%500, i%37, i)
		for l := 1; l <= 60; l++ {
			s += fmt.Sprintf("DA:%d,%d\n", 2*l, (i+l)%3)
		}
		return s + "end_of_record\n"
	}
	return &regenerated{gen: func() io.Reader { return &filesReader{n: files, file: record} }}
}

// streamPeak streams a generated report of n files into a RollUp and
// returns the peak heap in use above the baseline, and the roll-up.
func streamPeak(t *testing.T, n int) (uint64, *RollUp) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ps := &peakSampler{r: monorepoLCOV(n), stride: 4 << 20, base: ms.HeapAlloc}
	ru := NewRollUp()
	c, err := StreamLCOV("big.info", ps, ru)
	if err != nil {
		t.Fatal(err)
	}
	if ru.files != n || c.Total != int64(60*n) {
		t.Fatalf("%d files, %d lines; want %d, %d", ru.files, c.Total, n, 60*n)
	}
	if ps.peak < ps.base {
		return 0, ru
	}
	return ps.peak - ps.base, ru
}

// `coverage report` on one LCOV file keeps no record per file: the peak
// live heap while streaming 240 000 files into the roll-up exceeds that of
// 2 000 files by no more than the first pass's path hashes (8 bytes a
// file in a table at most half full, twice that while it grows) —
// measured in bytes of heap, not time.
// Not parallel: it measures the process heap.
func TestStreamLCOVHeapDoesNotGrowWithFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 240 000 generated records")
	}
	small, _ := streamPeak(t, 2_000)
	large, _ := streamPeak(t, 240_000)
	hashes := uint64(2 * 8 * (1 << 19)) // 2^19 slots for 240 000 paths; the old table too while growing
	t.Logf("peak heap above baseline: 2 000 files %.1f MiB, 240 000 files %.1f MiB", float64(small)/(1<<20), float64(large)/(1<<20))
	if large > small+hashes+1<<20 {
		t.Errorf("peak heap %d KiB for 240 000 files, %d KiB for 2 000: grows with the files", large>>10, small>>10)
	}
}

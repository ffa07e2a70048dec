package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gcloop/gcloop/decide"
)

// writeBenchSARIF writes a realistic SARIF log of n results to w: a scanner
// with 40 rules (some with security-severity, mixed default levels), results
// over 2 000 files in 100 packages, about half without their own level,
// fingerprints, a related location, and one in 20 suppressed in source.
func writeBenchSARIF(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	levels := []string{"error", "warning", "note", "warning"}
	fmt.Fprint(bw, `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"semgrep","semanticVersion":"1.50.0","informationUri":"https://semgrep.dev","rules":[`)
	const rules = 40
	for i := 0; i < rules; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		props := `{"tags":["security","correctness"],"precision":"high"}`
		if i%4 == 0 {
			props = fmt.Sprintf(`{"tags":["security","external/cwe/cwe-%d"],"precision":"high","security-severity":"%d.%d"}`, 70+i, 3+i%7, i%10)
		}
		fmt.Fprintf(bw, `{"id":"rules.lang.security.rule-%02d","name":"Rule%02d","shortDescription":{"text":"Rule %d finds a problem"},"fullDescription":{"text":"Rule %d finds a problem in code that does something risky; see the docs."},"help":{"text":"Fix it","markdown":"**Fix it**"},"defaultConfiguration":{"level":"%s"},"properties":%s}`,
			i, i, i, i, levels[i%len(levels)], props)
	}
	fmt.Fprint(bw, `]}},"invocations":[{"executionSuccessful":true,"toolExecutionNotifications":[]}],"artifacts":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"location":{"uri":"src/pkg%03d/file%04d.go","uriBaseId":"%%SRCROOT%%"},"length":%d}`, i%100, i, 1000+i)
	}
	fmt.Fprint(bw, `],"results":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		rule := (i * 7) % rules
		level := ""
		if i%2 == 0 {
			level = fmt.Sprintf(`"level":"%s",`, levels[(i/2)%len(levels)])
		}
		supp := ""
		if i%20 == 19 {
			supp = `,"suppressions":[{"kind":"inSource","justification":"false positive"}]`
		}
		file := i % 2000
		line := 1 + (i*13)%900
		fmt.Fprintf(bw, `{"ruleId":"rules.lang.security.rule-%02d","ruleIndex":%d,%s"message":{"text":"Possible problem number %d: value flows from parameter 'input' into a risky call without validation"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/pkg%03d/file%04d.go","uriBaseId":"%%SRCROOT%%","index":%d},"region":{"startLine":%d,"startColumn":5,"endLine":%d,"endColumn":42,"snippet":{"text":"\tresult := risky(input)"}}}}],"relatedLocations":[{"id":1,"physicalLocation":{"artifactLocation":{"uri":"src/pkg%03d/file%04d.go"},"region":{"startLine":%d}},"message":{"text":"source"}}],"partialFingerprints":{"primaryLocationLineHash":"%016x:1"},"fingerprints":{"matchBasedId/v1":"%032x"}%s}`,
			rule, rule, level, i, file%100, file, file, line, line, file%100, file, line+1, uint64(i)*0x9e3779b97f4a7c15, uint64(i)*31, supp)
	}
	fmt.Fprint(bw, `]}]}`)
	return bw.Flush()
}

// writeCompactSARIF writes a SARIF log of n compact results, about 260
// bytes each (a 100 000-result log is about 26 MB): 200 rules, 1 200 files,
// a level on most results, one region, every 50th result suppressed — the
// shape of a linter's log rather than a scanner's.
func writeCompactSARIF(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	levels := []string{"error", "warning", "note", "warning", "warning"}
	fmt.Fprint(bw, `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"golangci-lint","rules":[`)
	const rules = 200
	for i := 0; i < rules; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"id":"L%03d","shortDescription":{"text":"lint rule %d"}}`, i, i)
	}
	fmt.Fprint(bw, `]}},"results":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		supp := ""
		if i%50 == 49 {
			supp = `,"suppressions":[{"kind":"inSource"}]`
		}
		file := (i * 7) % 1200
		fmt.Fprintf(bw, `{"ruleId":"L%03d","level":"%s","message":{"text":"value %d of parameter is never used after the assignment in this function"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"internal/pkg%02d/file%04d.go"},"region":{"startLine":%d,"startColumn":%d}}}]%s}`,
			(i*13)%rules, levels[i%len(levels)], i, file%60, file, 1+(i*31)%2000, 1+i%40, supp)
	}
	fmt.Fprint(bw, `]}]}`)
	return bw.Flush()
}

// benchSARIFFile writes a log of n results to a temporary file.
func benchSARIFFile(tb testing.TB, n int) (path string, size int64) {
	return sarifFile(tb, "bench", n, writeBenchSARIF)
}

// sarifFile writes the log write makes of n results to a temporary file.
func sarifFile(tb testing.TB, name string, n int, write func(io.Writer, int) error) (path string, size int64) {
	tb.Helper()
	path = filepath.Join(tb.TempDir(), fmt.Sprintf("%s-%d.sarif", name, n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := write(f, n); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, st.Size()
}

func benchmarkReadSARIF(b *testing.B, n int) {
	path, size := benchSARIFFile(b, n)
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := benchCPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ev, err := ReadSARIF("bench.sarif", f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(ev.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
	b.StopTimer()
	// CPU time is reported besides wall time: on a loaded machine it is
	// the steadier measure.
	b.ReportMetric(float64(benchCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// benchCPUTime is the user and system CPU time of the process so far.
func benchCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadSARIF10k reads a 10 000-result log.
func BenchmarkReadSARIF10k(b *testing.B) { benchmarkReadSARIF(b, 10000) }

// BenchmarkReadSARIF100k reads a 100 000-result log (DESIGN §11).
func BenchmarkReadSARIF100k(b *testing.B) { benchmarkReadSARIF(b, 100000) }

// peakReader samples the heap in use every stride bytes read.
type peakReader struct {
	r      io.Reader
	n      int64
	next   int64
	stride int64
	peak   uint64
}

func (p *peakReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.n >= p.next {
		p.next = p.n + p.stride
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > p.peak {
			p.peak = ms.HeapInuse
		}
	}
	return n, err
}

// sarifPeakHeap reads the log at path and returns the peak heap in use
// above the baseline before the read, sampled as the file is consumed.
func sarifPeakHeap(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	pr := &peakReader{r: f, stride: 1 << 20}
	ev, err := ReadSARIF("mem.sarif", pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Findings) != MaxFindings {
		t.Fatalf("kept %d findings, want %d", len(ev.Findings), MaxFindings)
	}
	if pr.peak < base {
		return 0
	}
	return pr.peak - base
}

// TestReadSARIFMemoryIsFlat checks that the heap a read needs does not grow
// with the number of results beyond the fingerprint set: reading 100k
// results peaks at about what 10k results do (both past MaxFindings, so
// both keep a full set) plus 16 bytes a distinct finding.
func TestReadSARIFMemoryIsFlat(t *testing.T) {
	// Not parallel: it measures the process heap.
	if testing.Short() {
		t.Skip("writes and reads a 100k-result log")
	}
	small, _ := benchSARIFFile(t, 10000)
	large, size := benchSARIFFile(t, 100000)
	// Take the larger of two runs each to smooth out GC timing.
	peak := func(p string) uint64 { return max(sarifPeakHeap(t, p), sarifPeakHeap(t, p)) }
	ps, pl := peak(small), peak(large)
	t.Logf("peak heap above baseline: 10k results %.1f MiB, 100k results (%.0f MiB file) %.1f MiB",
		float64(ps)/(1<<20), float64(size)/(1<<20), float64(pl)/(1<<20))
	// Ten times the input may not cost more than twice the memory plus a
	// little slack for GC pacing, plus the fingerprint set that counts a
	// repeated finding once: 16 bytes a slot, at most half full, three
	// times that while it doubles and for GC pacing (bounded by
	// MaxDistinctFindings, whatever the input).
	table := uint64(16)
	for table/16 < 2*95000 { // 95 000 unsuppressed results
		table *= 2
	}
	if pl > 2*ps+8<<20+3*table {
		t.Errorf("peak heap grows with the input: %d bytes for 100k results vs %d for 10k", pl, ps)
	}
}

// timed is one run of a command under /usr/bin/time: wall seconds (timed
// here), CPU seconds and peak RSS in MB (from time).
type timed struct{ wall, cpu, rssMB float64 }

// timeRun runs args under /usr/bin/time -f and returns what it measured.
func timeRun(b *testing.B, args ...string) timed {
	b.Helper()
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%U %S %M"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	wall := time.Since(start).Seconds()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var user, sys, rss float64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%g %g %g", &user, &sys, &rss); err != nil {
		b.Fatalf("%v: time printed %q", args, stderr.String())
	}
	return timed{wall: wall, cpu: user + sys, rssMB: rss / 1024}
}

// BenchmarkCompareJQ runs the built `gcloop decide` on SARIF logs of
// 100 000 results — verbose (a scanner's, 70 MB) and compact (a linter's,
// 26 MB) — beside jq counting them, and `gcloop decide` on a log of
// one finding beside `gcloop version`, the same binary's start with no work
// (their difference is what the decision itself costs); each as a process,
// best of five. Use -benchtime=1x.
func BenchmarkCompareJQ(b *testing.B) {
	for _, tool := range []string{"/usr/bin/time", "jq", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	dir := b.TempDir()
	big, size := benchSARIFFile(b, 100000)
	compact := filepath.Join(dir, "compact.sarif")
	cf, err := os.Create(compact)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeCompactSARIF(cf, 100000); err != nil {
		b.Fatal(err)
	}
	if err := cf.Close(); err != nil {
		b.Fatal(err)
	}
	one := filepath.Join(dir, "one.sarif")
	if err := os.WriteFile(one, []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[{"level":"error","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}]}]}]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	gcloop := filepath.Join(dir, "gcloop")
	if out, err := exec.Command("go", "build", "-o", gcloop, "github.com/gcloop/gcloop/cmd/gcloop").CombinedOutput(); err != nil {
		b.Fatalf("go build gcloop: %v\n%s", err, out)
	}
	b.Logf("%s: %d MB", filepath.Base(big), size>>20)
	runs := []struct {
		label string
		args  []string
	}{
		{"jq-count-100k", []string{"jq", "[.runs[].results[]] | length", big}},
		{"decide-100k", []string{gcloop, "decide", "--format", "json", big}},
		{"jq-count-compact", []string{"jq", "[.runs[].results[]] | length", compact}},
		{"decide-compact", []string{gcloop, "decide", "--format", "json", compact}},
		{"decide-one", []string{gcloop, "decide", "--format", "json", one}},
		{"start-only", []string{gcloop, "version"}},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range runs {
			var best timed
			var walls []string
			for k := 0; k < 5; k++ {
				m := timeRun(b, r.args...)
				walls = append(walls, fmt.Sprintf("%.3f", m.wall))
				if k == 0 || m.wall < best.wall {
					best = m
				}
			}
			b.ReportMetric(best.wall, r.label+"-s")
			b.Logf("%-14s wall %7.3f s  cpu %6.2f s  rss %6.1f MB  %v", r.label, best.wall, best.cpu, best.rssMB, walls)
		}
	}
}

// BenchmarkDecoderTokenWalk100k only walks the tokens of the 100 000-result
// log with encoding/json's Decoder.Token, for comparison with
// BenchmarkReadSARIF100k: a lower bound for a reader built on Token.
func BenchmarkDecoderTokenWalk100k(b *testing.B) {
	path, size := benchSARIFFile(b, 100000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}

// compactSARIFFile writes a compact log of n results to a temporary file.
func compactSARIFFile(tb testing.TB, n int) (path string, size int64) {
	return sarifFile(tb, "compact", n, writeCompactSARIF)
}

// benchmarkReadSARIFMode reads the log at path with ReadSARIF (o nil) or
// with the options o.
func benchmarkReadSARIFMode(b *testing.B, path string, size int64, o *sarifOpts) {
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := benchCPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		var ev *decide.Evidence
		if o != nil {
			ev, err = readSARIF("bench.sarif", f, *o)
		} else {
			ev, err = ReadSARIF("bench.sarif", f)
		}
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(ev.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(benchCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkReadSARIFCompact reads a log of 100 000 compact results (the
// shape of BenchmarkCompareJQ's compact log) as ReadSARIF does, all on
// one goroutine (serial), and in parts on two workers whatever GOMAXPROCS
// is (split: under cachegrind, with GOMAXPROCS=1, the instructions of the
// split reading).
func BenchmarkReadSARIFCompact(b *testing.B) {
	path, size := compactSARIFFile(b, 100000)
	benchmarkReadSARIFModes(b, path, size)
}

// BenchmarkReadSARIFVerbose is BenchmarkReadSARIFCompact on a scanner's
// log of 100 000 results (writeBenchSARIF, 70 MB).
func BenchmarkReadSARIFVerbose(b *testing.B) {
	path, size := benchSARIFFile(b, 100000)
	benchmarkReadSARIFModes(b, path, size)
}

func benchmarkReadSARIFModes(b *testing.B, path string, size int64) {
	b.Run("default", func(b *testing.B) { benchmarkReadSARIFMode(b, path, size, nil) })
	b.Run("serial", func(b *testing.B) { benchmarkReadSARIFMode(b, path, size, &sarifOpts{batch: sarifBatch}) })
	b.Run("split", func(b *testing.B) {
		benchmarkReadSARIFMode(b, path, size, &sarifOpts{overlap: true, batch: sarifBatch, workers: 2, part: sarifPart})
	})
}

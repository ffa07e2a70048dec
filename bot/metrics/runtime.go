package metrics

import (
	"runtime"
	"runtime/debug"
	"time"
)

// goCollector exports Go's runtime metrics under their usual names, read
// with runtime.ReadMemStats at each scrape.
type goCollector struct{}

// memStat is one go_memstats_* metric.
type memStat struct {
	name, help string
	kind       kind
	value      func(s *runtime.MemStats) float64
}

// memStats are the go_memstats_* metrics, from runtime.MemStats' fields.
func memStats() []memStat {
	return []memStat{
		{"go_memstats_alloc_bytes", "Bytes of heap objects allocated and still in use.", gauge, func(s *runtime.MemStats) float64 { return float64(s.Alloc) }},
		{"go_memstats_alloc_bytes_total", "Bytes allocated for heap objects since the process started.", counter, func(s *runtime.MemStats) float64 { return float64(s.TotalAlloc) }},
		{"go_memstats_sys_bytes", "Bytes of memory obtained from the OS by the Go runtime.", gauge, func(s *runtime.MemStats) float64 { return float64(s.Sys) }},
		{"go_memstats_mallocs_total", "Heap objects allocated since the process started.", counter, func(s *runtime.MemStats) float64 { return float64(s.Mallocs) }},
		{"go_memstats_frees_total", "Heap objects freed since the process started.", counter, func(s *runtime.MemStats) float64 { return float64(s.Frees) }},
		{"go_memstats_heap_alloc_bytes", "Bytes of heap objects allocated and still in use (as go_memstats_alloc_bytes).", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapAlloc) }},
		{"go_memstats_heap_sys_bytes", "Bytes of heap memory obtained from the OS.", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapSys) }},
		{"go_memstats_heap_idle_bytes", "Bytes in idle (unused) heap spans.", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapIdle) }},
		{"go_memstats_heap_inuse_bytes", "Bytes in in-use heap spans.", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapInuse) }},
		{"go_memstats_heap_released_bytes", "Bytes of heap memory returned to the OS.", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapReleased) }},
		{"go_memstats_heap_objects", "Heap objects allocated and not yet freed.", gauge, func(s *runtime.MemStats) float64 { return float64(s.HeapObjects) }},
		{"go_memstats_stack_inuse_bytes", "Bytes in stack spans.", gauge, func(s *runtime.MemStats) float64 { return float64(s.StackInuse) }},
		{"go_memstats_stack_sys_bytes", "Bytes of stack memory obtained from the OS.", gauge, func(s *runtime.MemStats) float64 { return float64(s.StackSys) }},
		{"go_memstats_mspan_inuse_bytes", "Bytes of mspan structures in use.", gauge, func(s *runtime.MemStats) float64 { return float64(s.MSpanInuse) }},
		{"go_memstats_mspan_sys_bytes", "Bytes obtained from the OS for mspan structures.", gauge, func(s *runtime.MemStats) float64 { return float64(s.MSpanSys) }},
		{"go_memstats_mcache_inuse_bytes", "Bytes of mcache structures in use.", gauge, func(s *runtime.MemStats) float64 { return float64(s.MCacheInuse) }},
		{"go_memstats_mcache_sys_bytes", "Bytes obtained from the OS for mcache structures.", gauge, func(s *runtime.MemStats) float64 { return float64(s.MCacheSys) }},
		{"go_memstats_buck_hash_sys_bytes", "Bytes of memory in profiling bucket hash tables.", gauge, func(s *runtime.MemStats) float64 { return float64(s.BuckHashSys) }},
		{"go_memstats_gc_sys_bytes", "Bytes of memory in garbage collection metadata.", gauge, func(s *runtime.MemStats) float64 { return float64(s.GCSys) }},
		{"go_memstats_other_sys_bytes", "Bytes of memory in miscellaneous off-heap runtime allocations.", gauge, func(s *runtime.MemStats) float64 { return float64(s.OtherSys) }},
		{"go_memstats_next_gc_bytes", "Heap size at which the next garbage collection cycle is due.", gauge, func(s *runtime.MemStats) float64 { return float64(s.NextGC) }},
		{"go_memstats_last_gc_time_seconds", "When the last garbage collection finished, in seconds since the Unix epoch; 0 before the first.", gauge, func(s *runtime.MemStats) float64 { return float64(s.LastGC) / 1e9 }},
	}
}

// gcQuantiles are go_gc_duration_seconds' quantiles: the minimum, the
// quartiles and the maximum of the recent pauses.
var gcQuantiles = []float64{0, 0.25, 0.5, 0.75, 1}

func (goCollector) names() []string {
	names := []string{"go_gc_duration_seconds", "go_gc_gomemlimit_bytes", "go_goroutines", "go_info", "go_sched_gomaxprocs_threads", "go_threads"}
	for _, s := range memStats() {
		names = append(names, s.name)
	}
	return names
}

func (goCollector) collect(out []family) []family {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, s := range memStats() {
		out = append(out, family{name: s.name, help: s.help, kind: s.kind, samples: []sample{{value: s.value(&ms)}}})
	}
	threads, _ := runtime.ThreadCreateProfile(nil)
	return append(out,
		single("go_goroutines", "Goroutines that currently exist.", gauge, float64(runtime.NumGoroutine())),
		single("go_threads", "OS threads created.", gauge, float64(threads)),
		single("go_sched_gomaxprocs_threads", "GOMAXPROCS: OS threads that can execute Go code at once.", gauge, float64(runtime.GOMAXPROCS(0))),
		single("go_gc_gomemlimit_bytes", "The Go runtime's soft memory limit (GOMEMLIMIT).", gauge, float64(debug.SetMemoryLimit(-1))),
		family{name: "go_info", help: "The Go version the binary was built with.", kind: gauge,
			labels: []string{"version"}, samples: []sample{{values: []string{runtime.Version()}, value: 1}}},
		gcDurations(),
	)
}

// gcDurations is go_gc_duration_seconds: a summary of the recent
// stop-the-world pauses of the garbage collector.
func gcDurations() family {
	st := debug.GCStats{PauseQuantiles: make([]time.Duration, len(gcQuantiles))}
	debug.ReadGCStats(&st)
	at := make([]float64, len(gcQuantiles))
	for i, d := range st.PauseQuantiles {
		at[i] = d.Seconds()
	}
	return family{name: "go_gc_duration_seconds", help: "Pause durations of the garbage collector's recent cycles.", kind: summary,
		bounds: gcQuantiles, samples: []sample{{at: at, sum: st.PauseTotal.Seconds(), count: uint64(st.NumGC)}}}
}

// single is a family of one sample without labels.
func single(name, help string, k kind, v float64) family {
	return family{name: name, help: help, kind: k, samples: []sample{{value: v}}}
}

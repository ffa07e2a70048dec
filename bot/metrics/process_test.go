package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc writes files (path → content) under a temporary procfs and
// returns its root.
func fakeProc(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// stat is /proc/self/stat with a command name that holds ") (" and
// starttime (field 22) 12345 ticks.
const stat = "42 (a) (b c) S 1 42 42 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 12345 1000 200 18446744073709551615\n"

func TestProcessCollector(t *testing.T) {
	t.Parallel()
	page := float64(os.Getpagesize())
	fallback := time.Unix(1700000000, 0)
	tests := []struct {
		name    string
		files   map[string]string
		want    map[string]float64 // the /proc metrics and the start time
		missing []string
	}{
		{"a full procfs", map[string]string{
			"self/statm": "100 25 10 1 0 50 0\n",
			"self/stat":  stat,
			"stat":       "cpu  1 2 3\nbtime 1600000000\nprocesses 9\n",
			"self/fd/0":  "", "self/fd/1": "", "self/fd/2": "",
		}, map[string]float64{
			"process_resident_memory_bytes": 25 * page,
			"process_virtual_memory_bytes":  100 * page,
			"process_open_fds":              3,
			"process_start_time_seconds":    1600000000 + 123.45,
		}, nil},
		{"no procfs: its metrics are left out, the start is the fallback", nil,
			map[string]float64{"process_start_time_seconds": 1700000000},
			[]string{"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds"}},
		{"unreadable files: the same", map[string]string{
			"self/statm": "garbage\n",
			"self/stat":  "42 no parentheses\n",
			"stat":       "cpu 1 2 3\n",
		}, map[string]float64{"process_start_time_seconds": 1700000000},
			[]string{"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds"}},
		{"no btime: the start is the fallback", map[string]string{"self/stat": stat, "stat": "cpu 1\n"},
			map[string]float64{"process_start_time_seconds": 1700000000}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := map[string]float64{}
			for _, f := range newProcessCollector(fakeProc(t, tt.files), fallback).collect(nil) {
				got[f.name] = f.samples[0].value
			}
			for name, want := range tt.want {
				if v, ok := got[name]; !ok || v != want {
					t.Errorf("%s = %g (present %v), want %g", name, v, ok, want)
				}
			}
			for _, name := range tt.missing {
				if _, ok := got[name]; ok {
					t.Errorf("%s present", name)
				}
			}
		})
	}
}

func TestProcessCollectorSelf(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	got := map[string]float64{}
	for _, f := range newProcessCollector("/proc", time.Time{}).collect(nil) {
		got[f.name] = f.samples[0].value
	}
	now := float64(time.Now().Unix())
	tests := []struct {
		name     string
		min, max float64
	}{
		{"process_cpu_seconds_total", 0, 1e6},
		{"process_open_fds", 1, 1e7},
		{"process_max_fds", 1, 1e20},
		{"process_resident_memory_bytes", 1 << 20, 1 << 40},
		{"process_virtual_memory_bytes", 1 << 20, 1 << 50},
		{"process_start_time_seconds", now - 3600, now + 1},
	}
	for _, tt := range tests {
		if v, ok := got[tt.name]; !ok || v < tt.min || v > tt.max {
			t.Errorf("%s = %g (present %v), want within [%g, %g]", tt.name, v, ok, tt.min, tt.max)
		}
	}
}

// TestDocsListRuntimeMetrics: docs/bot.md names every go_ and process_
// metric exported.
func TestDocsListRuntimeMetrics(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "bot.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := append(goCollector{}.names(), newProcessCollector("/proc", time.Time{}).names()...)
	for _, name := range names {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/bot.md does not name %s", name)
		}
	}
}

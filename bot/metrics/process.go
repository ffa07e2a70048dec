package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// processCollector exports the process' metrics under their usual names.
// Those read from /proc are left out where it is absent or unreadable: a
// scrape never fails for them.
type processCollector struct {
	proc  string         // where procfs is mounted: /proc
	start func() float64 // process_start_time_seconds, worked out once
}

// newProcessCollector returns the collector of the process whose procfs
// is mounted at proc; fallback stands for its start where proc does not
// tell it.
func newProcessCollector(proc string, fallback time.Time) *processCollector {
	return &processCollector{proc: proc, start: sync.OnceValue(func() float64 {
		if t, err := procStart(proc); err == nil {
			return t
		}
		return float64(fallback.UnixNano()) / 1e9
	})}
}

func (*processCollector) names() []string {
	return []string{"process_cpu_seconds_total", "process_max_fds", "process_open_fds", "process_resident_memory_bytes",
		"process_start_time_seconds", "process_virtual_memory_bytes", "process_virtual_memory_max_bytes"}
}

func (p *processCollector) collect(out []family) []family {
	if s, ok := cpuSeconds(); ok {
		out = append(out, single("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", counter, s))
	}
	if n, ok := fdLimit(); ok {
		out = append(out, single("process_max_fds", "Most file descriptors the process may open (its soft limit).", gauge, n))
	}
	if n, ok := addressSpaceLimit(); ok {
		out = append(out, single("process_virtual_memory_max_bytes", "Most virtual memory the process may have, in bytes (its soft limit).", gauge, n))
	}
	if n, err := openFDs(p.proc); err == nil {
		out = append(out, single("process_open_fds", "Open file descriptors.", gauge, n))
	}
	if rss, vsize, err := memory(p.proc); err == nil {
		out = append(out,
			single("process_resident_memory_bytes", "Resident memory, in bytes.", gauge, rss),
			single("process_virtual_memory_bytes", "Virtual memory, in bytes.", gauge, vsize))
	}
	return append(out, single("process_start_time_seconds", "When the process started, in seconds since the Unix epoch.", gauge, p.start()))
}

// openFDs counts the entries of self/fd in proc (the one that reads them
// among them).
func openFDs(proc string) (float64, error) {
	d, err := os.Open(filepath.Join(proc, "self", "fd"))
	if err != nil {
		return 0, fmt.Errorf("count open files: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("count open files: %w", err)
	}
	return float64(len(names)), nil
}

// memory reads the resident and virtual sizes from self/statm in proc,
// which counts pages.
func memory(proc string) (rss, vsize float64, err error) {
	b, err := os.ReadFile(filepath.Join(proc, "self", "statm"))
	if err != nil {
		return 0, 0, fmt.Errorf("read memory sizes: %w", err)
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("parse statm %q: fewer than 2 fields", b)
	}
	size, err := strconv.ParseUint(string(f[0]), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("parse statm size: %w", err)
	}
	resident, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("parse statm resident: %w", err)
	}
	page := float64(os.Getpagesize())
	return float64(resident) * page, float64(size) * page, nil
}

// userHZ is the unit of /proc's clock ticks; Linux fixes it at 100 for
// userspace.
const userHZ = 100

// procStart works out when the process started: its start in clock ticks
// after boot (self/stat in proc, field 22) plus the boot time (stat's
// btime).
func procStart(proc string) (float64, error) {
	stat, err := os.ReadFile(filepath.Join(proc, "self", "stat"))
	if err != nil {
		return 0, fmt.Errorf("read process start: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: fields are counted after its last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("parse stat of the process: no command name")
	}
	f := bytes.Fields(stat[i+1:])
	const startField = 22 - 3 // field 3 (state) comes first after the name
	if len(f) <= startField {
		return 0, fmt.Errorf("parse stat of the process: %d fields after the command name", len(f))
	}
	ticks, err := strconv.ParseUint(string(f[startField]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse starttime: %w", err)
	}
	boot, err := bootTime(proc)
	if err != nil {
		return 0, err
	}
	return boot + float64(ticks)/userHZ, nil
}

// bootTime reads btime, the boot time in seconds since the Unix epoch,
// from stat in proc.
func bootTime(proc string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return 0, fmt.Errorf("read boot time: %w", err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			t, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse btime: %w", err)
			}
			return float64(t), nil
		}
	}
	return 0, errors.New("parse stat: no btime")
}

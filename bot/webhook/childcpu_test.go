package webhook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// childCPU is the CPU time of this process's child processes and theirs
// (a PostgreSQL server the test started, its backends): the user and
// system time of those alive, and of those they have reaped. Zero where
// /proc cannot be read.
func childCPU() time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int][]int{}
	ticks := map[int]int64{}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime(15) cutime(16) cstime(17)
		end := bytes.LastIndexByte(b, ')')
		if end < 0 {
			continue
		}
		pid, _ := strconv.Atoi(string(bytes.TrimSpace(b[:bytes.IndexByte(b, ' ')])))
		f := bytes.Fields(b[end+1:])
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		var sum int64
		for _, i := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(string(f[i]), 10, 64)
			sum += v
		}
		parent[ppid] = append(parent[ppid], pid)
		ticks[pid] = sum
	}
	var total int64
	var walk func(pid int)
	walk = func(pid int) {
		for _, c := range parent[pid] {
			total += ticks[c]
			walk(c)
		}
	}
	walk(os.Getpid())
	// USER_HZ is 100 on every Linux architecture Go supports.
	return time.Duration(total) * (time.Second / 100)
}

//go:build unix

package metrics

import "syscall"

// cpuSeconds is the user and system CPU time the process has spent.
func cpuSeconds() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return seconds(ru.Utime) + seconds(ru.Stime), true
}

func seconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// fdLimit is the soft limit on open files.
func fdLimit() (float64, bool) { return softLimit(syscall.RLIMIT_NOFILE) }

// addressSpaceLimit is the soft limit on virtual memory.
func addressSpaceLimit() (float64, bool) { return softLimit(syscall.RLIMIT_AS) }

func softLimit(resource int) (float64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(resource, &l); err != nil {
		return 0, false
	}
	return float64(l.Cur), true
}

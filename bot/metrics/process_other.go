//go:build !unix

package metrics

// cpuSeconds, fdLimit and addressSpaceLimit are unknown here: their
// metrics are left out.
func cpuSeconds() (float64, bool)        { return 0, false }
func fdLimit() (float64, bool)           { return 0, false }
func addressSpaceLimit() (float64, bool) { return 0, false }

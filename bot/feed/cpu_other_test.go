//go:build !unix

package feed

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }

package artifact

import (
	"fmt"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	unit  string
	shift uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}}

// Size renders a byte count as a budget is written: 64MiB, 1GiB, 1500B.
func Size(n int64) string {
	for _, u := range sizeUnits {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.unit)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseSize reads a size as the settings write it: a whole number of bytes,
// optionally followed by B, KiB, MiB or GiB (64MiB, 1GiB, 65536).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.unit); ok {
			t, shift = rest, u.shift
			break
		}
	}
	if shift == 0 {
		t = strings.TrimSuffix(t, "B")
	}
	t = strings.TrimSpace(t)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || t == "" || t[0] == '+' || n > (1<<62)>>shift {
		return 0, fmt.Errorf("size %q: want a whole number of bytes, optionally with B, KiB, MiB or GiB (64MiB)", s)
	}
	return n << shift, nil
}

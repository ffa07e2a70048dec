//go:build !amd64 || purego

package coverage

// profBlockRun is profBlockRunGo where there is no assembly for it.
func profBlockRun(buf, pre []byte, dst []profBlock, line int, last *[2]uint64) (used, n int, unsorted bool) {
	return profBlockRunGo(buf, pre, dst, line, last)
}

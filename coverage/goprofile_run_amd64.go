//go:build amd64 && !purego

package coverage

// profBlockRun is profBlockRunGo in assembly (goprofile_run_amd64.s), for
// amd64's baseline (SSE2): the same lines accepted, the same blocks and
// results, but the prefix compared and the digits classified 16 bytes at
// a time, the numbers read one after the other from the mask, and the
// loop's state kept in registers, which the compiler cannot do for the Go
// loop (it has more live values than registers, and spills them every
// line). FuzzProfFastPaths and TestProfFastPathsAgree compare both with
// the careful path.
//
//go:noescape
func profBlockRun(buf, pre []byte, dst []profBlock, line int, last *[2]uint64) (used, n int, unsorted bool)

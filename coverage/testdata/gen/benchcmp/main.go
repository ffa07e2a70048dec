// Command benchcmp reads one coverage file with package coverage and prints
// its totals, so that BenchmarkCompareTools can measure our readers' wall
// time and peak RSS the same way as it measures go tool cover, lcov and
// cat: as separate processes under /usr/bin/time -v.
//
//	go run ./coverage/testdata/gen/benchcmp lcov|goprofile FILE
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/decide"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: benchcmp lcov|goprofile FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var read func(string, io.Reader) (*decide.CoverageFacts, error)
	switch os.Args[1] {
	case "lcov":
		read = coverage.ReadLCOV
	case "goprofile":
		read = coverage.ReadGoProfile
	default:
		fmt.Fprintln(os.Stderr, "unknown format", os.Args[1])
		os.Exit(2)
	}
	facts, err := read(os.Args[2], f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %d of %d lines, %.1f%%\n", len(facts.Files), facts.Covered, facts.Total,
		100*float64(facts.Covered)/float64(facts.Total))
}

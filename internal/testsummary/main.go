// Command testsummary reads `go test -json` on stdin and prints what
// `go test` prints without -v — a line per package, the whole output of
// every failing test and package, build errors — then the tests that were
// skipped, grouped by package and the reason each gave, and a count. It
// exits 1 when a test, a package or a build failed, so that
//
//	go test -race -count=1 -json ./... | go run ./internal/testsummary
//
// fails as go test does even without pipefail. CI (.ci/run) and the README
// run that command: a test that skips (no PostgreSQL, no Chromium, no
// Docker) is then listed with its reason instead of passing unseen.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"
)

// maxLine bounds one line of the stream; test2json splits long output.
const maxLine = 16 << 20

func main() {
	os.Exit(run(os.Stdin, os.Stdout, time.Now))
}

// run summarizes the stream in r onto w and returns the exit code.
func run(r io.Reader, w io.Writer, now func() time.Time) int {
	start := now()
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	s := NewSummary(bw)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		s.Line(sc.Bytes())
	}
	code := s.Finish(now().Sub(start))
	if err := sc.Err(); err != nil {
		fmt.Fprintf(bw, "testsummary: read the go test -json stream: %v\n", err)
		code = 1
	}
	return code
}

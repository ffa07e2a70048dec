package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// Limits of ReadGoTestJSON.
const (
	// GoTestJSONMaxLine caps one line (one event) of the stream.
	GoTestJSONMaxLine = 1 << 20
	// goTestJSONMaxOutput caps the output kept per test for its message.
	goTestJSONMaxOutput = 4 << 10
)

// goTestEvent is one line of `go test -json` (cmd/test2json).
type goTestEvent struct {
	Action  string `json:"Action"`
	Package string `json:"Package"`
	Test    string `json:"Test"`
	Output  string `json:"Output"`
}

// IsGoTestJSON reports whether head, the first bytes of a file, look like
// `go test -json` output: its first JSON line is an object with an
// "Action" key among test2json's actions.
func IsGoTestJSON(head []byte) bool {
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev goTestEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			// A cut first line: judge by its keys.
			return bytes.Contains(line, []byte(`"Action":`)) && bytes.Contains(line, []byte(`"Package":`))
		}
		return goTestActions[ev.Action]
	}
	return false
}

// goTestActions are test2json's actions.
var goTestActions = map[string]bool{
	"start": true, "run": true, "pause": true, "cont": true, "pass": true, "bench": true,
	"fail": true, "output": true, "skip": true, "build-output": true, "build-fail": true,
}

// ReadGoTestJSON reads the output of `go test -json` (one test2json event
// per line) into test facts:
//
//   - Each test — an event with a Test field, subtests ("TestA/sub")
//     included — becomes one case named "<Package>.<Test>", the name
//     go-junit-report and gotestsum give it in JUnit, so the two formats
//     compare. Its status is its last pass, fail or skip event; a test
//     that ran but never ended (the binary crashed or timed out) failed.
//   - A failed test's message is its output without the runner's "=== RUN"
//     and "--- FAIL" lines, capped at 4 KiB; its
//     category comes from Categorize.
//   - Lines that do not start with "{" are skipped: build errors and the
//     like, which `go test -json 2>&1` interleaves. A line that starts
//     with "{" and is not one JSON object is an error naming the line, as
//     is a line over GoTestJSONMaxLine bytes, more than JUnitMaxCases
//     tests, or a stream with no event at all.
func ReadGoTestJSON(name string, r io.Reader) (*decide.TestFacts, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	type state struct {
		idx    int
		status decide.TestStatus
		ended  bool
		out    strings.Builder
	}
	tests := map[[2]string]*state{}
	var order [][2]string
	events := 0
	for line := 1; ; line++ {
		raw, err := readLine(br, GoTestJSONMaxLine)
		if errors.Is(err, errLineTooLong) {
			return nil, parse.LineError(name, line, "line longer than %d bytes", GoTestJSONMaxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) > 0 && trimmed[0] == '{' {
			var ev goTestEvent
			if jerr := json.Unmarshal(trimmed, &ev); jerr != nil {
				return nil, parse.LineError(name, line, "want one go test -json event (a JSON object): %v", jerr)
			}
			if ev.Action == "" {
				return nil, parse.LineError(name, line, "want a go test -json event: no Action")
			}
			events++
			if ev.Test != "" {
				key := [2]string{ev.Package, ev.Test}
				st := tests[key]
				if st == nil {
					if len(order) >= JUnitMaxCases {
						return nil, parse.LineError(name, line, "more than %d tests", JUnitMaxCases)
					}
					st = &state{idx: len(order)}
					tests[key] = st
					order = append(order, key)
				}
				switch ev.Action {
				case "pass":
					st.status, st.ended = decide.Passed, true
				case "fail":
					st.status, st.ended = decide.Failed, true
				case "skip":
					st.status, st.ended = decide.Skipped, true
				case "output":
					if goTestFrame(ev.Output) {
						break
					}
					if room := goTestJSONMaxOutput - st.out.Len(); room > 0 {
						st.out.WriteString(clipBytes(ev.Output, room))
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if events == 0 {
		return nil, parse.LineError(name, 1, "no go test -json event found")
	}
	facts := &decide.TestFacts{Cases: make([]decide.TestCase, 0, len(order))}
	for _, key := range order {
		st := tests[key]
		c := decide.TestCase{Name: goTestName(key[0], key[1]), Status: st.status}
		if !st.ended {
			c.Status = decide.Failed
		}
		switch c.Status {
		case decide.Passed:
			facts.Passed++
		case decide.Failed:
			facts.Failed++
			c.Message = strings.TrimSpace(st.out.String())
			if !st.ended {
				c.Message = strings.TrimSpace("the test never ended (crash or timeout)\n" + c.Message)
			}
			c.Category = Categorize(c.Message)
		case decide.Skipped:
			facts.Skipped++
		}
		facts.Cases = append(facts.Cases, c)
	}
	return facts, nil
}

// goTestFrame reports whether an output line is the test runner's own
// framing ("=== RUN", "--- FAIL: ..."), not what the test printed.
func goTestFrame(s string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(strings.TrimLeft(s, " "), p) {
			return true
		}
	}
	return false
}

// goTestName is a test's case name: "<package>.<test>", clipped to 1 KiB.
func goTestName(pkg, test string) string {
	n := test
	if pkg != "" {
		n = pkg + "." + test
	}
	return clipBytes(n, 1<<10)
}

// clipBytes cuts s to at most n bytes on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// errLineTooLong is a line over the reader's limit.
var errLineTooLong = errors.New("line too long")

// readLine reads one line without its newline, at most limit bytes; the
// last line comes with io.EOF.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > limit+1 {
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stream makes a go test -json stream from events.
func stream(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func out(pkg, test, text string) event {
	return event{Action: "output", Package: pkg, Test: test, Output: text}
}
func end(pkg, test, action string) event {
	return event{Action: action, Package: pkg, Test: test}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	const p, q = "example.com/m/p", "example.com/m/q"
	tests := []struct {
		name  string
		input string
		want  string
		code  int
	}{
		{"passing packages print their ok line only", stream(t,
			out(p, "TestA", "=== RUN   TestA\n"), out(p, "TestA", "    a_test.go:3: noise\n"), out(p, "TestA", "--- PASS: TestA (0.00s)\n"), end(p, "TestA", "pass"),
			out(p, "", "PASS\n"), out(p, "", "ok  \texample.com/m/p\t0.012s\n"), end(p, "", "pass"),
			out(q, "", "?   \texample.com/m/q\t[no test files]\n"), end(q, "", "skip"),
		), "ok  \texample.com/m/p\t0.012s\n?   \texample.com/m/q\t[no test files]\nskipped: none\n" +
			"tests and subtests: 1 passed, 0 failed, 0 skipped in 2 packages (0s)\n", 0},
		{"a failing test prints its whole output and fails", stream(t,
			out(p, "TestA", "=== RUN   TestA\n"), out(p, "TestA", "    a_test.go:9: got 2, want 3\n"), out(p, "TestA", "--- FAIL: TestA (0.00s)\n"), end(p, "TestA", "fail"),
			out(p, "", "FAIL\n"), out(p, "", "FAIL\texample.com/m/p\t0.010s\n"), end(p, "", "fail"),
		), "=== RUN   TestA\n    a_test.go:9: got 2, want 3\n--- FAIL: TestA (0.00s)\nFAIL\nFAIL\texample.com/m/p\t0.010s\nskipped: none\n" +
			"tests and subtests: 0 passed, 1 failed, 0 skipped in 1 package (0s)\n", 1},
		{"skips are grouped by package and reason", stream(t,
			out(p, "TestDB1", "=== RUN   TestDB1\n"), out(p, "TestDB1", "    db_test.go:5: no initdb on PATH\n"), out(p, "TestDB1", "--- SKIP: TestDB1 (0.00s)\n"), end(p, "TestDB1", "skip"),
			out(p, "TestDB2", "    db_test.go:5: no initdb on PATH\n"), end(p, "TestDB2", "skip"),
			out(p, "TestDB3", "    db_test.go:5: no initdb on PATH\n"), end(p, "TestDB3", "skip"),
			out(p, "TestDB4", "    db_test.go:5: no initdb on PATH\n"), end(p, "TestDB4", "skip"),
			end(q, "TestQuiet", "skip"),
			out(p, "", "ok  \texample.com/m/p\t0.1s\n"), end(p, "", "pass"),
			out(q, "", "ok  \texample.com/m/q\t0.1s\n"), end(q, "", "pass"),
		), "ok  \texample.com/m/p\t0.1s\nok  \texample.com/m/q\t0.1s\n" +
			"skipped: 5 tests in 2 packages, and why:\n" +
			"  example.com/m/p: db_test.go:5: no initdb on PATH (TestDB1, TestDB2, TestDB3 and 1 more)\n" +
			"  example.com/m/q: no reason given (TestQuiet)\n" +
			"tests and subtests: 0 passed, 0 failed, 5 skipped in 2 packages (0s)\n", 0},
		{"a build failure prints the compiler's lines and fails", stream(t,
			event{Action: "build-output", ImportPath: p + " [" + p + ".test]", Output: "p/a.go:3:1: syntax error\n"},
			event{Action: "build-fail", ImportPath: p + " [" + p + ".test]"},
			out(p, "", "FAIL\texample.com/m/p [build failed]\n"), end(p, "", "fail"),
		), "p/a.go:3:1: syntax error\nFAIL\texample.com/m/p [build failed]\nskipped: none\n" +
			"tests and subtests: 0 passed, 0 failed, 0 skipped in 1 package (0s)\n", 1},
		{"a test cut off by a crash still shows its output", stream(t,
			out(p, "TestHang", "=== RUN   TestHang\n"), out(p, "TestHang", "panic: test timed out after 10m0s\n"),
		), "=== RUN   TestHang\npanic: test timed out after 10m0s\n" +
			"testsummary: 1 test or package never reported a result (the stream was cut off)\nskipped: none\n" +
			"tests and subtests: 0 passed, 0 failed, 0 skipped in 0 packages (0s)\n", 1},
		{"lines that are not events pass through", "go: downloading example.com/x v1.0.0\n" + stream(t,
			out(p, "", "ok  \texample.com/m/p\t0.1s\n"), end(p, "", "pass")),
			"go: downloading example.com/x v1.0.0\nok  \texample.com/m/p\t0.1s\nskipped: none\n" +
				"tests and subtests: 0 passed, 0 failed, 0 skipped in 1 package (0s)\n", 0},
		{"nothing read is a failure", "", "skipped: none\ntests and subtests: 0 passed, 0 failed, 0 skipped in 0 packages (0s)\n" +
			"no test events read: run go test -json and pipe its output here\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w bytes.Buffer
			now := time.Unix(0, 0)
			code := run(strings.NewReader(tt.input), &w, func() time.Time { return now })
			if d := cmp.Diff(tt.want, w.String()); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
		})
	}
}

func TestSkipReasonIsBounded(t *testing.T) {
	t.Parallel()
	r := skipReason("=== RUN   TestX\n    x_test.go:1: " + strings.Repeat("é", 400) + "\n--- SKIP: TestX (0.00s)\n")
	if !strings.HasPrefix(r, "x_test.go:1: éé") || len(r) > maxReason+len("…") || !strings.HasSuffix(r, "…") {
		t.Errorf("skipReason = %q (%d bytes)", r, len(r))
	}
}

func TestKeptOutputIsBounded(t *testing.T) {
	t.Parallel()
	var o output
	chunk := strings.Repeat("x", 64<<10)
	for range 40 {
		o.add(chunk)
	}
	if o.buf.Len() != maxKept || !strings.HasSuffix(o.String(), "[output past 1 MiB cut]\n") {
		t.Errorf("kept %d bytes, cut %v; want %d and the cut said", o.buf.Len(), o.cut, maxKept)
	}
}

// FuzzSummary: any stream is summarized without a panic, ends with the
// count line, and an empty one exits 1.
func FuzzSummary(f *testing.F) {
	f.Add(`{"Action":"output","Package":"p","Test":"T","Output":"x\n"}` + "\n" + `{"Action":"skip","Package":"p","Test":"T"}` + "\n")
	f.Add(`{"Action":"build-fail","ImportPath":"p"}` + "\nnot json\n{\n")
	f.Add(`{"Action":"fail","Package":"p"}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, input string) {
		var w bytes.Buffer
		code := run(strings.NewReader(input), &w, time.Now)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(w.String(), "tests and subtests: ") {
			t.Fatalf("no count line in %q", w.String())
		}
		if !strings.Contains(input, "{") && code != 1 {
			t.Fatalf("exit %d for a stream without an event; want 1", code)
		}
	})
}

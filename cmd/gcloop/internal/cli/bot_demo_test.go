//go:build !nobot

package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an output written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBotDemoServesTheActionToo: `gcloop bot --demo` prints the dashboard's
// address and a `gcloop run` line; that line, run as printed, makes a full
// (not dry) round of the action against the demo's fake GitHub; Ctrl-C
// (the context's end, mid-day) stops the demo with exit 0, and the fake
// saw no request GitHub would refuse (the demo logs those as errors).
func TestBotDemoServesTheActionToo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errs lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"bot", "--demo", "--listen", "127.0.0.1:0"}, nil, &out, &errs, func(string) string { return "" })
	}()
	const prefix = "The action on the same fake, while the demo runs (a review round on acme/shop#3, printed, not on the dashboard): "
	var line string
	for deadline := time.Now().Add(30 * time.Second); line == ""; time.Sleep(20 * time.Millisecond) {
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, prefix) {
				line = strings.TrimPrefix(l, prefix)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line within 30 s:\n%s\n%s", prefix, out.String(), errs.String())
		}
	}
	if !strings.Contains(out.String(), "gcloop bot --demo: open http://127.0.0.1:") {
		t.Errorf("no dashboard address in the output:\n%s", out.String())
	}

	fields := strings.Fields(line)
	if len(fields) < 3 || strings.Join(fields[len(fields)-2:], " ") != "gcloop run" {
		t.Fatalf("the line does not end in `gcloop run`: %s", line)
	}
	vars := map[string]string{"HOME": t.TempDir(), "RUNNER_TEMP": t.TempDir()}
	for _, f := range fields[:len(fields)-2] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || strings.ContainsAny(v, `'"`) {
			t.Fatalf("%q in the line is not a plain NAME=value", f)
		}
		vars[k] = v
	}
	var runOut, runErr bytes.Buffer
	if c := Main(context.Background(), []string{"run"}, nil, &runOut, &runErr, func(k string) string { return vars[k] }); c != 0 {
		t.Fatalf("gcloop run as printed: exit %d\n%s\n%s", c, runOut.String(), runErr.String())
	}
	all := runOut.String() + runErr.String()
	for _, want := range []string{"decision: FIX — round 1 of 2 (review)", "issues: opened #", "report comment created: https://github.com/acme/shop/pull/3#issuecomment-"} {
		if !strings.Contains(all, want) {
			t.Errorf("gcloop run did not say %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "dry run true") {
		t.Errorf("gcloop run was a dry run:\n%s", all)
	}

	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("gcloop bot --demo after Ctrl-C: exit %d\n%s", c, errs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gcloop bot --demo did not stop within 30 s of Ctrl-C")
	}
	if strings.Contains(errs.String(), `"level":"ERROR"`) {
		t.Errorf("errors in the demo's log:\n%s", errs.String())
	}
}

package evidence

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

func lnF64(v float64) *float64 { return &v }

// lnOpen opens a fixture under testdata.
func lnOpen(t *testing.T, name string) io.Reader {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// lnHead returns the first 8 KiB of a fixture, as the dispatcher sniffs.
func lnHead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 8<<10 {
		b = b[:8<<10]
	}
	return b
}

// lnCheckErr fails unless err is a *parse.Error whose text is want.
func lnCheckErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is %T, want *parse.Error", err, err)
	}
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err.Error(), want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q spans lines", err.Error())
	}
}

// lnFuzzCheck is the property every fuzz target checks.
func lnFuzzCheck(t *testing.T, ev *decide.Evidence, err error) {
	if err != nil {
		var pe *parse.Error
		if !errors.As(err, &pe) {
			t.Fatalf("error %v is %T, want *parse.Error", err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q spans lines", err.Error())
		}
		return
	}
	if ev == nil {
		t.Fatal("nil evidence without error")
	}
	for _, f := range ev.Findings {
		if f.Severity < decide.Critical || f.Severity > decide.Low {
			t.Fatalf("finding with severity %d", f.Severity)
		}
	}
}

func TestLineScannerTrimsTheFirstBOMAndSkipsOverlongLines(t *testing.T) {
	t.Parallel()
	in := "\ufeffshort\n" + strings.Repeat("x", lnMaxLine+1) + "\n\ufefflast"
	sc := newLnScanner("a.ndjson", strings.NewReader(in))
	type line struct {
		N       int
		Text    string
		TooLong bool
	}
	var got []line
	for {
		b, ok := sc.next()
		if ok {
			got = append(got, line{sc.Line(), string(b), false})
			continue
		}
		if sc.SkipLong() {
			got = append(got, line{sc.Line(), "", true})
			continue
		}
		if err := sc.fail(); err != nil {
			t.Fatal(err)
		}
		break
	}
	want := []line{{1, "short", false}, {2, "", true}, {3, "\ufefflast", false}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

func TestLineScannerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   io.Reader
		want string
	}{
		{"a line over the cap", strings.NewReader("a\n" + strings.Repeat("x", lnMaxLine+1)), "r.md:2: line longer than 1048576 bytes"},
		{"a failing reader", io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(errors.New("boom"))), "r.md:2: read error: boom"},
		{"a file over the cap", io.LimitReader(lnRepeat('\n'), lnMaxFile+1), "r.md: byte 67108864: file exceeds the 64 MiB limit for evidence files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lnCheckErr(t, lnEachLine("r.md", tt.in, func(int, string) error { return nil }), tt.want)
		})
	}
}

// lnRepeat is an endless stream of one byte.
type lnRepeat byte

func (r lnRepeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestFileOverTheCapIsAnError(t *testing.T) {
	t.Parallel()
	_, err := ReadDiscoveries("big.ndjson", io.LimitReader(lnRepeat('x'), lnMaxFile+10))
	lnCheckErr(t, err, "big.ndjson: byte 67108864: file exceeds the 64 MiB limit for evidence files")
	_, err = ReadReviewJSON("big.json", io.MultiReader(strings.NewReader(`{"x":[`), lnRepeat(' ')))
	lnCheckErr(t, err, "big.json: byte 67108864: file exceeds the 64 MiB limit for evidence files")
}

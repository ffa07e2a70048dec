package lines

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// scanned is one step of a scan: a line, or where and why it stopped.
type scanned struct {
	Line    int
	Text    string
	TooLong bool
}

// scanAll reads every line of s, skipping over-long lines when skip is set.
func scanAll(s *Scanner, skip bool) ([]scanned, error) {
	var got []scanned
	for {
		b, ok := s.Next()
		if ok {
			got = append(got, scanned{s.Line(), string(b), false})
			continue
		}
		if skip && s.SkipLong() {
			got = append(got, scanned{s.Line(), "", true})
			continue
		}
		return got, s.Err()
	}
}

func TestScannerSplitsLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 11)
	tests := []struct {
		name    string
		in      string
		want    []scanned
		wantErr string
	}{
		{"an empty input has no line", "", nil, ""},
		{"one line without a newline", "abc", []scanned{{1, "abc", false}}, ""},
		{"a final newline ends the last line", "a\nb\n", []scanned{{1, "a", false}, {2, "b", false}}, ""},
		{"blank lines are lines", "\n\n", []scanned{{1, "", false}, {2, "", false}}, ""},
		{"CRLF and a lone final CR are cut", "a\r\nb\r", []scanned{{1, "a", false}, {2, "b", false}}, ""},
		{"a CR inside a line stays", "a\rb\n", []scanned{{1, "a\rb", false}}, ""},
		{"a line of the limit is read", strings.Repeat("y", 10) + "\r\n", []scanned{{1, strings.Repeat("y", 10), false}}, ""},
		{"a longer line stops the scan", "ok\n" + long + "\nnext\n", []scanned{{1, "ok", false}}, "line 2: line longer than 10 bytes"},
		{"a longer last line stops the scan", "ok\n" + long, []scanned{{1, "ok", false}}, "line 2: line longer than 10 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := scanAll(NewScanner(r, 10), false)
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("lines (-want +got):\n%s", d)
				}
				if msg := errText(err); msg != tt.wantErr {
					t.Errorf("error %q, want %q", msg, tt.wantErr)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestScannerSkipsOverlongLinesWithoutBufferingThem(t *testing.T) {
	t.Parallel()
	in := "short\n" + strings.Repeat("x", 1<<20) + "\nlast\n" + strings.Repeat("z", 300)
	s := NewScanner(iotest.HalfReader(strings.NewReader(in)), 100)
	got, err := scanAll(s, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []scanned{{1, "short", false}, {2, "", true}, {3, "last", false}, {4, "", true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if len(s.buf) > 100+4096 {
		t.Errorf("buffer grew to %d bytes for lines of at most 100", len(s.buf))
	}
}

func TestScannerGrowsItsBufferForALongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("L", 200<<10)
	s := NewScanner(strings.NewReader("a\n"+long+"\nb"), 1<<20)
	got, err := scanAll(s, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Text != long || got[2] != (scanned{3, "b", false}) {
		t.Errorf("got %d lines, the second %d bytes", len(got), len(got[1].Text))
	}
}

func TestScannerReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom))
	s := NewScanner(r, 100)
	got, err := scanAll(s, false)
	if d := cmp.Diff([]scanned{{1, "a", false}}, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	var le *Error
	if !errors.As(err, &le) || le.Line != 2 || le.TooLong || !errors.Is(err, boom) {
		t.Errorf("error %#v, want line 2 wrapping boom", err)
	}
	// A failure while skipping a long line names that line.
	r = io.MultiReader(strings.NewReader("a\n"+strings.Repeat("x", 300)), iotest.ErrReader(boom))
	s = NewScanner(r, 100)
	_, err = scanAll(s, true)
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, boom) {
		t.Errorf("error %#v, want line 2 wrapping boom", err)
	}
}

func TestWindowAndConsume(t *testing.T) {
	t.Parallel()
	s := NewBytesScanner([]byte("a\nbb\nccc\n"), 40, 10)
	w := s.Window()
	if string(w) != "a\nbb\nccc\n" {
		t.Fatalf("window %q", w)
	}
	s.Consume(5, 2)
	b, ok := s.Next()
	if !ok || string(b) != "ccc" || s.Line() != 43 {
		t.Errorf("Next = %q, %v at line %d; want \"ccc\" at line 43", b, ok, s.Line())
	}
	s.SetLine(7)
	if _, ok := s.Next(); ok || s.Line() != 7 || s.Err() != nil {
		t.Errorf("after the end: ok %v, line %d, err %v", ok, s.Line(), s.Err())
	}
}

// FuzzScanner checks the scanner against bytes.Split for any input, limit
// and read size.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nccc"), uint8(3), uint8(1))
	f.Add([]byte("xxxxxxxx\nyy\n"), uint8(2), uint8(5))
	f.Fuzz(func(t *testing.T, in []byte, max, chunk uint8) {
		lim := int(max)
		var want []scanned
		var wantErr string
		parts := bytes.Split(in, []byte("\n"))
		if len(parts[len(parts)-1]) == 0 {
			parts = parts[:len(parts)-1]
		}
		for i, p := range parts {
			p = bytes.TrimSuffix(p, []byte("\r"))
			if len(p) > lim {
				wantErr = (&Error{Line: i + 1, TooLong: true, Max: lim}).Error()
				break
			}
			want = append(want, scanned{i + 1, string(p), false})
		}
		var r io.Reader = bytes.NewReader(in)
		if chunk > 0 {
			r = &chunkReader{r: r, n: int(chunk)}
		}
		got, err := scanAll(NewScanner(r, lim), false)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("lines (-want +got):\n%s", d)
		}
		if errText(err) != wantErr {
			t.Fatalf("error %q, want %q", errText(err), wantErr)
		}
	})
}

// chunkReader returns at most n bytes a read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

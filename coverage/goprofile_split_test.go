package coverage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readGoProfileBoth reads in with the line-by-line reader and in parts of
// chunk bytes over workers goroutines, and fails the test when the facts
// or the errors differ.
func readGoProfileBoth(t *testing.T, in []byte, chunk, workers int, r func([]byte) io.Reader) {
	t.Helper()
	if r == nil {
		r = func(b []byte) io.Reader { return bytes.NewReader(b) }
	}
	want, wantErr := readGoProfile("c.out", r(in), profSplit{workers: 1})
	got, gotErr := readGoProfile("c.out", r(in), profSplit{workers: workers, chunk: chunk, maxChunk: 4 * chunk})
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Fatalf("chunk %d, %d workers: error\n%v\nwant (line by line)\n%v", chunk, workers, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("chunk %d, %d workers: facts (-line by line +in parts):\n%s", chunk, workers, diff)
	}
}

func TestReadGoProfileInPartsEqualsLineByLine(t *testing.T) {
	t.Parallel()
	files := func(n, blocks int, hit func(f, b int) bool) string {
		var sb strings.Builder
		sb.WriteString("mode: count\n")
		for f := range n {
			for b := range blocks {
				c := 0
				if hit(f, b) {
					c = f + b + 1
				}
				fmt.Fprintf(&sb, "example.com/m/p%d/f%d.go:%d.2,%d.9 %d %d\n", f%3, f, b+1, b+1, 1+b%3, c)
			}
		}
		return sb.String()
	}
	many := files(40, 7, func(f, b int) bool { return (f+b)%3 != 0 })
	tests := []struct {
		name string
		in   string
	}{
		{"many files", many},
		{"many files, all covered or none", files(30, 5, func(f, _ int) bool { return f%2 == 0 })},
		{"a merged profile whose files come back", many + many[len("mode: count\n"):] + strings.ReplaceAll(many, " 0\n", " 4\n")},
		{"files coming back unsorted, with duplicates", "mode: set\n" + strings.Repeat("a.go:3.1,4.2 2 0\na.go:1.1,2.2 3 1\nb.go:1.1,1.9 1 1\nc.go:1.1,1.9 1 0\na.go:1.1,2.2 3 0\na.go:3.1,4.2 2 1\n", 9)},
		{"mode lines, blank lines and CRLF between files", strings.Repeat("mode: set\r\n\r\na.go:1.1,2.2 3 1\r\nb.go:1.1,2.2 3 0\r\n\r\nc.go:1.1,2.2 3 0\r\n", 12)},
		{"no trailing newline", many[:len(many)-1]},
		{"a bad line late", many + "example.com/x.go:1.1,2.2 1\n" + many},
		{"a bad line right after a file change", strings.Replace(many, "example.com/m/p2/f20.go:1.2,1.9 1 0", "example.com/m/p2/f20.go:1.2,1.9 1 -3", 1)},
		{"a bad first line of a file, its file name odd", strings.Replace(many, "example.com/m/p0/f30.go:1.2,1.9", "example.com/m/p0/f30.go:1.2.1.9", 1)},
		{"a line without colon after a file", strings.Replace(many, "example.com/m/p1/f10.go:1.2,1.9 1 1\n", "SF:x\nend_of_record\n", 1)},
		{"modes that disagree late", many + "mode: set\n" + many},
		{"an unknown mode late", many + "mode: often\n"},
		{"a file coming back with other blocks", many + strings.ReplaceAll(many, ".9 ", ".8 ")},
		{"duplicate blocks that disagree at the end of a part", many + "z.go:1.1,2.2 1 1\nz.go:1.1,2.2 2 1\n" + many[len("mode: count\n"):]},
		{"duplicate blocks that disagree, the next line bad", many + "z.go:1.1,2.2 1 1\nz.go:1.1,2.2 2 1\ny.go:x\n"},
		{"a block before any mode line", many[len("mode: count\n"):] + many},
		{"only blank lines", strings.Repeat("\n", 500)},
		{"blocks of one file only", "mode: set\n" + strings.Repeat("a.go:1.1,2.2 3 1\n", 300)},
		{"a long line", "mode: set\n" + many[len("mode: count\n"):] + strings.Repeat("x", 3000) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, chunk := range []int{1, 7, 64, 100, 333, 1024, 1 << 20} {
				for _, workers := range []int{2, 3} {
					readGoProfileBoth(t, []byte(tt.in), chunk, workers, nil)
				}
			}
		})
	}
}

func TestReadGoProfileInPartsReadErrors(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("mode: set\n")
	for f := range 50 {
		fmt.Fprintf(&sb, "f%d.go:1.1,2.2 1 1\nf%d.go:3.1,4.2 1 0\n", f, f)
	}
	in := []byte(sb.String())
	for _, cut := range []int{0, 5, 100, 517, len(in) - 3} {
		fail := func(b []byte) io.Reader {
			return io.MultiReader(iotest.OneByteReader(bytes.NewReader(b[:cut])), iotest.ErrReader(errors.New("disk on fire")))
		}
		for _, chunk := range []int{16, 64, 256} {
			readGoProfileBoth(t, in, chunk, 2, fail)
		}
	}
}

// TestReadGoProfileInPartsSplits checks that a profile of many files is
// cut into many parts, each ending where the file changes.
func TestReadGoProfileInPartsSplits(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("mode: set\n")
	for f := range 200 {
		fmt.Fprintf(&sb, "f%d.go:1.1,2.2 1 1\nf%d.go:3.1,4.2 1 0\n", f, f)
	}
	in := sb.String()
	ch := &profChunker{r: strings.NewReader(in), sp: profSplit{workers: 2, chunk: 256, maxChunk: 1024}, pool: make(chan *profPart, 4)}
	var joined strings.Builder
	parts := 0
	for {
		p := ch.next()
		joined.Write(p.data)
		if p.last {
			break
		}
		parts++
		d := string(p.data)
		last := d[strings.LastIndexByte(d[:len(d)-1], '\n')+1:]
		next := in[joined.Len():]
		if strings.Split(last, ":")[0] == strings.Split(next, ":")[0] {
			t.Fatalf("part %d ends with %q, the next starts with %q: same file", parts, last, next[:20])
		}
	}
	if parts < 20 {
		t.Errorf("%d parts of 256 bytes for %d bytes, want at least 20", parts, len(in))
	}
	if joined.String() != in {
		t.Errorf("the parts do not add up to the input")
	}
}

func TestProfCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"two files", "a.go:1.1,2.2 1 1\nb.go:1.1,2.2 1 1\n", 17},
		{"the last file change counts", "a.go:1 1\nb.go:1 1\nc.go:1 1\nc.go:2 1\n", 18},
		{"an incomplete last line is not looked at", "a.go:1 1\nb.go:1 1\nc.go:1", 9},
		{"one file", "a.go:1 1\na.go:2 1\n", -1},
		{"not after a mode line", "mode: set\nb.go:1 1\n", -1},
		{"not before a mode line", "a.go:1 1\nmode: set\n", -1},
		{"not across a blank line", "a.go:1 1\n\nb.go:1 1\n", -1},
		{"not across a CRLF blank line", "a.go:1 1\r\n\r\nb.go:1 1\r\n", -1},
		{"CRLF lines", "a.go:1 1\r\nb.go:1 1\r\n", 10},
		{"a line without colon", "a.go:1 1\nxyz\n", -1},
		{"a long last run", "a.go:1 1\n" + strings.Repeat("b.go:1 1\n", 100), 9},
		{"the first line of the last file", "a.go:1 1\na.go:2 1\nb.go:1 1\nc.go:1 1\nc.go:1 1\nc.go:1 1\n", 27},
		{"the last file also first", "c.go:1 1\na.go:1 1\nc.go:1 1\nc.go:2 1\n", 18},
		{"a blank line before the last run", "a.go:1 1\nb.go:1 1\n\n" + strings.Repeat("c.go:1 1\n", 20), 9},
		{"a mode line before the last run", "a.go:1 1\nmode: set\n" + strings.Repeat("c.go:1 1\n", 20), -1},
		{"nothing", "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := profCut([]byte(tt.in)); got != tt.want {
				t.Errorf("profCut(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzProfCut: a cut is always between two lines, neither blank nor a
// mode line, of different files; there is one whenever walking the lines
// back finds one.
func FuzzProfCut(f *testing.F) {
	f.Add([]byte("a.go:1 1\nb.go:1 1\nb.go:2 1\n"))
	f.Add([]byte("c.go:1 1\na.go:1 1\n\nc.go:1 1\nc.go:2 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cut := profCut(data)
		walk := profCutWalk(data, bytes.LastIndexByte(data, '\n'))
		if (cut < 0) != (walk < 0) {
			t.Fatalf("profCut %d, walking back %d", cut, walk)
		}
		if cut < 0 {
			return
		}
		if cut == 0 || cut > len(data) || data[cut-1] != '\n' {
			t.Fatalf("cut %d is not after a line", cut)
		}
		prev := data[bytes.LastIndexByte(data[:cut-1], '\n')+1 : cut-1]
		e := bytes.IndexByte(data[cut:], '\n')
		if e < 0 {
			t.Fatalf("cut %d before an incomplete line", cut)
		}
		f1, ok1 := profCutFile(prev)
		f2, ok2 := profCutFile(data[cut : cut+e])
		if !ok1 || !ok2 || bytes.Equal(f1, f2) {
			t.Fatalf("cut %d between %q and %q", cut, prev, data[cut:cut+e])
		}
	})
}

// FuzzReadGoProfileInParts checks that reading a profile in parts of any
// size gives what reading it line by line gives, facts and errors.
func FuzzReadGoProfileInParts(f *testing.F) {
	f.Add([]byte("mode: set\na.go:1.1,2.2 3 1\nb.go:1.1,1.9 1 0\na.go:1.1,2.2 3 0\n"), uint16(5), uint8(2))
	f.Add([]byte("mode: set\na.go:3.1,4.2 2 1\na.go:1.1,2.2 1 1\na.go:1.1,2.2 2 1\nb.go:x\n"), uint16(20), uint8(3))
	f.Add([]byte("mode: set\na.go:1.1,2.2 1 1\nmode: count\nb.go:1.1,2.2 1 1\n"), uint16(12), uint8(2))
	f.Add([]byte("a.go:1.1,2.2 1 1\nb.go:1.1,2.2 1 1\n"), uint16(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, workers uint8) {
		readGoProfileBoth(t, data, 1+int(chunk)%512, 2+int(workers)%3, nil)
	})
}

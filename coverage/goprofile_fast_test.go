package coverage

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// readGoProfilePaths reads in with every set of block-line paths (all
// fast paths, with profBlockRunGo in place of the assembly where there is
// one, the byte loop alone, the careful path alone), line by line
// and in parts of chunk bytes, and fails the test when any facts or error
// differ from the careful path's.
func readGoProfilePaths(t *testing.T, in []byte, chunk int) {
	t.Helper()
	want, wantErr := readGoProfile("c.out", bytes.NewReader(in), profSplit{workers: 1, paths: profCarefulOnly})
	for _, paths := range []profPaths{profAllPaths, profGoRun, profByteLoop} {
		for _, sp := range []profSplit{
			{workers: 1, paths: paths},
			{workers: 2, chunk: chunk, maxChunk: 4 * chunk, paths: paths},
		} {
			got, gotErr := readGoProfile("c.out", bytes.NewReader(in), sp)
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Fatalf("%+v: error\n%v\nwant (careful path)\n%v", sp, gotErr, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%+v: facts (-careful path +fast):\n%s", sp, diff)
			}
		}
	}
}

// profLongName is a file name long enough for profBlockRun (16 bytes and
// more with its colon); profMidName takes its 32-byte compare, and the
// short one only the byte loop.
const (
	profLongName  = "example.com/some/module/internal/pkg/file_name.go"
	profMidName   = "example.com/m/p/f.go"
	profShortName = "a/b.go"
)

func TestProfFastPathsAgree(t *testing.T) {
	t.Parallel()
	// Block lines after the file name's colon: every edge of the fast
	// paths, good and bad.
	tails := []string{
		"4.2,4.10 4 16",
		"1.1,1.1 1 0",
		"0.0,0.0 0 0",
		"0004.02,004.10 04 0016",       // leading zeros
		"0.0,0.0 0 0000000",            // a zero count of 7 digits
		"1.1,2.2 3 0000001",            // a count of 7 digits, not zero
		"9999.9999,9999.9999 9999 1",   // the longest numbers profBlockRun takes: s5 = 24
		"9999.9999,9999.9999 9999 0",   //
		"10000.1,10000.2 1 1",          // 5 digits: the byte loop
		"1.10000,2.1 1 1",              //
		"1.1,2.10000 1 1",              //
		"1.1,2.1 10000 1",              //
		"1.1,2.1 1 12345678",           // an 8-digit count: the byte loop
		"1.1,2.1 1 123456789012345678", // 18 digits: the careful path
		"1.1,2.1 1 1234567890123456789",
		"2147483648.1,2147483648.2 1 1", // 1<<31
		"2147483649.1,2147483649.2 1 1", // above: an error
		"1.1,2.1 2147483648 1",
		"5.2,4.10 1 1",   // ends before it starts
		"4.3,4.2 1 1",    //
		"4.2,4.2 1 1",    // empty, not before
		"1,2.3.4 5 6",    // separators in the wrong order
		"1.2,3.4,5 6",    //
		"1.2,3.4 5,6",    //
		"1.2,3.4\t5 6",   //
		"1.2,3.4  5 6",   //
		"1.2,3.4 5 6 ",   //
		"1.2,3.4 5 6 7",  //
		"1.2,3.4 5 6x",   //
		"1.2,3.4 5 -6",   //
		"1.,3.4 5 6",     // empty numbers
		".1,3.4 5 6",     //
		"1.2,.4 5 6",     //
		"1.2,3. 5 6",     //
		"1.2,3.4  6",     //
		"1.2,3.4 5 ",     //
		"1.2,3.4 5",      //
		"1.2,3.4",        //
		"1.2,3.4 5 6\r",  // CRLF
		"1.\xb2,3.4 5 6", // bytes that are digits but for their high bit
		"1.2,3.4 5 \xb6",
		"1.2:3.4 5 6",
		"",
	}
	var sb strings.Builder
	for _, name := range []string{profLongName, profMidName, profShortName, strings.Repeat("x", 15), strings.Repeat("y", 31), strings.Repeat("z", 32)} {
		for _, tail := range tails {
			// The line alone, then between good lines of its file, then
			// at the end of the input with and without its newline.
			sb.Reset()
			sb.WriteString("mode: count\n" + name + ":" + tail + "\n")
			readGoProfilePaths(t, []byte(sb.String()), 64)
			sb.Reset()
			sb.WriteString("mode: count\n")
			for i := range 40 {
				fmt.Fprintf(&sb, "%s:%d.2,%d.9 %d %d\n", name, i+1, i+1, 1+i%3, i%4)
				if i == 20 {
					sb.WriteString(name + ":" + tail + "\n")
				}
			}
			readGoProfilePaths(t, []byte(sb.String()), 300)
			readGoProfilePaths(t, []byte(sb.String()+name+":"+tail), 300)
		}
	}
}

// TestProfFastPathsAgreeAtWindowEdges reads profiles longer than the line
// scanner's window, so that lines are cut at its end, with numbers of
// every length.
func TestProfFastPathsAgreeAtWindowEdges(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("mode: atomic\n")
	r := benchRand(7)
	for f := range 60 {
		name := fmt.Sprintf("%s/f%d.go", profLongName, f)
		for b := range 300 {
			n := func() string { return strconv.Itoa([]int{1, 12, 123, 1234, 12345}[r.next(5)] + b) }
			fmt.Fprintf(&sb, "%s:%s.%s,%s.%s %s %d\n", name, n(), n(), n(), n(), n(), benchCount(&r))
		}
	}
	readGoProfilePaths(t, []byte(sb.String()), 4096)
}

// TestProfNonDigits checks the mask against a byte loop for every byte
// value in every place of a word.
func TestProfNonDigits(t *testing.T) {
	t.Parallel()
	for i := range 8 {
		for c := range 256 {
			w := bytes.Repeat([]byte{'5'}, 8)
			w[i] = byte(c)
			if i > 0 { // a non-digit and a high byte in other places too
				w[i-1] = byte(255 - c)
			}
			var want uint64
			for j, b := range w {
				if b < '0' || b > '9' {
					want |= 1 << j
				}
			}
			x := uint64(0)
			for j := 7; j >= 0; j-- {
				x = x<<8 | uint64(w[j])
			}
			if got := profNonDigits(x); got != want {
				t.Fatalf("profNonDigits(%q) = %08b, want %08b", w, got, want)
			}
		}
	}
}

// TestProfLanes checks profLane and profPair on every number of 1 to 4
// digits, leading zeros included, after any byte.
func TestProfLanes(t *testing.T) {
	t.Parallel()
	for d := 1; d <= 4; d++ {
		for v := range []int{10, 100, 1000, 10000}[d-1] {
			digits := fmt.Sprintf("%0*d", d, v)
			var a [profLineRoom]byte
			for i := range a {
				a[i] = '7'
			}
			// The number ends at a[4+s] with s = 6; the one before it
			// ends at a[4+1].
			s := 6
			copy(a[4+s-d:], digits)
			a[4+s] = '.'
			a[4+1] = ','
			hi := profLane(&a, 1, 1) // the "7" before the comma
			got := profPair(uint64(hi)<<32 | uint64(profLane(&a, s, d)))
			if want := uint64(7)<<32 | uint64(v); got != want {
				t.Fatalf("%q: %#x, want %#x", digits, got, want)
			}
		}
	}
}

// FuzzProfFastPaths compares the block-line paths on any input, and on
// the same input with a long file name before every line, so that
// profBlockRun sees the fuzzer's numbers.
func FuzzProfFastPaths(f *testing.F) {
	f.Add([]byte("1.2,3.4 5 6\n0004.02,004.10 04 0016\n9999.9999,9999.9999 9999 1\n"), uint16(64))
	f.Add([]byte("5.2,4.10 1 1\n1.1,2.1 1 12345678\n1.2,3.4 5 6\r\n"), uint16(100))
	f.Add([]byte("1.1,2.2 3 0\n3.1,4.2 2 0\n1.1,2.2 3 7\n"), uint16(30))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		c := 1 + int(chunk)%512
		readGoProfilePaths(t, append([]byte("mode: set\n"), data...), c)
		var sb bytes.Buffer
		sb.WriteString("mode: set\n")
		for line := range bytes.Lines(data) {
			sb.WriteString(profLongName + ":")
			sb.Write(line)
		}
		readGoProfilePaths(t, sb.Bytes(), c)
	})
}

// profRunBoth runs profBlockRun and profBlockRunGo on the same input and
// fails the test when anything they return or write differs.
func profRunBoth(t *testing.T, buf, pre []byte, room, line int, last [2]uint64) {
	t.Helper()
	dst1, dst2 := make([]profBlock, room), make([]profBlock, room)
	last1, last2 := last, last
	u1, n1, uns1 := profBlockRun(buf, pre, dst1, line, &last1)
	u2, n2, uns2 := profBlockRunGo(buf, pre, dst2, line, &last2)
	if u1 != u2 || n1 != n2 || uns1 != uns2 || last1 != last2 {
		t.Fatalf("profBlockRun = %d, %d, %v, last %v; profBlockRunGo = %d, %d, %v, last %v\n%q",
			u1, n1, uns1, last1, u2, n2, uns2, last2, buf)
	}
	if diff := cmp.Diff(dst1[:n1], dst2[:n2], cmp.AllowUnexported(profBlock{})); diff != "" {
		t.Fatalf("blocks (-profBlockRun +profBlockRunGo):\n%s", diff)
	}
}

// TestProfBlockRunLayout pins the layout of profBlock that the assembly
// writes.
func TestProfBlockRunLayout(t *testing.T) {
	var b profBlock
	if unsafe.Sizeof(b) != 32 || unsafe.Offsetof(b.start) != 0 || unsafe.Offsetof(b.end) != 8 ||
		unsafe.Offsetof(b.stmts) != 16 || unsafe.Offsetof(b.hit) != 20 || unsafe.Offsetof(b.line) != 24 {
		t.Fatalf("profBlock is laid out differently from what goprofile_run_amd64.s writes")
	}
}

// FuzzProfBlockRun compares the two profBlockRun loops on any bytes after
// a file name of any length, with any room and block before.
func FuzzProfBlockRun(f *testing.F) {
	f.Add([]byte("1.2,3.4 5 6\n"), uint8(30), uint8(5), uint64(0), uint64(0))
	f.Add([]byte("9999.9999,9999.9999 9999 1\n0004.02,004.10 04 0016\n"), uint8(17), uint8(2), uint64(9999<<32|9999), uint64(9999<<32|9999))
	f.Add([]byte("4.2,4.10 4 16\n5.2,5.10 2 0\n5.2,5.10 2 0\n4.2,4.10 4 16\n"), uint8(40), uint8(9), uint64(4<<32|2), uint64(4<<32|10))
	f.Fuzz(func(t *testing.T, tail []byte, np, room uint8, l1, l2 uint64) {
		pre := []byte(strings.Repeat("p", int(np)%80) + ":")
		var buf []byte
		for range 3 { // the same tail on three lines, then a little room
			buf = append(append(buf, pre...), tail...)
		}
		buf = append(buf, "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"[:int(room)%41]...)
		profRunBoth(t, buf, pre, int(room)%6, int(l1%1000), [2]uint64{l1, l2})
	})
}

// TestProfBlockRunAgrees compares the two loops on the lines of
// TestProfFastPathsAgree and on the benchmark's profile.
func TestProfBlockRunAgrees(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	if err := genGoProfile(&sb, 1<<20, ""); err != nil {
		t.Fatal(err)
	}
	in := []byte(sb.String())
	for off := 0; off < len(in); {
		nl := bytes.IndexByte(in[off:], '\n') + off + 1
		colon := bytes.LastIndexByte(in[off:nl], ':') + off
		if colon > off {
			profRunBoth(t, in[off:min(len(in), off+4096)], in[off:colon+1], 50, off, [2]uint64{})
		}
		off = nl
	}
}

package coverage

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	gocmp "github.com/google/go-cmp/cmp"
)

// streamed runs StreamLCOV and returns its facts with the emitted files
// sorted by path, to compare with ReadLCOV's.
func streamed(t testing.TB, in string) (*decide.CoverageFacts, []decide.FileCoverage, error) {
	var files fileList
	c, err := StreamLCOV("s.info", strings.NewReader(in), &files)
	slices.SortFunc(files, func(a, b decide.FileCoverage) int { return cmp.Compare(a.Path, b.Path) })
	return c, files, err
}

// fileList is a FileSink that lists the files.
type fileList []decide.FileCoverage

func (l *fileList) Add(f decide.FileCoverage) { *l = append(*l, f) }
func (l *fileList) Reset()                    { *l = nil }

// checkSameAsRead fails unless StreamLCOV gives what ReadLCOV gives: the
// same totals, each file once with the same coverage, the same error.
func checkSameAsRead(t testing.TB, in string) {
	want, werr := ReadLCOV("s.info", strings.NewReader(in))
	got, files, gerr := streamed(t, in)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("errors differ: ReadLCOV %v, StreamLCOV %v", werr, gerr)
	}
	if werr != nil {
		return
	}
	wantFiles := slices.Clone(want.Files)
	slices.SortFunc(wantFiles, func(a, b decide.FileCoverage) int { return cmp.Compare(a.Path, b.Path) })
	if diff := gocmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-ReadLCOV +StreamLCOV):\n%s", diff)
	}
	if got.Files != nil || got.Covered != want.Covered || got.Total != want.Total || got.Format != want.Format {
		t.Errorf("facts %+v, want the totals of %+v and no files", got, want)
	}
}

func TestStreamLCOVIsReadLCOV(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in string }{
		{"one record", "SF:a.c\nDA:1,1\nDA:2,0\nend_of_record\n"},
		{"a file repeated later merges", "SF:a.c\nDA:1,1\nDA:2,0\nend_of_record\nSF:b.c\nDA:1,0\nend_of_record\nSF:a.c\nDA:2,3\nDA:3,0\nend_of_record\n"},
		{"a file repeated at once merges", "SF:a.c\nDA:1,0\nend_of_record\nSF:a.c\nDA:1,1\nend_of_record\n"},
		{"CRLF and spaces around the path", "TN:t\r\nSF: a.c \r\nDA:1,1\r\nend_of_record\r\nSF:a.c\r\nDA:2,0\r\nend_of_record\r\n"},
		{"no final newline", "SF:a.c\nDA:1,1\nend_of_record"},
		{"a path that looks like a record", "SF:DA:1,1\nDA:1,1\nend_of_record\nSF:x\nend_of_record\n"},
		{"a bad DA line", "SF:a.c\nDA:x,1\nend_of_record\n"},
		{"truncated", "SF:a.c\nDA:1,1\n"},
		{"no SF", "TN:\n"},
		{"empty", ""},
		{"empty SF path", "SF:\nend_of_record\n"},
		{"DA outside a record", "DA:1,1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkSameAsRead(t, tt.in)
		})
	}
}

// A big report: records of many files, some repeated far apart, read past
// several buffers of the first pass.
func TestStreamLCOVBigWithRepeats(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 40000; i++ {
		f := i % 30000 // files 0..9999 come twice, 30 000 records apart
		fmt.Fprintf(&b, "TN:\nSF:src/dir%02d/file%05d.ts\n", f%50, f)
		for l := 1; l <= 5; l++ {
			fmt.Fprintf(&b, "DA:%d,%d\n", l+i%3, (i+l)%2)
		}
		b.WriteString("LF:5\nLH:2\nend_of_record\n")
	}
	if b.Len() < 2*streamBufSize {
		t.Fatalf("input of %d bytes does not span the first pass's buffers", b.Len())
	}
	checkSameAsRead(t, b.String())
}

// The first pass finds exactly the repeated paths whatever its buffer
// size, also when SF: lines and "\nSF:" straddle two reads.
func TestLCOVRepeatedPathsAcrossBuffers(t *testing.T) {
	t.Parallel()
	in := "SF:a\nDA:1,1\nend_of_record\nSF:bb\nend_of_record\nTN:SF:x\nSF: a \r\nend_of_record\nSF:cc\nSF:bb"
	seed := maphash.MakeSeed()
	want := map[uint64]bool{maphash.String(seed, "a"): true, maphash.String(seed, "bb"): true}
	for size := 1; size <= len(in)+1; size++ {
		got, n, err := lcovRepeatedPaths(seed, strings.NewReader(in), size)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(want, got); diff != "" || n != 3 {
			t.Errorf("buffer of %d bytes: %d distinct, repeated (-want +got):\n%s", size, n, diff)
		}
	}
}

func FuzzStreamLCOV(f *testing.F) {
	f.Add("SF:a.c\nDA:1,1\nend_of_record\nSF:b\nDA:1,0\nend_of_record\nSF:a.c\nDA:2,0\nend_of_record\n")
	f.Add("SF:a\r\nDA:1,1,abc\r\nend_of_record\r\n")
	f.Add("TN:\nSF:x\nFN:1,f\nDA:3,0\nBRDA:1,0,0,-\nend_of_record\n")
	f.Fuzz(func(t *testing.T, in string) {
		checkSameAsRead(t, in)
		// And through a first pass of tiny buffers.
		seed := maphash.MakeSeed()
		big, nb, err1 := lcovRepeatedPaths(seed, bytes.NewReader([]byte(in)), streamBufSize)
		small, ns, err2 := lcovRepeatedPaths(seed, bytes.NewReader([]byte(in)), 3)
		if err1 != nil || err2 != nil || nb != ns || !gocmp.Equal(big, small) {
			t.Errorf("first pass depends on the buffer size: %v/%d vs %v/%d", big, nb, small, ns)
		}
	})
}

// BenchmarkLCOVFirstPass measures the scan of StreamLCOV's first pass
// alone, over 190 MB of LCOV of 60 000 files held in memory.
func BenchmarkLCOVFirstPass(b *testing.B) {
	var buf bytes.Buffer
	if err := genLCOVFiles(&buf, 190<<20, 60_000); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	seed := maphash.MakeSeed()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, n, err := lcovRepeatedPaths(seed, bytes.NewReader(data), streamBufSize)
		if err != nil || n != 60_000 {
			b.Fatal(n, err)
		}
	}
}

// countingSeeker counts the bytes read and the seeks back to the start.
type countingSeeker struct {
	r      io.ReadSeeker
	read   int64
	rewind int
}

func (c *countingSeeker) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

func (c *countingSeeker) Seek(offset int64, whence int) (int64, error) {
	if offset == 0 && whence == io.SeekStart {
		c.rewind++
	}
	return c.r.Seek(offset, whence)
}

// resetCounter is a FileSink that counts its resets.
type resetCounter struct {
	fileList
	resets int
}

func (r *resetCounter) Reset() { r.resets++; r.fileList.Reset() }

// A report whose paths each have one record is read once, line by line and
// in parts; one with a path repeated is read up to where the path comes
// again, then twice more (two passes), and its sink reset once — and both
// give what ReadLCOV gives.
func TestStreamLCOVReadsOnceWithoutRepeats(t *testing.T) {
	t.Parallel()
	report := func(files, repeatAt int) string {
		var b strings.Builder
		for i := 0; i < files; i++ {
			f := i
			if i == repeatAt {
				f = 0
			}
			fmt.Fprintf(&b, "SF:src/f%06d.ts\n", f)
			for l := 1; l <= 40; l++ {
				fmt.Fprintf(&b, "DA:%d,%d\n", 3*l, (i+l)%3)
			}
			b.WriteString("end_of_record\n")
		}
		return b.String()
	}
	big := 20_000 // about 8 MB: read in parts
	tests := []struct {
		name    string
		in      string
		workers int
		reads   float64 // times the input is read whole
		resets  int
	}{
		{"small, line by line", report(100, -1), 2, 1, 0},
		{"big, in parts", report(big, -1), 2, 1, 0},
		{"big, one worker", report(big, -1), 1, 1, 0},
		{"small, a path repeated", report(100, 99), 2, 3, 1},
		{"big, a path repeated at the end", report(big, big-1), 2, 3, 1},
		{"big, a path repeated at once", report(big, 1), 2, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := ReadLCOV("s.info", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			cs := &countingSeeker{r: strings.NewReader(tt.in)}
			var sink resetCounter
			got, err := streamLCOV("s.info", cs, &sink, lcovSplit{workers: tt.workers, partSize: lcovPartSize, maxPart: lcovMaxPart, minSize: lcovMinParallel})
			if err != nil {
				t.Fatal(err)
			}
			if got.Covered != want.Covered || got.Total != want.Total || len(sink.fileList) != len(want.Files) {
				t.Errorf("%d/%d lines in %d files, want %d/%d in %d", got.Covered, got.Total, len(sink.fileList), want.Covered, want.Total, len(want.Files))
			}
			// Before it stops, a reading in one pass may have read up to
			// about six parts ahead of the repeated path.
			whole := int64(tt.reads * float64(len(tt.in)))
			if slack := int64(tt.resets) * 6 * lcovMaxPart; cs.read < whole || cs.read > whole+slack {
				t.Errorf("read %d bytes of %d, want %v times (and at most %d bytes more)", cs.read, len(tt.in), tt.reads, slack)
			}
			if sink.resets != tt.resets {
				t.Errorf("sink reset %d times, want %d", sink.resets, tt.resets)
			}
		})
	}
}

package coverage

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/decide"
	gocmp "github.com/google/go-cmp/cmp"
)

// streamRun is what one second pass of StreamLCOV gave.
type streamRun struct {
	Files []decide.FileCoverage // in the order emitted
	Facts *decide.CoverageFacts
	Err   string
}

// secondPass runs StreamLCOV's second pass over in: line by line when sp
// is nil, else in parts.
func secondPass(t testing.TB, in string, sp *lcovSplit, r io.Reader) streamRun {
	t.Helper()
	seed := maphash.MakeSeed()
	repeated, _, err := lcovRepeatedPaths(seed, strings.NewReader(in), streamBufSize)
	if err != nil {
		t.Fatal(err)
	}
	var run streamRun
	tally := newLineTally("p.info")
	tally.stream = &lineStream{seed: seed, repeated: repeated, emit: func(f decide.FileCoverage) { run.Files = append(run.Files, f) }}
	if r == nil {
		r = strings.NewReader(in)
	}
	if sp == nil {
		run.Facts, err = readLCOV("p.info", r, tally)
	} else {
		run.Facts, err = tally.readParts("p.info", r, *sp)
	}
	if err != nil {
		run.Err = err.Error()
		run.Files, run.Facts = nil, nil // undefined after an error
	}
	return run
}

// wholeStream runs StreamLCOV over in — one pass, then two if a path
// comes again — line by line when sp has one worker, else in parts.
func wholeStream(in string, sp lcovSplit) streamRun {
	var files fileList
	var run streamRun
	var err error
	run.Facts, err = streamLCOV("p.info", strings.NewReader(in), &files, sp)
	run.Files = files
	if err != nil {
		run.Err = err.Error()
		run.Files, run.Facts = nil, nil
	}
	return run
}

// lcovPartsInputs are reports, good and bad, for the reader in parts.
func lcovPartsInputs() map[string]string {
	var big strings.Builder
	for i := 0; i < 300; i++ {
		f := i % 200 // files 0..99 come twice
		fmt.Fprintf(&big, "TN:\nSF:src/d%d/f%03d.ts\nFN:1,f\n", f%7, f)
		for l := 1; l <= 1+i%9; l++ {
			fmt.Fprintf(&big, "DA:%d,%d\n", l+i%4, (i*l)%3)
		}
		big.WriteString("LF:3\nLH:1\nend_of_record\n")
	}
	good := big.String()
	return map[string]string{
		"many records, some repeated":   good,
		"CRLF":                          strings.ReplaceAll(good, "\n", "\r\n"),
		"no final newline":              strings.TrimSuffix(good, "\n"),
		"a bad DA line late":            good + "SF:x.c\nDA:1,x\nend_of_record\n",
		"a bad DA line early":           "SF:x.c\nDA:1,x\nend_of_record\n" + good,
		"a record without its end":      strings.Replace(good, "end_of_record\nTN:\nSF:src/d3/f010.ts", "TN:\nSF:src/d3/f010.ts", 1),
		"truncated at the end":          good + "SF:y.c\nDA:1,1\n",
		"DA outside a record mid-way":   strings.Replace(good, "end_of_record\nTN:\nSF:src/d3/f010.ts", "end_of_record\nDA:1,1\nSF:src/d3/f010.ts", 1),
		"a long record":                 "SF:long.c\n" + strings.Repeat("DA:7,1\n", 400) + "end_of_record\n" + good,
		"only a header before the data": "TN:x\n" + good,
		"no record at all":              strings.Repeat("TN:\n", 500),
		"empty":                         "",
		"a line over the cap":           good + "SF:z.c\nDA:1," + strings.Repeat("1", MaxLineLen+1) + "\nend_of_record\n",
	}
}

func TestStreamLCOVInPartsIsLineByLine(t *testing.T) {
	t.Parallel()
	for name, in := range lcovPartsInputs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := secondPass(t, in, nil, nil)
			for _, sp := range []lcovSplit{
				{workers: 2, partSize: 16, maxPart: 64},
				{workers: 3, partSize: 100, maxPart: 4096},
				{workers: 2, partSize: 1 << 12, maxPart: 1 << 16},
				{workers: 2, partSize: 1 << 20, maxPart: 1 << 20},
			} {
				got := secondPass(t, in, &sp, nil)
				if d := gocmp.Diff(want, got); d != "" {
					t.Errorf("%+v: in parts (-line by line +in parts):\n%s", sp, d)
				}
				if d := gocmp.Diff(wholeStream(in, lcovSplit{workers: 1}), wholeStream(in, sp)); d != "" {
					t.Errorf("%+v: StreamLCOV in parts (-line by line +in parts):\n%s", sp, d)
				}
			}
		})
	}
}

func TestStreamLCOVInPartsReadError(t *testing.T) {
	t.Parallel()
	in := lcovPartsInputs()["many records, some repeated"]
	boom := errors.New("boom")
	for _, at := range []int{0, 10, 5000, len(in) - 3} {
		failing := func() io.Reader { return io.MultiReader(strings.NewReader(in[:at]), iotest.ErrReader(boom)) }
		want := secondPass(t, in, nil, failing())
		if want.Err == "" {
			t.Fatalf("at %d: no error line by line", at)
		}
		got := secondPass(t, in, &lcovSplit{workers: 2, partSize: 256, maxPart: 1024}, failing())
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("read error at byte %d (-line by line +in parts):\n%s", at, d)
		}
	}
}

// FuzzStreamLCOVInParts checks that reading in parts of any size gives
// what reading line by line gives: files in the same order, totals, errors.
func FuzzStreamLCOVInParts(f *testing.F) {
	for _, in := range lcovPartsInputs() {
		if len(in) < 4096 {
			f.Add([]byte(in), uint16(16))
		}
	}
	f.Add([]byte("SF:a\nDA:1,1\nend_of_record\nSF:b\nDA:2,0\nend_of_record\nSF:a\nDA:2,1\nend_of_record\n"), uint16(12))
	f.Fuzz(func(t *testing.T, in []byte, part uint16) {
		if part == 0 {
			part = 1
		}
		want := secondPass(t, string(in), nil, nil)
		sp := lcovSplit{workers: 2, partSize: int(part), maxPart: 4 * int(part)}
		got := secondPass(t, string(in), &sp, nil)
		if d := gocmp.Diff(want, got); d != "" {
			t.Fatalf("part size %d (-line by line +in parts):\n%s", part, d)
		}
		if d := gocmp.Diff(wholeStream(string(in), lcovSplit{workers: 1}), wholeStream(string(in), sp)); d != "" {
			t.Fatalf("part size %d: StreamLCOV (-line by line +in parts):\n%s", part, d)
		}
	})
}

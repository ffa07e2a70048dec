package coverage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// The LCOV fast path reads eight bytes at a time; these tests hold it to
// the plain byte loops it replaces.

func TestSWARDigitsAndParseAgreeWithTheByteLoop(t *testing.T) {
	t.Parallel()
	tails := []string{",", "\n", "", "x", "/", ":", "\x00", "\x80", "\xff", "0123456789"}
	nums := []string{"0", "7", "00", "10", "99", "123", "4096", "65535", "100000", "9999999", "0000001", "12345678"}
	for v := 0; v < 1_000_000; v += 997 {
		nums = append(nums, strconv.Itoa(v))
	}
	for _, num := range nums {
		for _, tail := range tails {
			var word [8]byte
			copy(word[:], num+tail+"\n\n\n\n\n\n\n\n")
			x := binary.LittleEndian.Uint64(word[:])
			want := 0
			for want < 8 && word[want] >= '0' && word[want] <= '9' {
				want++
			}
			if got := swarDigits(x); got != want {
				t.Fatalf("swarDigits(%q) = %d, want %d", word, got, want)
			}
			if want == 0 || want == 8 {
				continue
			}
			v, _ := strconv.ParseUint(string(word[:want]), 10, 32)
			if got := swarParse(x, want); got != uint32(v) {
				t.Fatalf("swarParse(%q, %d) = %d, want %d", word, want, got, v)
			}
		}
	}
}

func TestLCOVFastKeyAgreesWithLcovKey(t *testing.T) {
	t.Parallel()
	alphabet := []byte("AZS:a0@[`{\n\x80")
	r := benchRand(12345)
	for i := 0; i < 200_000; i++ {
		b := make([]byte, r.next(20))
		for j := range b {
			b[j] = alphabet[r.next(len(alphabet))]
		}
		if got, want := lcovFastKey(b), lcovKey(b[:min(len(b), 16)]); got != want {
			t.Fatalf("lcovFastKey(%q) = %v, lcovKey = %v", b, got, want)
		}
	}
}

func TestIndexNLAgreesWithIndexByte(t *testing.T) {
	t.Parallel()
	r := benchRand(777)
	for i := 0; i < 100_000; i++ {
		b := make([]byte, r.next(80))
		for j := range b {
			b[j] = "a\n\x0b\x09\x8a\xff"[r.next(6)]
		}
		if got, want := indexNL(b), bytes.IndexByte(b, '\n'); got != want {
			t.Fatalf("indexNL(%q) = %d, want %d", b, got, want)
		}
	}
}

// lcovChunkingAgrees checks that ReadLCOV gives the same facts or the same
// error whether the input comes in one piece (fast path on whole windows)
// or one byte at a time (lines never complete in the window: the careful
// path and the byte loops).
func lcovChunkingAgrees(t *testing.T, data []byte) {
	t.Helper()
	whole, errWhole := ReadLCOV("x.info", bytes.NewReader(data))
	bytewise, errBytewise := ReadLCOV("x.info", iotest.OneByteReader(bytes.NewReader(data)))
	if fmt.Sprint(errWhole) != fmt.Sprint(errBytewise) {
		t.Fatalf("errors differ:\nwhole:    %v\nbytewise: %v", errWhole, errBytewise)
	}
	if diff := cmp.Diff(bytewise, whole); diff != "" {
		t.Fatalf("facts differ (-bytewise +whole):\n%s", diff)
	}
}

func TestReadLCOVDoesNotDependOnHowTheInputIsChunked(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	if err := genLCOV(&gen, 256<<10); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
	}{
		{"a generated tracefile of realistic records", gen.String()},
		{"numbers of every length around the eight-byte words",
			"SF:a\nDA:1,0\nDA:12,10\nDA:123,100\nDA:1234,1000\nDA:12345,10000\nDA:123456,100000\nDA:1234567,1000000\n" +
				"DA:12345678,10000000\nDA:123456789,000000000\nDA:5,00000000000000000001\nDA:6,0000000\nDA:7,00000000\nend_of_record\n"},
		{"checksums, carriage returns and a line out of order",
			"SF:b\r\nDA:10,1,abcdef0123\nDA:11,0\r\nDA:3,5\nDA:3,0\nBRDA:3,0,0,-\nFNDA:0,f\nend_of_record\n"},
		{"a bad count after good lines", "SF:c\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,-1\nend_of_record\n"},
		{"a line number too long", "SF:c\nDA:1,1\nDA:2,1\nDA:12345678901234567890,1\nend_of_record\n"},
		{"a count of 21 digits", "SF:c\nDA:1,1\nDA:2,1\nDA:3,100000000000000000000\nend_of_record\n"},
		{"an unknown lower-case key inside a record", "SF:c\nDA:1,1\nDA:2,1\nDA:3,1\nfoo:1\nend_of_record\n"},
		{"a long upper-case key", "SF:c\nDA:1,1\nABCDEFGHIJKLMNOPQRST:1\nABCDEFGHIJ:2\nend_of_record\n"},
		{"a file that repeats", "SF:a\nDA:1,0\nDA:2,3\nend_of_record\nSF:b\nDA:1,1\nend_of_record\nSF:a\nDA:1,2\nDA:4,0\nend_of_record\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lcovChunkingAgrees(t, []byte(tt.data))
		})
	}
}

func FuzzReadLCOVChunking(f *testing.F) {
	f.Add([]byte("SF:a\nDA:1,1\nDA:12,0\nDA:123,45\nDA:1234567,1234567\nDA:12345678,1\nBRDA:1,0,0,1\nend_of_record\n"))
	f.Add([]byte("TN:\nSF:x\nFN:3,f\nFNDA:1,f\nDA:3,1,ck\nDA:2,0\r\nLF:2\nLH:1\nend_of_record\n"))
	f.Fuzz(func(t *testing.T, data []byte) { lcovChunkingAgrees(t, data) })
}

package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/load"
)

// evidenceZip is a zip of n discoveries logs of size bytes each (one
// review finding, then blank lines), deflated once and stored n times:
// 16 of 62.5 MiB are a 1 MB zip of 1 GB.
func evidenceZip(b *testing.B, n, size int) []byte {
	b.Helper()
	first := []byte(`{"type":"review_finding","data":{"file_line":"cart.go:1","severity":"high","description":"nil map"}}` + "\n")
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	crc := crc32.NewIEEE()
	w := io.MultiWriter(fw, crc)
	w.Write(first)
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	written := len(first)
	for written < size {
		k := min(len(blank), size-written)
		w.Write(blank[:k])
		written += k
	}
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		e, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("discoveries-%02d.ndjson", i), Method: zip.Deflate,
			CRC32: crc.Sum32(), CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(written)})
		if err != nil {
			b.Fatal(err)
		}
		e.Write(raw.Bytes())
	}
	zw.Close()
	return buf.Bytes()
}

// unpackEvidence unpacks data as Evidence does, into the readers.
func unpackEvidence(data []byte, lim Limits) (int64, error) {
	bud := &Budget{}
	_, err := Unpack("art", bytes.NewReader(data), int64(len(data)), lim, bud, load.SniffLen, load.Known, func(file string, r io.Reader) error {
		_, err := load.Read("art/"+file, r, decide.Review)
		return err
	})
	return bud.Used, err
}

// BenchmarkUnpackBomb: a 1 MB zip of 16 × 62.5 MiB of evidence under the
// default 64 MiB budget — refused after 64 MiB, in constant memory.
func BenchmarkUnpackBomb(b *testing.B) {
	data := evidenceZip(b, 16, 1000<<20/16)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		used, err := unpackEvidence(data, Limits{})
		if !errors.Is(err, ErrTooLarge) || used > DefaultBudget+64<<10 {
			b.Fatalf("used %d: %v", used, err)
		}
	}
}

// BenchmarkUnpackEvidence: a zip of 4 × 8 MiB of evidence within the
// budget, read whole; MB/s of unpacked bytes.
func BenchmarkUnpackEvidence(b *testing.B) {
	data := evidenceZip(b, 4, 8<<20)
	b.SetBytes(32 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := unpackEvidence(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

package ghfake

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"sort"
	"testing"
)

// Zip zips files (name → content) as an artifact's archive, for
// AddArtifact. Names are written in sorted order.
func Zip(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	b, err := ZipFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ZipFiles is Zip for code outside a test (the demo).
func ZipFiles(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		f, err := zw.Create(name)
		if err != nil {
			return nil, fmt.Errorf("zip %s: %w", name, err)
		}
		if _, err := f.Write(files[name]); err != nil {
			return nil, fmt.Errorf("zip %s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip: %w", err)
	}
	return buf.Bytes(), nil
}

// FindingsZip is a zip of n discoveries logs of size bytes each — one
// review finding, then blank lines: evidence gcloop reads, so every byte
// of it would be unpacked — deflated once and stored n times: 16 entries
// of 62.5 MiB make a 1 MB zip that expands to 1 GB (a zip bomb).
func FindingsZip(t testing.TB, n, size int) []byte {
	t.Helper()
	first := []byte(`{"type":"review_finding","data":{"file_line":"cart.go:1","severity":"high","description":"nil map"}}` + "\n")
	var raw bytes.Buffer
	fw, err := flate.NewWriter(&raw, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	crc := crc32.NewIEEE()
	write := func(p []byte) {
		fw.Write(p)
		crc.Write(p)
	}
	write(first)
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	written := len(first)
	for written < size {
		k := min(len(blank), size-written)
		write(blank[:k])
		written += k
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("discoveries-%02d.ndjson", i), Method: zip.Deflate,
			CRC32: crc.Sum32(), CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(written)})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(raw.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

package ghfake

import (
	"archive/zip"
	"bytes"
	"fmt"
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

package webhook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestSpool(t *testing.T) {
	t.Parallel()
	tempDir := func(t *testing.T) string { return t.TempDir() }
	body := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16 000 bytes
	tests := []struct {
		name     string
		inMemory int64
		dir      func(t *testing.T) string
		chunk    int
		file     bool // the body went to a file
		fileErr  bool // no file could be made
	}{
		{"a body under the threshold stays in memory", 1 << 20, tempDir, 1000, false, false},
		{"a body over it goes to a file", 4096, tempDir, 1000, true, false},
		{"in one write", 100, tempDir, len(body), true, false},
		{"in writes of a byte", 100, tempDir, 1, true, false},
		{"a directory that does not exist keeps it in memory", 100, func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, 1000, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tt.dir(t)
			s := &spool{dir: dir, inMemory: tt.inMemory}
			for p := body; len(p) > 0; {
				n := min(tt.chunk, len(p))
				if k, err := s.Write(p[:n]); err != nil || k != n {
					t.Fatalf("Write = %d, %v", k, err)
				}
				p = p[n:]
			}
			if (s.f != nil) != tt.file || (s.fileErr != nil) != tt.fileErr {
				t.Errorf("file %v, error %v; want a file %v, an error %v", s.f != nil, s.fileErr, tt.file, tt.fileErr)
			}
			if tt.file && int64(len(s.mem)) > tt.inMemory {
				t.Errorf("%d bytes in memory, want at most %d", len(s.mem), tt.inMemory)
			}
			got, err := s.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, body) {
				t.Errorf("Bytes = %d bytes, not the body of %d", len(got), len(body))
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the spool left %d files behind", len(entries))
			}
		})
	}
}

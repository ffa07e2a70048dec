package pushfix

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The expected ids were printed by `git hash-object --stdin` (git 2.39.5)
// for the same bytes.
func TestBlobIDMatchesGitHashObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"the empty blob", nil, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{"text without a final newline", []byte("hello world"), "95d09f2b10159347eece71399a7e2e907ea3df4f"},
		{"a Go file", []byte("package a\n"), "2a93cdef549545101b086408d9ee767fda0c02c2"},
		{"binary bytes", []byte("\x00\x01\xff"), "494b1410a95b9ef0a980c33411fbf7d564472741"},
		{"UTF-8 with CRLF, unconverted", []byte("héllo\r\n"), "693eab71f9e59daec3ca85e02e21f17ec3d287b9"},
		{"100000 NUL bytes", make([]byte, 100000), "f18c9a678f421d5c52f6c5acc23670267d5f632f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := BlobID(tt.content); got != tt.want {
				t.Errorf("BlobID = %s, want %s", got, tt.want)
			}
		})
	}
}

// When git is installed, BlobID is also checked against it directly.
func TestBlobIDAgreesWithTheGitBinary(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed; TestBlobIDMatchesGitHashObject holds ids it printed")
	}
	for _, c := range []string{"", "a", "line\n", strings.Repeat("xyz\n", 5000), "\x00\x00"} {
		cmd := exec.Command(gitBin, "hash-object", "--stdin")
		cmd.Stdin = strings.NewReader(c)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git hash-object: %v", err)
		}
		if got, want := BlobID([]byte(c)), string(bytes.TrimSpace(out)); got != want {
			t.Errorf("BlobID(%q) = %s, git says %s", c, got, want)
		}
	}
}

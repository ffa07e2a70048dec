package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files gcloop writes or reads in the workspace besides the evidence —
// its outputs, the discoveries log, the local configuration — are reached
// through an os.Root: a symlink planted out of the workspace is refused and
// nothing outside is written.
func TestWorkspaceFilesStayInTheRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		link string // the symlink planted in the workspace
		run  func(ws string) error
		want string
	}{
		{"outputs under a .gcloop symlinked out of the workspace", ".gcloop", func(ws string) error {
			_, err := WriteFiles(ws, decided(t))
			return err
		}, "write outputs to .gcloop: "},
		{"outputs under a .gcloop/<id> symlinked out of the workspace", ".gcloop/review", func(ws string) error {
			_, err := WriteFiles(ws, decided(t))
			return err
		}, "write outputs to .gcloop/review: "},
		{"a discoveries log symlinked out", "discoveries.ndjson", func(ws string) error {
			return AppendDiscoveries(ws, "discoveries.ndjson", decided(t))
		}, "append to discoveries.ndjson"},
		{"a local configuration symlinked out", ".github/gcloop.yml", func(ws string) error {
			_, err := readLocalConfig(ws, ".github/gcloop.yml")
			return err
		}, "read .github/gcloop.yml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws, out := t.TempDir(), t.TempDir()
			target := filepath.Join(out, "target")
			dir := strings.HasPrefix(tt.link, ".gcloop")
			if dir {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(target, []byte("review:\n  loop: review\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			symlink(t, target, filepath.Join(ws, tt.link))
			err := tt.run(ws)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), "symlink") && !strings.Contains(err.Error(), "escapes") {
				t.Fatalf("error = %v, want one starting %q about a path escaping the workspace", err, tt.want)
			}
			if dir {
				if entries, _ := os.ReadDir(target); len(entries) != 0 {
					t.Errorf("wrote %d entries outside the workspace", len(entries))
				}
			} else if data, _ := os.ReadFile(target); string(data) != "review:\n  loop: review\n" {
				t.Errorf("the file outside the workspace changed: %q", data)
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A .gcloop planted by a checkout as a symlink to a directory of the
// workspace is refused too, and a symlink where an output file goes is
// replaced, never followed: nothing but gcloop's own files is written.
func TestWriteFilesWritesOnlyItsOwnFiles(t *testing.T) {
	t.Parallel()
	t.Run("a .gcloop symlink inside the workspace", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		symlink(t, "src", filepath.Join(ws, ".gcloop"))
		_, err := WriteFiles(ws, decided(t))
		if err == nil || !strings.Contains(err.Error(), ".gcloop is a symlink, not gcloop's directory: refused") {
			t.Fatalf("error = %v, want the symlink refused", err)
		}
		if entries, _ := os.ReadDir(filepath.Join(ws, "src")); len(entries) != 0 {
			t.Errorf("wrote %d entries through the symlink", len(entries))
		}
	})
	t.Run("an output file symlinked to a source file", func(t *testing.T) {
		t.Parallel()
		ws := t.TempDir()
		src := filepath.Join(ws, "main.go")
		if err := os.WriteFile(src, []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		symlink(t, "../../main.go", filepath.Join(ws, ".gcloop", "review", "report.md"))
		f, err := WriteFiles(ws, decided(t))
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(src); string(data) != "package main\n" {
			t.Errorf("main.go was written through the symlink: %q", data)
		}
		if fi, err := os.Lstat(filepath.Join(ws, f.Report)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("report.md: %v, want a regular file in place of the symlink", err)
		}
	})
}

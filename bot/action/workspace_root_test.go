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
		{"outputs under an <id> symlinked out of the output directory", "review", func(ws string) error {
			_, err := WriteFiles(ws, decided(t))
			return err
		}, "write outputs to "},
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
			if tt.link == "review" {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(target, []byte("review:\n  loop: review\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			symlink(t, target, filepath.Join(ws, tt.link))
			err := tt.run(ws)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "escapes") {
				t.Fatalf("error = %v, want one starting %q about a path escaping the workspace", err, tt.want)
			}
			if tt.link == "review" {
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

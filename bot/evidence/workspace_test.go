package evidence

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

// workspaceFiles expands patterns in the workspace ws.
func workspaceFiles(ws string, patterns []string) ([]string, error) {
	w, err := OpenWorkspace(ws)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Files(patterns)
}

// readWorkspaceEvidence reads files of the workspace ws.
func readWorkspaceEvidence(ws string, files []string, loop decide.Loop) ([]*decide.Evidence, error) {
	w, err := OpenWorkspace(ws)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Read(files, loop)
}

// writeFile writes a file under dir, making its directories.
func writeFile(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
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

// outside writes a file outside the workspace, as a symlink target.
func outside(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "passwd.json")
	if err := os.WriteFile(p, []byte(`{"review_score": 1, "findings": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWorkspaceFilesRefusesSymlinksOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		patterns []string
		wantErr  string // "" = no error
		want     []string
	}{
		{"a named symlink out is refused", []string{"review-results.json"}, "evidence review-results.json: a symlink that leads out of the workspace is refused", nil},
		{"a symlink out in a named directory is refused", []string{"out"}, "evidence out/evil.json: a symlink that leads out of the workspace is refused", nil},
		{"a glob does not follow a symlink", []string{"**/*.json"}, "", []string{"ok/real.json"}},
		{"a symlink inside the workspace is read", []string{"inside.json"}, "", []string{"inside.json"}},
		{"a directory symlinked out is refused", []string{"linked-dir"}, "evidence linked-dir: a symlink that leads out of the workspace is refused", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			target := outside(t)
			symlink(t, target, filepath.Join(ws, "review-results.json"))
			symlink(t, target, filepath.Join(ws, "out", "evil.json"))
			symlink(t, filepath.Dir(target), filepath.Join(ws, "linked-dir"))
			writeFile(t, ws, "ok/real.json", `{"review_score": 8, "findings": []}`)
			symlink(t, "ok/real.json", filepath.Join(ws, "inside.json"))
			files, err := workspaceFiles(ws, tt.patterns)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("workspaceFiles(%q) error = %v, want %q", tt.patterns, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if _, err := readWorkspaceEvidence(ws, files, ""); err != nil {
				t.Errorf("readWorkspaceEvidence: %v", err)
			}
		})
	}
}

func TestReadWorkspaceEvidenceRefusesASymlinkOut(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	symlink(t, outside(t), filepath.Join(ws, "r.json"))
	_, err := readWorkspaceEvidence(ws, []string{"r.json"}, "")
	if err == nil || !strings.Contains(err.Error(), "evidence r.json: a symlink that leads out of the workspace is refused") {
		t.Errorf("readWorkspaceEvidence error = %v, want the symlink refused", err)
	}
}

// A pattern of many `**` on a deep tree ends at once: the old hand-written
// matcher tried every split of the path for every `**` (exponential), which
// the test binary's timeout would end.
func TestWorkspaceFilesPathologicalPattern(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	deep := strings.Repeat("a/", 30) + "y.json"
	writeFile(t, ws, deep, "{}")
	pattern := strings.Repeat("**/", 25) + "x"
	files, err := workspaceFiles(ws, []string{pattern})
	if err == nil || !strings.Contains(err.Error(), "matched no file") {
		t.Errorf("files %q, error %v: want none and an error saying the pattern matched nothing", files, err)
	}
}

func FuzzWorkspaceFiles(f *testing.F) {
	f.Add("**/*.json", "a/b.json\nc/../d.json\nout/x.xml", uint8(3))
	f.Add("../x", "x", uint8(0))
	f.Add("{a,b}/**/[a-z]*", "a/q\nb/c/z", uint8(1))
	f.Add("a/**/**/**/b", "a/a/a/a/b", uint8(2))
	f.Add("[", "[", uint8(0))
	f.Fuzz(func(t *testing.T, pattern, tree string, links uint8) {
		base := t.TempDir()
		ws := filepath.Join(base, "ws")
		writeFile(t, base, "secret.json", `{"review_score": 1}`)
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		// The tree: one file per line (valid relative names only), and
		// some symlinks out of the workspace among them.
		for i, line := range strings.Split(tree, "\n") {
			if i == 20 {
				break
			}
			rel := filepath.Clean(line)
			if !filepath.IsLocal(rel) || strings.ContainsRune(rel, 0) || len(rel) > 100 {
				continue
			}
			full := filepath.Join(ws, rel)
			if os.MkdirAll(filepath.Dir(full), 0o755) != nil {
				continue
			}
			if links&(1<<(i%8)) != 0 {
				_ = os.Symlink(filepath.Join(base, "secret.json"), full)
			} else {
				_ = os.WriteFile(full, []byte(`{"review_score": 8, "findings": []}`), 0o644)
			}
		}
		files, err := workspaceFiles(ws, []string{pattern})
		if err != nil {
			return
		}
		for _, f := range files {
			if !filepath.IsLocal(filepath.FromSlash(f)) {
				t.Fatalf("pattern %q gave %q outside the workspace", pattern, f)
			}
			real, err := filepath.EvalSymlinks(filepath.Join(ws, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(ws, real); err != nil || !filepath.IsLocal(rel) {
				if wsReal, _ := filepath.EvalSymlinks(ws); !strings.HasPrefix(real, wsReal+string(filepath.Separator)) {
					t.Fatalf("pattern %q gave %q, which leads to %s outside the workspace", pattern, f, real)
				}
			}
		}
		if _, err := readWorkspaceEvidence(ws, files, ""); err != nil && strings.Contains(err.Error(), "secret") {
			t.Fatalf("read outside the workspace: %v", err)
		}
	})
}

func TestWorkspaceFilesGlobs(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, rel := range []string{"results/run-L1.json", "results/sub/run.json", "junit.xml", "a/b/junit.xml",
		"reports/a/b.xml", "reports/x.sarif", "sub/lcov.info", ".git/junit.xml"} {
		writeFile(t, ws, rel, "x")
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"results/*.json", []string{"results/run-L1.json"}},
		{"**/junit.xml", []string{"a/b/junit.xml", "junit.xml"}},
		{"reports/**", []string{"reports/a/b.xml", "reports/x.sarif"}},
		{"reports/**/*.sarif", []string{"reports/x.sarif"}},
		{"*.info", nil}, // matches nothing: an error
		{"{results,reports}/*.{json,sarif}", []string{"reports/x.sarif", "results/run-L1.json"}},
		{"missing/**/*.xml", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			got, err := workspaceFiles(ws, []string{tt.pattern})
			if tt.want == nil {
				want := "evidence " + tt.pattern + ": matched no file in the workspace " + ws
				if err == nil || err.Error() != want {
					t.Fatalf("workspaceFiles(%q) = %q, %v; want the error %q", tt.pattern, got, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("workspaceFiles(%q) (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
}
func TestWorkspaceFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("review-results.json", `{"review_score": 8, "findings": []}`)
	write("out/a.sarif", `{"version":"2.1.0","runs":[]}`)
	write("out/notes.txt", "not evidence")
	write(".git/x.json", `{"review_score": 1}`)
	files, err := workspaceFiles(ws, []string{"review-results.json", "out", "**/*.json", filepath.Join(ws, "out", "a.sarif")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"review-results.json", "out/a.sarif"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ pattern, want string }{
		{"missing.xml", "evidence missing.xml: not found in the workspace " + ws},
		{"out/notes.txt/..", ""}, // the directory out itself: found
		{"empty", "evidence empty: no file in the directory is in a format gcloop reads"},
		{"../etc/passwd", `evidence "../etc/passwd": outside the workspace ` + ws + "; want a path relative to it, or an absolute path inside it"},
		{"/etc/passwd", `evidence "/etc/passwd": outside the workspace ` + ws + "; want a path relative to it, or an absolute path inside it"},
	} {
		if err := os.MkdirAll(filepath.Join(ws, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := workspaceFiles(ws, []string{"review-results.json", tt.pattern})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("workspaceFiles(%q): %v", tt.pattern, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("workspaceFiles(%q) error %v, want %q", tt.pattern, err, tt.want)
		}
	}
}

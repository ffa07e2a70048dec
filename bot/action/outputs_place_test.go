package action

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sethvargo/go-githubactions"
)

func TestWriteFilesGoUnderDotGcloopInTheWorkspace(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for run := 1; run <= 2; run++ { // the second run replaces the files
		f, err := WriteFiles(ws, decided(t))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		want := Files{Report: ".gcloop/review/report.md", Decision: ".gcloop/review/decision.json", Tasks: ".gcloop/review/tasks.json"}
		if diff := cmp.Diff(want, f); diff != "" {
			t.Fatalf("run %d: files (-want +got):\n%s", run, diff)
		}
		for _, p := range []string{f.Report, f.Decision, f.Tasks} {
			if fi, err := os.Lstat(filepath.Join(ws, p)); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
				t.Errorf("run %d: %s: %v, want a written regular file", run, p, err)
			}
		}
	}
}

// ownerUID is the uid that owns path.
func ownerUID(t *testing.T, path string) (uid uint32, mode os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid, fi.Mode().Perm()
}

// chownedDir makes a directory owned by uid 1001, the runner's user on
// GitHub's hosted runners.
func chownedDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user, as the runner's files are to a root container")
	}
	dir := t.TempDir()
	if err := os.Chown(dir, 1001, 1001); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFilesMadeAsRootGoToTheWorkspacesOwner(t *testing.T) {
	t.Parallel()
	ws := chownedDir(t) // the workspace, the runner's
	f, err := WriteFiles(ws, decided(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".gcloop", ".gcloop/review", f.Report, f.Decision, f.Tasks} {
		if uid, _ := ownerUID(t, filepath.Join(ws, p)); uid != 1001 {
			t.Errorf("%s belongs to uid %d; want 1001, the owner of the workspace", p, uid)
		}
	}

	if err := AppendDiscoveries(ws, "new.ndjson", decided(t)); err != nil {
		t.Fatal(err)
	}
	if uid, mode := ownerUID(t, filepath.Join(ws, "new.ndjson")); uid != 1001 || mode != 0o644 {
		t.Errorf("a new discoveries file: uid %d mode %o; want the workspace's owner 1001 and 644", uid, mode)
	}
	kept := filepath.Join(ws, "kept.ndjson")
	if err := os.WriteFile(kept, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(kept, 1002, 1002); err != nil {
		t.Fatal(err)
	}
	if err := AppendDiscoveries(ws, "kept.ndjson", decided(t)); err != nil {
		t.Fatal(err)
	}
	if uid, mode := ownerUID(t, kept); uid != 1002 || mode != 0o600 {
		t.Errorf("an existing discoveries file after the append: uid %d mode %o; want its own 1002 and 600", uid, mode)
	}
}

func TestPublishRefusesUnwritableFileCommandsWithoutPanicking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "output")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		output, summ  string
		wantName      string
		wantUntouched string
	}{
		{"GITHUB_OUTPUT in a directory that is not mounted", filepath.Join(dir, "missing", "set_output"), file, "GITHUB_OUTPUT", file},
		{"GITHUB_STEP_SUMMARY names a directory", file, dir, "GITHUB_STEP_SUMMARY", file},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Context{OutputPath: tt.output, SummaryPath: tt.summ}
			a := githubactions.New(githubactions.WithWriter(io.Discard), githubactions.WithGetenv(func(k string) string {
				return map[string]string{"GITHUB_OUTPUT": tt.output, "GITHUB_STEP_SUMMARY": tt.summ}[k]
			}))
			err := Publish(a, c, decided(t), Files{}, io.Discard)
			var fc *FileCommandError
			if !errors.As(err, &fc) {
				t.Fatalf("Publish: %v; want a *FileCommandError", err)
			}
			if fc.Name != tt.wantName || !strings.Contains(err.Error(), "run the action as the runner's user or as root") {
				t.Errorf("error %q names %s; want %s and what to do", err, fc.Name, tt.wantName)
			}
			if b, _ := os.ReadFile(tt.wantUntouched); len(b) != 0 {
				t.Errorf("outputs were written before the check: %q", b)
			}
		})
	}
}

func TestFileCommandErrorIsOneLine(t *testing.T) {
	t.Parallel()
	err := &FileCommandError{Name: "GITHUB_OUTPUT", Path: "/github/file_commands/set_output_1", Err: os.ErrPermission}
	got := err.Error()
	if strings.Contains(got, "\n") || !strings.HasPrefix(got, "cannot write the runner's GITHUB_OUTPUT file /github/file_commands/set_output_1 (running as uid ") {
		t.Errorf("message %q", got)
	}
	if diff := cmp.Diff(true, errors.Is(err, os.ErrPermission)); diff != "" {
		t.Errorf("errors.Is(ErrPermission) (-want +got):\n%s", diff)
	}
}

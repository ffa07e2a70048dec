package containertest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// checkWorkspaceFiles reads the report, decision-json and tasks outputs as
// a later step of the job does: from the workspace, on the host's side of
// the mount, by the workspace-relative paths the outputs give.
func checkWorkspaceFiles(t *testing.T, j *job, r result, id string) {
	t.Helper()
	for out, name := range map[string]string{"report": "report.md", "decision-json": "decision.json", "tasks": "tasks.json"} {
		want := ".gcloop/" + id + "/" + name
		if r.outputs[out] != want {
			t.Errorf("output %s = %q; want %q (relative to the workspace, the next step's working directory)", out, r.outputs[out], want)
			continue
		}
		data, err := os.ReadFile(filepath.Join(j.ws, filepath.FromSlash(r.outputs[out])))
		if err != nil {
			t.Errorf("output %s: not in the workspace on the runner: %v", out, err)
			continue
		}
		switch out {
		case "report":
			if !strings.Contains(string(data), "gcloop "+id) {
				t.Errorf("report.md holds no gcloop %s report:\n%s", id, data)
			}
		case "decision-json":
			var d struct{ Schema, Decision string }
			if err := json.Unmarshal(data, &d); err != nil || d.Schema != "gcloop/decision/v1" || d.Decision == "" {
				t.Errorf("decision.json %s: schema %q decision %q (%v)", data, d.Schema, d.Decision, err)
			}
		case "tasks":
			var ts struct{ Tasks []json.RawMessage }
			if err := json.Unmarshal(data, &ts); err != nil || ts.Tasks == nil {
				t.Errorf("tasks.json %s: %v; want a tasks list", data, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(j.temp, "gcloop")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the run wrote under RUNNER_TEMP (%v): the next step cannot read it there", err)
	}
}

// removeAsRunner removes dir as the runner's user does when it cleans the
// workspace: `rm -rf` run as uid 1001. It reaches dir's parent through a
// descriptor opened here (/proc/self/fd/3), since the test's temporary
// directories above the workspace are root's own. It fails the test when
// anything is left.
func removeAsRunner(t *testing.T, dir string) {
	t.Helper()
	parent, err := os.Open(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	cmd := exec.Command("rm", "-rf", "/proc/self/fd/3/"+filepath.Base(dir))
	cmd.ExtraFiles = []*os.File{parent}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: runnerUID, Gid: runnerUID}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the runner's user (uid %d) cannot remove %s: %v\n%s", runnerUID, dir, err, out)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s is still there after the runner's user removed it (%v)", dir, err)
	}
}

package containertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// runnerUID is the runner's user on GitHub's hosted runners: it owns the
// workspace and the runner's temp directory.
const runnerUID = 1001

// job is one step of a job on a runner machine, laid out as the runner
// lays it out: <work>/_temp (RUNNER_TEMP) with _github_home,
// _github_workflow (event.json) and _runner_file_commands, and the
// workspace, all owned by the runner's user.
type job struct {
	work, temp, ws   string
	output, summary  string // host paths of the file commands
	outName, sumName string // their names under /github/file_commands
}

func newJob(t *testing.T, files map[string]string, event any) *job {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to lay the job out as the runner's user (uid 1001) owns it")
	}
	work := t.TempDir()
	j := &job{work: work, temp: filepath.Join(work, "_temp"), ws: filepath.Join(work, "shop", "shop"),
		outName: "set_output_0f1e", sumName: "step_summary_0f1e"}
	for _, d := range []string{"_github_home", "_github_workflow", "_runner_file_commands"} {
		mkdir(t, filepath.Join(j.temp, d))
	}
	mkdir(t, j.ws)
	for name, body := range files {
		writeFile(t, filepath.Join(j.ws, filepath.FromSlash(name)), body)
	}
	data, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(j.temp, "_github_workflow", "event.json"), string(data))
	j.output = filepath.Join(j.temp, "_runner_file_commands", j.outName)
	j.summary = filepath.Join(j.temp, "_runner_file_commands", j.sumName)
	writeFile(t, j.output, "")
	writeFile(t, j.summary, "")
	// The runner's user owns everything it made, as on a hosted runner.
	err = filepath.WalkDir(work, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, runnerUID, runnerUID)
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is one container run.
type result struct {
	code           int
	stdout, stderr string
	outputs        map[string]string
	summary        string
	firstLine      time.Duration // from docker run to the first output line
}

// firstWrite records when the first byte arrives.
type firstWrite struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	start time.Time
	at    *time.Duration
	once  *sync.Once
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { *w.at = time.Since(w.start) })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// run runs the image as ContainerActionHandler and DockerCommandManager.DockerRun
// of actions/runner do: `docker run --workdir /github/workspace --rm`, every
// variable passed by name (-e NAME), GITHUB_ACTIONS and CI, the docker
// socket, RUNNER_TEMP, home, workflow, file commands and workspace mounted
// under /github, host paths in variables translated to those mounts, the
// entrypoint's args from action.yml ("run"). user is "" (the image's
// default, root) or a --user value; --network host lets the container reach
// the fake GitHub on 127.0.0.1.
func (j *job) run(t *testing.T, img, user string, gh *ghfake.Server, sha string, inputs map[string]string) result {
	t.Helper()
	env := map[string]string{
		"HOME": "/github/home", "GITHUB_WORKSPACE": "/github/workspace", "RUNNER_TEMP": "/github/runner_temp",
		"GITHUB_EVENT_PATH": "/github/workflow/event.json",
		"GITHUB_OUTPUT":     "/github/file_commands/" + j.outName, "GITHUB_STEP_SUMMARY": "/github/file_commands/" + j.sumName,
		"GITHUB_API_URL": strings.TrimSuffix(gh.URL(), "/"), "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_REPOSITORY": "octo/shop", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_SHA": sha,
		"GITHUB_RUN_ID": "5000", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_ACTOR": "dev",
		"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
		"INPUT_TOKEN": "ghs_actiontoken",
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	args := []string{"run", "--name", fmt.Sprintf("gcloop-ct-%d-%d", os.Getpid(), time.Now().UnixNano()),
		"--label", "gcloop-containertest", "--workdir", "/github/workspace", "--rm"}
	cmdEnv := []string{"PATH=" + os.Getenv("PATH"), "DOCKER_HOST=" + os.Getenv("DOCKER_HOST")}
	for k, v := range env {
		args = append(args, "-e", k)
		cmdEnv = append(cmdEnv, k+"="+v)
	}
	args = append(args, "-e", "GITHUB_ACTIONS=true", "-e", "CI=true")
	if user != "" {
		args = append(args, "--user", user)
	}
	args = append(args, "--network", "host")
	if sock, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		args = append(args, "-v", sock+":/var/run/docker.sock")
	}
	args = append(args,
		"-v", j.temp+":/github/runner_temp",
		"-v", filepath.Join(j.temp, "_github_home")+":/github/home",
		"-v", filepath.Join(j.temp, "_github_workflow")+":/github/workflow",
		"-v", filepath.Join(j.temp, "_runner_file_commands")+":/github/file_commands",
		"-v", j.ws+":/github/workspace",
		img, "run")
	cmd := exec.Command("docker", args...)
	cmd.Env = cmdEnv
	var at time.Duration
	once := &sync.Once{}
	start := time.Now()
	stdout := &firstWrite{start: start, at: &at, once: once}
	stderr := &firstWrite{start: start, at: &at, once: once}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(j.output)
	sum, _ := os.ReadFile(j.summary)
	return result{code: code, stdout: stdout.buf.String(), stderr: stderr.buf.String(),
		outputs: parseOutputs(t, out), summary: string(sum), firstLine: at}
}

// parseOutputs reads a GITHUB_OUTPUT file of name<<delimiter blocks.
func parseOutputs(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<delimiter", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// rootOwned lists what in dir belongs to root.
func rootOwned(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

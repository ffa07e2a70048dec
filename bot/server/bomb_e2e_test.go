package server_test

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the bot's peak memory: %v", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestBotSurvivesAZipBomb runs the gcloop binary as the App and sends it a
// fork's run whose artifact is a 1 MB zip that expands to 1 GB of
// evidence: the round is refused in the report with a neutral check, the
// delivery is done, the process's peak RSS stays under 256 MiB, and the
// next delivery is worked on as usual. GCLOOP_BOMB_BINARY runs another
// build instead (to measure one from before the budget; it then fails).
func TestBotSurvivesAZipBomb(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak RSS is read from /proc/<pid>/status")
	}
	bin := os.Getenv("GCLOOP_BOMB_BINARY")
	if bin == "" {
		bin = gcloop(t)
	}
	w := newWorld(t)
	tmp := t.TempDir()
	b := startBot(t, bin, "GCLOOP_WEBHOOK_SECRET="+secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
		"GCLOOP_APP_PRIVATE_KEY_FILE="+w.keyFile, "GITHUB_API_URL="+w.gh.URL(), "TMPDIR="+tmp)
	idle := peakRSS(t, b.cmd.Process.Pid)

	bomb := ghfake.FindingsZip(t, 16, 1000<<20/16)
	if len(bomb) > 2<<20 {
		t.Fatalf("the bomb is %d bytes, want about 1.3 MB", len(bomb))
	}
	payload := w.workflowRun(t)
	run := payload["workflow_run"].(map[string]any)
	runID := w.gh.AddWorkflowRun(owner, repo, ghfake.RunSpec{Name: "review", HeadSHA: w.head, HeadBranch: "feature/cart", PullRequests: []int{w.pr}})
	w.gh.AddArtifact(owner, repo, runID, "review-results", bomb)
	run["id"] = runID

	start := time.Now()
	if status, body := b.deliver(t, "workflow_run", "bomb-1", payload); status != http.StatusAccepted {
		t.Fatalf("workflow_run delivery: %d %s", status, body)
	}
	// Waited for longer than waitFor does: a build without the budget
	// takes minutes over the gigabyte.
	var metrics string
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		metrics = b.metrics(t)
		if strings.Contains(metrics, `gcloop_deliveries_total{event="workflow_run",result="done"} 1`) ||
			strings.Contains(metrics, `gcloop_deliveries_total{event="workflow_run",result="failed"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bomb's delivery was not worked on within 5 minutes (peak RSS %d MiB)\n%s", peakRSS(t, b.cmd.Process.Pid)>>20, b.logs())
		}
	}
	took := time.Since(start)
	peak := peakRSS(t, b.cmd.Process.Pid)
	t.Logf("a %d-byte zip of 16 × %d bytes: worked on in %v; peak RSS %.1f MiB (%.1f MiB idle)", len(bomb), 1000<<20/16, took.Round(time.Millisecond), float64(peak)/(1<<20), float64(idle)/(1<<20))
	if !strings.Contains(metrics, `gcloop_deliveries_total{event="workflow_run",result="done"} 1`) ||
		!strings.Contains(metrics, "gcloop_artifacts_refused_total 1") {
		t.Errorf("the bomb's delivery is not done and counted as refused:\n%s", b.logs())
	}
	if peak > 256<<20 {
		t.Errorf("peak RSS %d MiB, want under 256 MiB", peak>>20)
	}
	comments := w.gh.Comments(owner, repo, w.pr)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "REFUSED") || !strings.Contains(comments[0].Body, `entry "discoveries-01.ndjson"`) ||
		!strings.Contains(comments[0].Body, "budget of 64MiB") {
		t.Fatalf("report comments %+v, want one refusing the bomb by its entry and the budget", comments)
	}
	if runs := w.gh.CheckRuns(owner, repo); len(runs) != 1 || runs[0].Conclusion != "neutral" {
		t.Errorf("check runs %+v, want one neutral", runs)
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("the bot's temporary directory holds %v (%v), want nothing left of the download", left, err)
	}

	// The next delivery is worked on as usual: the bot is alive and the
	// refusal used up no round.
	if status, body := b.deliver(t, "workflow_run", "run-2", w.workflowRun(t)); status != http.StatusAccepted {
		t.Fatalf("workflow_run delivery: %d %s", status, body)
	}
	waitFor(t, b, "the next run's report", func() bool {
		c := w.gh.Comments(owner, repo, w.pr)
		return len(c) == 1 && !strings.Contains(c[0].Body, "REFUSED") && strings.Contains(c[0].Body, "round 1 of 3")
	})
	if code := b.stop(t); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0\n%s", code, b.logs())
	}
}

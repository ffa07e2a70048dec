package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// replicas starts n gcloop bot processes as the App on one PostgreSQL
// database.
func replicas(t *testing.T, w *world, n int, env ...string) []*bot {
	t.Helper()
	url := pgtest.URL(t)
	bin := gcloop(t)
	out := make([]*bot, n)
	for i := range out {
		out[i] = startBot(t, bin, append([]string{"GCLOOP_WEBHOOK_SECRET=" + secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
			"GCLOOP_APP_PRIVATE_KEY_FILE=" + w.keyFile, "GITHUB_API_URL=" + w.gh.URL(), "GCLOOP_DATABASE_URL=" + url}, env...)...)
	}
	return out
}

// TestReplicasShareOneDelivery: the same delivery sent to two replicas on
// one database is queued once and has one effect.
func TestReplicasShareOneDelivery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bots := replicas(t, w, 2)
	payload := w.workflowRun(t)
	statuses := map[int]int{}
	for _, b := range bots {
		status, body := b.deliver(t, "workflow_run", "run-1", payload)
		statuses[status]++
		if status == http.StatusOK && !strings.Contains(body, `"duplicate":true`) {
			t.Errorf("second replica's answer %q, want a duplicate", body)
		}
	}
	if statuses[http.StatusAccepted] != 1 || statuses[http.StatusOK] != 1 {
		t.Fatalf("answers %v, want one 202 and one 200", statuses)
	}
	waitFor(t, bots[0], "the delivery to be done on a replica", func() bool {
		for _, b := range bots {
			if strings.Contains(b.metrics(t), `gcloop_deliveries_total{event="workflow_run",result="done"} 1`) {
				return true
			}
		}
		return false
	})
	if c := w.gh.Comments(owner, repo, w.pr); len(c) != 1 {
		t.Errorf("%d report comments, want 1", len(c))
	}
	for i, b := range bots {
		if code := b.stop(t); code != 0 {
			t.Errorf("replica %d: exit %d after SIGTERM\n%s", i, code, b.logs())
		}
	}
}

// TestReplicaTakesOverTheWorkOfOneKilled: a replica killed (SIGKILL)
// while it works on a delivery loses the delivery to another replica once
// its lease runs out; the round is done once.
func TestReplicaTakesOverTheWorkOfOneKilled(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bots := replicas(t, w, 2, "GCLOOP_LEASE=2s")
	a, b := bots[0], bots[1]
	// The round's artifact listing hangs long enough to kill A in it.
	w.gh.Delay("GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", 1500*time.Millisecond)
	if status, body := a.deliver(t, "workflow_run", "run-1", w.workflowRun(t)); status != http.StatusAccepted {
		t.Fatalf("delivery to A: %d %s", status, body)
	}
	waitFor(t, a, "A to be in the round", func() bool {
		for _, r := range w.gh.Requests() {
			if strings.HasSuffix(r.Path, "/artifacts") {
				return true
			}
		}
		return false
	})
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	waitFor(t, b, "B to finish A's delivery", func() bool {
		return strings.Contains(b.metrics(t), `gcloop_deliveries_total{event="workflow_run",result="done"} 1`)
	})
	if c := w.gh.Comments(owner, repo, w.pr); len(c) != 1 || c[0].Author != slug+"[bot]" {
		t.Errorf("report comments %+v, want the App's one", c)
	}
	if code := b.stop(t); code != 0 {
		t.Errorf("B: exit %d after SIGTERM\n%s", code, b.logs())
	}
}

package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestBotLoopHistoryEndToEnd runs the bot process with a dashboard token:
// a completed critic run makes a round, and the loop's history comes back
// from GET /api/loops/{owner}/{repo}/{pr} — the run, the sha, the counts,
// the critic run's start and end (run_started_at → updated_at) and how
// long it took — and the audit log from GET /api/events?format=ndjson,
// one event per line, every one about the loop naming it; neither without
// the token.
func TestBotLoopHistoryEndToEnd(t *testing.T) {
	t.Parallel()
	const token = "e2e-dashboard-token-0123456789"
	w := newWorld(t)
	b := startBot(t, gcloop(t), "GCLOOP_WEBHOOK_SECRET="+secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
		"GCLOOP_APP_PRIVATE_KEY_FILE="+w.keyFile, "GITHUB_API_URL="+w.gh.URL(), "GCLOOP_DASHBOARD_TOKEN="+token)

	started := time.Date(2026, 11, 26, 9, 15, 0, 0, time.UTC)
	ended := started.Add(6*time.Minute + 41*time.Second)
	payload := w.workflowRun(t)
	run := payload["workflow_run"].(map[string]any)
	run["run_started_at"], run["updated_at"] = started.Format(time.RFC3339), ended.Format(time.RFC3339)
	if status, body := b.deliver(t, "workflow_run", "run-1", payload); status != http.StatusAccepted {
		t.Fatalf("workflow_run delivery: %d %s", status, body)
	}
	waitFor(t, b, "the round's report comment", func() bool { return len(w.gh.Comments(owner, repo, w.pr)) == 1 })

	get := func(path string, auth bool) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, b.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, path := range []string{fmt.Sprintf("/api/loops/%s/%s/%d", owner, repo, w.pr), "/api/events?format=ndjson"} {
		resp := get(path, false)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, resp.StatusCode)
		}
	}

	type round struct {
		Round      int
		SHA        string
		Run        int64
		RunAttempt int `json:"run_attempt"`
		State      string
		Decision   string
		Counts     *struct{ Critical, High, Medium, Low int }
		Movement   *struct{ Previous, Fixed, New, Persisting int }
		Actor      string
		Started    time.Time
		Ended      time.Time
		Duration   *float64 `json:"duration_seconds"`
	}
	var h struct {
		Repo  string
		PR    int
		Loops []struct {
			Loop   string
			Rounds []round
		}
	}
	waitFor(t, b, "the round in the loop's history", func() bool {
		resp := get(fmt.Sprintf("/api/loops/%s/%s/%d", owner, repo, w.pr), true)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return len(h.Loops) == 1 && len(h.Loops[0].Rounds) == 1
	})
	runID := run["id"].(int64)
	r := h.Loops[0].Rounds[0]
	if h.Repo != owner+"/"+repo || h.PR != w.pr || h.Loops[0].Loop != "review" {
		t.Errorf("history of %s#%d loop %s, want %s/%s#%d review", h.Repo, h.PR, h.Loops[0].Loop, owner, repo, w.pr)
	}
	if r.Round != 1 || r.SHA != w.head || r.Run != runID || r.RunAttempt != 1 || r.State != "decided" || r.Decision == "" || r.Counts == nil || r.Actor != "dev" {
		t.Errorf("round %+v, want round 1 of run %d on %s, decided by dev's run, with counts", r, runID, w.head)
	}
	// The first round compares with none: its blocking findings are new.
	if m := r.Movement; m == nil || m.Previous != 0 || m.Fixed != 0 || m.Persisting != 0 || m.New != r.Counts.Critical+r.Counts.High {
		t.Errorf("round 1 movement %+v, want every blocking finding new (counts %+v)", m, r.Counts)
	}
	if !r.Started.Equal(started) || !r.Ended.Equal(ended) || r.Duration == nil || *r.Duration != 401 {
		t.Errorf("round times %v → %v (%v s), want the critic run's %v → %v (401 s)", r.Started, r.Ended, r.Duration, started, ended)
	}
	if resp := get(fmt.Sprintf("/api/loops/%s/%s/%d", owner, repo, w.pr+1), true); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a pull request without a loop: %d, want 404", resp.StatusCode)
	} else {
		resp.Body.Close()
	}

	resp := get("/api/events?format=ndjson&since=0", true)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/x-ndjson" {
		t.Fatalf("ndjson: %d %q, want 200 application/x-ndjson", resp.StatusCode, ct)
	}
	sc := bufio.NewScanner(resp.Body)
	var last int64
	types := map[string]int{}
	for sc.Scan() {
		var e struct {
			ID         int64
			Type, Loop string
			PR         int
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if e.ID <= last {
			t.Errorf("event %d after %d", e.ID, last)
		}
		last = e.ID
		types[e.Type]++
		if e.Type != "delivery" && e.PR == w.pr && e.Loop != "review" {
			t.Errorf("event %d (%s) about #%d names loop %q, want review", e.ID, e.Type, e.PR, e.Loop)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if types["round"] != 1 || types["decision"] != 1 || types["delivery"] == 0 {
		t.Errorf("event types %v, want a delivery, one round and one decision", types)
	}
}

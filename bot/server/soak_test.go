package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// The soak test: three replicas of the built gcloop bot on one PostgreSQL
// serve ten installations and fifty pull requests for a while, as GitHub
// would send their deliveries — late, twice, replayed under new ids —
// while a replica is killed with SIGKILL every few seconds, PostgreSQL is
// restarted once, and the fake GitHub answers bursts of 502s and secondary
// rate limits. Afterwards every delivery's effect happened exactly once.
//
// GCLOOP_SOAK sets how long the chaos lasts (default 30s, for CI); by hand,
// e.g. GCLOOP_SOAK=5m go test -run TestSoak -v ./bot/server.

const (
	soakInstallations = 10
	soakPullsEach     = 5
	soakReplicas      = 3
	soakSecret        = "soak-webhook-secret-0123456789abcdef"
	soakSlug          = "gcloop-soak"
	soakAppID         = 7070
	soakLoop          = "review"
	// soakWritesPerMinute is the pacer's limit in the soak, below GitHub's
	// 80 so that the test sees it hold under load.
	soakWritesPerMinute = 40
)

// soakKind is what happens on one pull request.
type soakKind int

const (
	// fixThenConverge: round 1 finds criticals (fix issues open), a push,
	// round 2 is clean (converged, issues closed).
	fixThenConverge soakKind = iota
	// fixThenAbort: round 1 finds criticals, a maintainer's /gc abort.
	fixThenAbort
	// lateOldRun: the newer run is delivered first; the older run of the
	// earlier head arrives late and must change nothing.
	lateOldRun
)

func (k soakKind) String() string {
	return [...]string{"fix-then-converge", "fix-then-abort", "late-old-run"}[k]
}

// soakPull is one pull request of the soak and what it saw.
type soakPull struct {
	owner, repo  string
	installation int64
	repoID       int64
	number       int
	kind         soakKind
	head1, head2 string
	branch       string
}

func (p *soakPull) String() string {
	return fmt.Sprintf("%s/%s#%d (%s)", p.owner, p.repo, p.number, p.kind)
}

// soakFigures are counted as the soak runs.
type soakFigures struct {
	sent, duplicates, replays, refusedSends atomic.Int64
	kills, restarts, faults                 atomic.Int64
}

// soakCluster is the replicas of one soak: killed and started again by the
// test's goroutine, picked at random by the senders.
type soakCluster struct {
	t    *testing.T
	bin  string
	env  []string
	mu   sync.Mutex
	bots []*bot
}

func (c *soakCluster) start() *bot {
	c.t.Helper()
	return startBot(c.t, c.bin, c.env...)
}

// url is a live replica's address, at random.
func (c *soakCluster) url() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bots[rand.IntN(len(c.bots))].url
}

// killOne kills a replica with SIGKILL and starts a new one in its place.
func (c *soakCluster) killOne() {
	c.t.Helper()
	c.mu.Lock()
	i := rand.IntN(len(c.bots))
	victim := c.bots[i]
	c.mu.Unlock()
	_ = victim.cmd.Process.Kill()
	<-victim.exited
	fresh := c.start()
	c.mu.Lock()
	c.bots[i] = fresh
	c.mu.Unlock()
}

func soakDuration(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv("GCLOOP_SOAK")
	if s == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("GCLOOP_SOAK=%q: want a duration such as 5m", s)
	}
	return d
}

func TestSoak(t *testing.T) {
	chaos := soakDuration(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster, err := pgtest.Start(ctx, pgtest.Config{BinDir: os.Getenv(pgtest.BinDirEnv)})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL for the soak test (CI=true): %v", err)
		}
		t.Skipf("no PostgreSQL for the soak test: %v", err)
	}
	t.Cleanup(func() { cluster.Stop() })
	dbURL, err := cluster.CreateDatabase(ctx, "soak")
	if err != nil {
		t.Fatal(err)
	}

	gh, pulls, keyFile := soakWorld(t)
	replicas := &soakCluster{t: t, bin: gcloop(t), env: []string{
		"GCLOOP_WEBHOOK_SECRET=" + soakSecret, fmt.Sprintf("GCLOOP_APP_ID=%d", soakAppID),
		"GCLOOP_APP_PRIVATE_KEY_FILE=" + keyFile, "GITHUB_API_URL=" + gh.URL(), "GCLOOP_DATABASE_URL=" + dbURL,
		"GCLOOP_LEASE=2s", fmt.Sprintf("GCLOOP_GITHUB_WRITES_PER_MINUTE=%d", soakWritesPerMinute),
		// Retries within the soak's bounds: GitHub's faults here pass in
		// seconds, and the drain is watched for two minutes.
		"GCLOOP_RETRY_BACKOFF=1s", "GCLOOP_RETRY_BACKOFF_MAX=5s",
	}}
	for range soakReplicas {
		replicas.bots = append(replicas.bots, replicas.start())
	}

	arts := newSoakArtifacts(t)
	var fig soakFigures
	start := time.Now()
	deadline := start.Add(chaos + 2*time.Minute) // the script's own bound
	var wg sync.WaitGroup
	var problemsMu sync.Mutex
	var problems []string
	for _, p := range pulls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Spread the pull requests' first rounds over the first third
			// of the chaos.
			time.Sleep(time.Duration(rand.Int64N(int64(chaos/3) + 1)))
			if err := soakScript(gh, replicas, p, arts, &fig, deadline); err != nil {
				problemsMu.Lock()
				problems = append(problems, fmt.Sprintf("%v: %v", p, err))
				problemsMu.Unlock()
			}
		}()
	}
	scriptDone := make(chan struct{})
	go func() { wg.Wait(); close(scriptDone) }()

	// The chaos, on the test's goroutine: kills, one PostgreSQL restart,
	// bursts of faults.
	kill := time.NewTicker(3 * time.Second)
	defer kill.Stop()
	fault := time.NewTicker(2 * time.Second)
	defer fault.Stop()
	restartAt := time.After(chaos / 2)
	chaosEnd := time.After(chaos)
chaos:
	for {
		select {
		case <-kill.C:
			replicas.killOne()
			fig.kills.Add(1)
		case <-fault.C:
			soakFault(gh, int(fig.faults.Add(1)))
		case <-restartAt:
			rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err := cluster.Restart(rctx)
			rcancel()
			if err != nil {
				t.Fatalf("restart PostgreSQL: %v", err)
			}
			fig.restarts.Add(1)
		case <-chaosEnd:
			break chaos
		}
	}
	<-scriptDone // each script gives up at the deadline
	problemsMu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	problemsMu.Unlock()

	// Drained: nothing pending or claimed anywhere, for a second.
	drainStart := time.Now()
	if !soakDrained(replicas, time.Now().Add(2*time.Minute)) {
		t.Errorf("the queue did not drain (gcloop_queue_depth > 0 after %v)", time.Since(drainStart).Round(time.Second))
	}
	drain := time.Since(start) - chaos
	// Nothing gave up: no dead delivery.
	if dead := soakDead(t, replicas); len(dead) > 0 {
		t.Errorf("%d dead deliveries:\n%s", len(dead), strings.Join(dead, "\n"))
	}
	checked := soakCheck(t, gh, pulls)

	t.Logf("soak: %v of chaos, drained %v after it; %d deliveries sent (%d resent after a refused send), %d duplicates, %d replays under new ids; "+
		"%d SIGKILLs, %d PostgreSQL restart, %d fault bursts; %d pull requests and %d effects checked; %d GitHub requests",
		chaos, drain.Round(100*time.Millisecond), fig.sent.Load(), fig.refusedSends.Load(), fig.duplicates.Load(), fig.replays.Load(),
		fig.kills.Load(), fig.restarts.Load(), fig.faults.Load(), len(pulls), checked, len(gh.Requests()))
	if t.Failed() {
		replicas.mu.Lock()
		t.Logf("log of one replica:\n%s", lastLines(replicas.bots[0].logs(), 60))
		replicas.mu.Unlock()
	}
}

// soakWorld is the fake GitHub of the soak: an App installed on ten
// accounts, a repository each, five pull requests in each.
func soakWorld(t *testing.T) (*ghfake.Server, []*soakPull, string) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, ghfake.KeyPEM(ghfake.AppKeys()[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	const config = "review:\n  bot:\n    artifacts: [review-results]\n"
	gh := ghfake.New(t)
	gh.AddApp(ghfake.AppSpec{ID: soakAppID, Slug: soakSlug, Key: &ghfake.AppKeys()[0].PublicKey})
	var pulls []*soakPull
	for i := range soakInstallations {
		owner, repoName, repoID := fmt.Sprintf("org%d", i), "svc", int64(1000+i)
		gh.AddInstallation(soakAppID, int64(500+i), owner)
		gh.AddRepo(owner, repoName, repoID, "main")
		base := gh.AddCommit(owner, repoName, "main", map[string][]byte{"README.md": []byte("# svc\n"), ".github/gcloop.yml": []byte(config)})
		gh.AddFile(owner, repoName, "main", ".github/gcloop.yml", []byte(config))
		gh.SetPermission(owner, repoName, "lead", "write")
		for j := range soakPullsEach {
			branch := fmt.Sprintf("feature/%d", j)
			head1 := gh.AddCommit(owner, repoName, branch, map[string][]byte{"README.md": []byte("# svc\n"), "app.go": []byte("package app\n")}, base)
			n := gh.AddPull(owner, repoName, ghfake.PullSpec{Title: "Change " + strconv.Itoa(j), User: "dev", HeadSHA: head1, HeadRef: branch, BaseSHA: base})
			pulls = append(pulls, &soakPull{owner: owner, repo: repoName, installation: int64(500 + i), repoID: repoID,
				number: n, kind: soakKind((i*soakPullsEach + j) % 3), head1: head1, branch: branch})
		}
	}
	return gh, pulls, keyFile
}

// soakArtifacts are the zips of the two review results: round 1's, with
// criticals and highs in two files, and a clean one.
type soakArtifacts struct{ fix, clean []byte }

func newSoakArtifacts(t *testing.T) soakArtifacts {
	t.Helper()
	review, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "review", "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	return soakArtifacts{
		fix:   ghfake.Zip(t, map[string][]byte{"review-results.json": review}),
		clean: ghfake.Zip(t, map[string][]byte{"review-results.json": []byte(`{"review_score": 9, "gc_signal": "CONVERGED", "findings": []}`)}),
	}
}

// soakScript plays one pull request's deliveries, waiting for each round's
// report as a person would before the next push or command.
func soakScript(gh *ghfake.Server, c *soakCluster, p *soakPull, arts soakArtifacts, fig *soakFigures, deadline time.Time) error {
	run := func(sha string, zip []byte) (int64, []byte) {
		id := gh.AddWorkflowRun(p.owner, p.repo, ghfake.RunSpec{Name: "review", HeadSHA: sha, HeadBranch: p.branch, PullRequests: []int{p.number}})
		gh.AddArtifact(p.owner, p.repo, id, "review-results", zip)
		return id, p.workflowRun(id, sha)
	}
	prefix := fmt.Sprintf("%s-%s-%d-", p.owner, p.repo, p.number)
	send := func(event, id string, body []byte) error { return soakSend(c, fig, event, prefix+id, body, deadline) }
	switch p.kind {
	case fixThenConverge:
		_, run1 := run(p.head1, arts.fix)
		if err := send("workflow_run", "run1", run1); err != nil {
			return err
		}
		if err := soakWait(gh, p, deadline, "round 1", func(st *decide.State) bool { return len(st.Rounds) >= 1 }); err != nil {
			return err
		}
		p.head2 = p.push(gh)
		_, run2 := run(p.head2, arts.clean)
		if err := send("workflow_run", "run2", run2); err != nil {
			return err
		}
		// The first run's body again, under a new delivery id.
		fig.replays.Add(1)
		if err := send("workflow_run", "run1-replayed", run1); err != nil {
			return err
		}
		return soakWait(gh, p, deadline, "round 2 converged", func(st *decide.State) bool {
			return len(st.Rounds) >= 2 && st.Status == decide.StateConverged
		})
	case fixThenAbort:
		_, run1 := run(p.head1, arts.fix)
		if err := send("workflow_run", "run1", run1); err != nil {
			return err
		}
		if err := soakWait(gh, p, deadline, "round 1", func(st *decide.State) bool { return len(st.Rounds) >= 1 }); err != nil {
			return err
		}
		if err := send("issue_comment", "abort", p.comment(gh, "lead", "/gc abort")); err != nil {
			return err
		}
		fig.replays.Add(1)
		if err := send("workflow_run", "run1-replayed", run1); err != nil {
			return err
		}
		return soakWait(gh, p, deadline, "the abort", func(st *decide.State) bool { return st.Status == decide.StateAborted })
	default: // lateOldRun
		_, run1 := run(p.head1, arts.fix) // the older run: its id is lower
		p.head2 = p.push(gh)
		_, run2 := run(p.head2, arts.clean)
		if err := send("workflow_run", "run2", run2); err != nil {
			return err
		}
		if err := soakWait(gh, p, deadline, "round 1 converged", func(st *decide.State) bool {
			return len(st.Rounds) >= 1 && st.Status == decide.StateConverged
		}); err != nil {
			return err
		}
		return send("workflow_run", "run1-late", run1)
	}
}

// push moves the pull request's head to a new commit.
func (p *soakPull) push(gh *ghfake.Server) string {
	sha := gh.AddCommit(p.owner, p.repo, p.branch, map[string][]byte{"README.md": []byte("# svc\n"), "app.go": []byte("package app // fixed\n")}, p.head1)
	gh.MovePullHead(p.owner, p.repo, p.number, sha)
	return sha
}

// soakSend delivers a signed body to a live replica, and once more under
// the same id to another (a redelivery); a send that a killed replica or a
// restarting database refused is sent again, as an operator's redelivery
// of a failed delivery does.
func soakSend(c *soakCluster, fig *soakFigures, event, id string, body []byte, deadline time.Time) error {
	acked := 0
	for acked < 2 {
		if time.Now().After(deadline) {
			return fmt.Errorf("delivery %s not acknowledged before the deadline", id)
		}
		status, err := soakPost(c.url(), event, id, body)
		switch {
		case err == nil && (status == http.StatusAccepted || status == http.StatusOK):
			if acked == 0 {
				fig.sent.Add(1)
			} else {
				fig.duplicates.Add(1)
			}
			acked++
		case err == nil && status < 500:
			return fmt.Errorf("delivery %s: HTTP %d", id, status)
		default:
			fig.refusedSends.Add(1)
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

func soakPost(url, event, id string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(soakSecret), body))
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// soakWait polls the pull request's report until its state satisfies ok.
func soakWait(gh *ghfake.Server, p *soakPull, deadline time.Time, what string, ok func(*decide.State) bool) error {
	for {
		if st, _ := soakState(gh, p); st != nil && ok(st) {
			return nil
		}
		if time.Now().After(deadline) {
			st, n := soakState(gh, p)
			return fmt.Errorf("waited in vain for %s: %d report comments, state %s", what, n, describeState(st))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// soakState is the state of the pull request's report comment, and how
// many report comments it has.
func soakState(gh *ghfake.Server, p *soakPull) (*decide.State, int) {
	var st *decide.State
	n := 0
	for _, c := range gh.Comments(p.owner, p.repo, p.number) {
		if c.Author != soakSlug+"[bot]" || !report.HasMarker(c.Body) {
			continue
		}
		n++
		if s, err := report.ParseMarker(c.Body, soakLoop); err == nil && st == nil {
			st = s
		}
	}
	return st, n
}

func describeState(st *decide.State) string {
	if st == nil {
		return "none"
	}
	var rounds []string
	for _, r := range st.Rounds {
		rounds = append(rounds, fmt.Sprintf("%d:%s@%.7s", r.N, r.Decision, r.SHA))
	}
	return fmt.Sprintf("%s, rounds [%s]", st.Status, strings.Join(rounds, " "))
}

// soakFault injects a burst of failures: 502s on a write the rounds make,
// or a secondary rate limit.
func soakFault(gh *ghfake.Server, n int) {
	rules := []ghfake.FailRule{
		{Pattern: "POST /repos/{owner}/{repo}/check-runs", Status: http.StatusBadGateway, Times: 3},
		{Pattern: "POST /repos/{owner}/{repo}/issues", Status: http.StatusForbidden, Times: 2, RetryNow: true,
			Message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."},
		{Pattern: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", Status: http.StatusBadGateway, Times: 3},
		{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: http.StatusTooManyRequests, Times: 2, RetryNow: true},
	}
	gh.Fail(rules[n%len(rules)])
}

// soakDrained waits until the shared queue is empty for a second.
func soakDrained(c *soakCluster, deadline time.Time) bool {
	re := regexp.MustCompile(`(?m)^gcloop_queue_depth (\d+)`)
	quiet := 0
	for time.Now().Before(deadline) {
		resp, err := http.Get(c.url() + "/metrics")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := re.FindSubmatch(body); m != nil && string(m[1]) == "0" {
				if quiet++; quiet >= 10 {
					return true
				}
			} else {
				quiet = 0
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// soakDead lists the dead deliveries, one line each.
func soakDead(t *testing.T, c *soakCluster) []string {
	t.Helper()
	resp, err := http.Get(c.url() + "/api/deliveries?state=dead&limit=100")
	if err != nil {
		t.Errorf("list the dead deliveries: %v", err)
		return nil
	}
	defer resp.Body.Close()
	var out struct {
		Deliveries []struct {
			ID, Error string
			Attempts  int
		} `json:"deliveries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("list the dead deliveries: HTTP %d, %v", resp.StatusCode, err)
		return nil
	}
	var lines []string
	for _, d := range out.Deliveries {
		lines = append(lines, fmt.Sprintf("%s after %d attempts: %s", d.ID, d.Attempts, d.Error))
	}
	return lines
}

// soakCheck checks every pull request's effects and returns how many it
// checked.
func soakCheck(t *testing.T, gh *ghfake.Server, pulls []*soakPull) int {
	t.Helper()
	checked := 0
	check := func(p *soakPull, ok bool, format string, args ...any) {
		t.Helper()
		checked++
		if !ok {
			t.Errorf("%v: "+format, append([]any{p}, args...)...)
		}
	}
	issuesByRepo := map[string][]ghfake.Issue{}
	for _, p := range pulls {
		key := p.owner + "/" + p.repo
		if _, ok := issuesByRepo[key]; !ok {
			issuesByRepo[key] = gh.Issues(p.owner, p.repo)
		}
		st, reports := soakState(gh, p)
		check(p, reports == 1, "%d report comments, want exactly 1", reports)
		if st == nil {
			check(p, false, "no readable state in the report")
			continue
		}
		// The rounds, at the right shas.
		switch p.kind {
		case fixThenConverge:
			check(p, st.Status == decide.StateConverged && len(st.Rounds) == 2 && st.Rounds[0].SHA == p.head1 && st.Rounds[1].SHA == p.head2,
				"state %s; want converged in 2 rounds on %.7s then %.7s", describeState(st), p.head1, p.head2)
		case fixThenAbort:
			check(p, st.Status == decide.StateAborted && len(st.Rounds) == 1 && st.Rounds[0].SHA == p.head1,
				"state %s; want aborted after 1 round on %.7s", describeState(st), p.head1)
		case lateOldRun:
			check(p, st.Status == decide.StateConverged && len(st.Rounds) == 1 && st.Rounds[0].SHA == p.head2,
				"state %s; want converged in 1 round on %.7s (the late old run ignored)", describeState(st), p.head2)
		}
		// Fix issues: one per file of round 1's criticals and highs, none
		// twice, all closed once the loop settled.
		titles := map[string]int{}
		open := 0
		for _, is := range issuesByRepo[p.owner+"/"+p.repo] {
			if is.IsPull || is.Author != soakSlug+"[bot]" || !strings.Contains(is.Title, fmt.Sprintf("(PR #%d,", p.number)) {
				continue
			}
			titles[is.Title]++
			if is.State == "open" {
				open++
			}
		}
		want := 2
		if p.kind == lateOldRun {
			want = 0
		}
		check(p, len(titles) == want, "fix issues %v, want %d distinct", titles, want)
		for title, n := range titles {
			check(p, n == 1, "fix issue %q opened %d times", title, n)
		}
		check(p, open == 0, "%d fix issues still open after the loop settled", open)
		// Checks: never one on the old head after the new head was judged.
		var runs []ghfake.CheckRun
		for _, cr := range gh.CheckRuns(p.owner, p.repo) {
			if cr.Name == "gcloop / "+soakLoop && (cr.HeadSHA == p.head1 || cr.HeadSHA == p.head2) {
				runs = append(runs, cr)
			}
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
		firstNew := int64(-1)
		for _, cr := range runs {
			if p.head2 != "" && cr.HeadSHA == p.head2 && firstNew < 0 {
				firstNew = cr.ID
			}
		}
		for _, cr := range runs {
			check(p, !(cr.HeadSHA == p.head1 && firstNew >= 0 && cr.ID > firstNew), "check run %d on the old head %.7s written after the new head was judged", cr.ID, p.head1)
			check(p, !(p.kind == lateOldRun && cr.HeadSHA == p.head1), "check run %d (%s) on the old head of a late run", cr.ID, cr.Conclusion)
		}
		if len(runs) > 0 {
			last := runs[len(runs)-1]
			wantConclusion := map[soakKind]string{fixThenConverge: "success", fixThenAbort: "failure", lateOldRun: "success"}[p.kind]
			check(p, last.Conclusion == wantConclusion, "last check run %s, want %s", last.Conclusion, wantConclusion)
		} else {
			check(p, false, "no check run")
		}
	}
	// The pacer's limit, shared by the replicas: at most
	// soakWritesPerMinute content-creating requests a minute per
	// installation.
	byOwner := map[string][]time.Time{}
	for _, r := range gh.Requests() {
		if r.Method == http.MethodGet || !strings.HasPrefix(r.Path, "/repos/") {
			continue
		}
		owner, _, _ := strings.Cut(strings.TrimPrefix(r.Path, "/repos/"), "/")
		byOwner[owner] = append(byOwner[owner], r.Arrived)
	}
	// The pacer books a request before it is sent, by the database's
	// clock; the fake notes when it arrived. The window checked is a
	// second shorter than the pacer's, for the time between the two.
	for owner, times := range byOwner {
		for i := range times {
			j := i
			for j < len(times) && times[j].Sub(times[i]) < time.Minute-time.Second {
				j++
			}
			if j-i > soakWritesPerMinute {
				t.Errorf("%s: %d content-creating requests within a minute, over the pacer's %d", owner, j-i, soakWritesPerMinute)
				break
			}
		}
		checked++
	}
	return checked
}

func (p *soakPull) repository() map[string]any {
	full := p.owner + "/" + p.repo
	return map[string]any{"id": p.repoID, "name": p.repo, "full_name": full, "html_url": "https://github.com/" + full,
		"default_branch": "main", "owner": map[string]any{"login": p.owner, "type": "Organization"}}
}

// workflowRun is the body of a completed workflow_run delivery.
func (p *soakPull) workflowRun(runID int64, sha string) []byte {
	side := map[string]any{"ref": p.branch, "sha": sha, "repo": map[string]any{"id": p.repoID, "name": p.repo}}
	body, _ := json.Marshal(map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{
			"id": runID, "name": "review", "head_branch": p.branch, "head_sha": sha, "run_attempt": 1,
			"event": "pull_request", "status": "completed", "conclusion": "success",
			"pull_requests": []any{map[string]any{"number": p.number, "head": side, "base": map[string]any{"ref": "main", "repo": map[string]any{"id": p.repoID, "name": p.repo}}}},
			"repository":    p.repository(), "head_repository": p.repository(),
		},
		"repository": p.repository(), "installation": map[string]any{"id": p.installation},
		"sender": map[string]any{"login": "dev", "type": "User"},
	})
	return body
}

// comment adds a comment to the pull request and returns the body of its
// issue_comment delivery.
func (p *soakPull) comment(gh *ghfake.Server, author, text string) []byte {
	id := gh.AddComment(p.owner, p.repo, p.number, author, text)
	user := map[string]any{"login": author, "type": "User"}
	body, _ := json.Marshal(map[string]any{
		"action": "created",
		"issue": map[string]any{"number": p.number, "user": map[string]any{"login": "dev"},
			"pull_request": map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/%s/pulls/%d", p.owner, p.repo, p.number)}},
		"comment":      map[string]any{"id": id, "body": text, "user": user, "author_association": "MEMBER"},
		"repository":   p.repository(),
		"installation": map[string]any{"id": p.installation},
		"sender":       user,
	})
	return body
}

// lastLines is the end of a log.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

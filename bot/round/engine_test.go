package round_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	registry "github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

const (
	owner = "octo"
	repo  = "shop"
	token = "ghs_roundtoken"
	bot   = "github-actions[bot]"
)

var clock = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// world is a repository on the fake GitHub with one open pull request.
type world struct {
	t          *testing.T
	gh         *ghfake.Server
	pr         int
	head, base string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, bot, true)
	gh.AddWorkflow(owner, repo, "coverage.yml")
	base := gh.AddCommit(owner, repo, "main", map[string][]byte{"README.md": []byte("# shop\n")})
	head := gh.AddCommit(owner, repo, "feature/cart", map[string][]byte{"README.md": []byte("# shop\n"), "cart.go": []byte("package cart\n")}, base)
	pr := gh.AddPull(owner, repo, ghfake.PullSpec{Title: "Cart", User: "dev", HeadSHA: head, HeadRef: "feature/cart", BaseSHA: base})
	return &world{t: t, gh: gh, pr: pr, head: head, base: base}
}

// pull is the world's pull request as an event names it.
func (w *world) pull() *round.Pull {
	return &round.Pull{Number: w.pr, HeadSHA: w.head, HeadRef: "feature/cart", HeadRepoID: 100, BaseRepoID: 100, BaseRef: "main",
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, w.pr)}
}

// engine is a live engine on the fake for ev.
func (w *world) engine(ev round.Event, o round.Options) *round.Engine {
	ev.Owner, ev.Repo, ev.ServerURL = owner, repo, "https://github.com"
	if o.Config == "" {
		o.Config = ".github/gcloop.yml"
	}
	live := &round.Live{Client: w.gh.Client(token), Owner: owner, Repo: repo, Token: token}
	return &round.Engine{GH: live, Event: &ev, Opts: o, Now: func() time.Time { return clock }}
}

// evidence reads the repository's example evidence of a loop.
func evidence(t *testing.T, loop string) *decide.Evidence {
	t.Helper()
	pieces, err := registry.ReadPaths([]string{filepath.Join("..", "..", "testdata", "examples", loop)}, "")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := decide.Merge(pieces...)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// since lists the requests made from index from, as "METHOD path".
func (w *world) since(from int) []string {
	var out []string
	for _, r := range w.gh.Requests()[from:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// mutations counts the requests that write.
func mutations(reqs []string) int {
	n := 0
	for _, r := range reqs {
		if !strings.HasPrefix(r, "GET ") {
			n++
		}
	}
	return n
}

// run runs one round of the world's PR on a pull_request event.
func (w *world) run(t *testing.T, ev *decide.Evidence, o round.Options, runID int64) (*round.Result, []string) {
	t.Helper()
	return w.runIn(t, ev, o, runID, nil, nil)
}

// runIn runs a round whose workspace is the head with changes (a nil
// value deletes the file), on the event's pull request pull (nil: the
// world's).
func (w *world) runIn(t *testing.T, ev *decide.Evidence, o round.Options, runID int64, changes map[string]*string, pull *round.Pull) (*round.Result, []string) {
	t.Helper()
	return w.round(t, ev, o, runID, changes, pull, nil)
}

// runWith is runIn on the world's PR with the engine's GitHub wrapped by
// wrap.
func (w *world) runWith(t *testing.T, ev *decide.Evidence, o round.Options, runID int64, changes map[string]*string, wrap func(round.GitHub) round.GitHub) (*round.Result, []string) {
	t.Helper()
	return w.round(t, ev, o, runID, changes, nil, wrap)
}

func (w *world) round(t *testing.T, ev *decide.Evidence, o round.Options, runID int64, changes map[string]*string, pull *round.Pull, wrap func(round.GitHub) round.GitHub) (*round.Result, []string) {
	t.Helper()
	if pull == nil {
		pull = w.pull()
	}
	ws := t.TempDir()
	files := w.gh.TreeFiles(owner, repo, w.head)
	for name, data := range changes {
		if data == nil {
			delete(files, name)
			continue
		}
		files[name] = []byte(*data)
	}
	for name, data := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	from := len(w.gh.Requests())
	e := w.engine(round.Event{Name: "pull_request", SHA: pull.HeadSHA, RunID: runID, RunAttempt: 1, Pull: pull}, o)
	if wrap != nil {
		e.GH = wrap(e.GH)
	}
	pull, err := e.Pull(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := &round.Result{}
	if err := e.Run(context.Background(), round.Input{Pull: pull, Evidence: ev, Workspace: ws}, res); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, w.since(from)
}

func TestEngineRunsEachLoopOnAPullRequest(t *testing.T) {
	t.Parallel()
	const (
		config   = "GET /repos/octo/shop/contents/.github/gcloop.yml"
		comments = "GET /repos/octo/shop/issues/1/comments"
		issues   = "GET /repos/octo/shop/issues"
		label    = "GET /repos/octo/shop/labels/gcloop"
		newLabel = "POST /repos/octo/shop/labels"
		open     = "POST /repos/octo/shop/issues"
		check    = "POST /repos/octo/shop/check-runs"
		report   = "POST /repos/octo/shop/issues/1/comments"
	)
	tests := []struct {
		loop     string
		outcome  decide.Outcome
		requests []string
	}{
		{"review", decide.Fix, []string{config, comments, issues, label, newLabel, label + ":review", newLabel, open, open, open, check, report}},
		{"critique", decide.Fix, []string{config, comments, check, report}},
		{"audit", decide.Fix, []string{config, comments, issues, label, newLabel, label + ":audit", newLabel, open, open, check, report}},
		{"validation", decide.Fix, []string{config, comments, issues, label, newLabel, label + ":validation", newLabel, open, open, check, report}},
		// The workspace is the head: the guard finds nothing to push.
		{"coverage", decide.Fix, []string{config, comments, "GET /repos/octo/shop/git/commits/HEAD", "GET /repos/octo/shop/git/trees/TREE", check, report}},
	}
	for _, tt := range tests {
		t.Run(tt.loop, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			res, reqs := w.run(t, evidence(t, tt.loop), round.Options{Comment: true, Check: true}, 7)
			if got := res.Decision.Outcome; got != tt.outcome {
				t.Errorf("outcome = %s, want %s", got, tt.outcome)
			}
			for i, r := range reqs {
				reqs[i] = strings.NewReplacer(w.head, "HEAD", w.gh.Commit(owner, repo, w.head).Tree, "TREE").Replace(r)
			}
			if diff := cmp.Diff(tt.requests, reqs); diff != "" {
				t.Logf("%q", reqs)
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			// A re-run of the same run that judges the same: the
			// configuration and the comment, the open issues when the state
			// records some — and no mutation.
			_, again := w.run(t, evidence(t, tt.loop), round.Options{Comment: true, Check: true}, 7)
			want := []string{config, comments}
			if len(res.Issues) > 0 {
				want = append(want, issues)
			}
			if tt.loop == "coverage" {
				// Judging the workspace needs the judged commit's tree,
				// whatever the state says.
				want = append(want, "GET /repos/octo/shop/git/commits/HEAD", "GET /repos/octo/shop/git/trees/TREE")
			}
			for i, r := range again {
				again[i] = strings.NewReplacer(w.head, "HEAD", w.gh.Commit(owner, repo, w.head).Tree, "TREE").Replace(r)
			}
			if diff := cmp.Diff(want, again); diff != "" {
				t.Errorf("unchanged re-run's requests (-want +got):\n%s", diff)
			}
		})
	}
}

var _ = github.String

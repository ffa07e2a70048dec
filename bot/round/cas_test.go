package round_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

// injecting is GitHub with something done to it right after the round
// read its report comment: what lands between a round's read and its
// write.
type injecting struct {
	round.GitHub
	once   sync.Once
	inject func()
	finds  int
}

func (g *injecting) FindReport(ctx context.Context, pr int, loopID string) (report.Found, error) {
	f, err := g.GitHub.FindReport(ctx, pr, loopID)
	g.finds++
	g.once.Do(g.inject)
	return f, err
}

// A /gc abort that lands while a round runs is never overwritten: the
// round's write of the report finds the comment changed, decides the round
// again on the aborted state and carries that plan out — the loop stays
// aborted, its fix issues closed, the round's check a failure.
func TestEngineAbortDuringARoundLeavesTheLoopAborted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.SetPermission(owner, repo, "lead", "write")
	first, _ := w.run(t, evidence(t, "review"), round.Options{Comment: true, Check: true}, 7)
	if len(first.Issues) == 0 {
		t.Fatal("the first round opened no issue")
	}
	// A push: the next round judges a new head.
	w.head = w.gh.AddCommit(owner, repo, "feature/cart", w.gh.TreeFiles(owner, repo, w.head), w.head)
	e := w.engine(round.Event{Name: "pull_request", SHA: w.head, RunID: 8, RunAttempt: 1, Pull: w.pull()}, round.Options{Comment: true, Check: true})
	g := &injecting{GitHub: e.GH, inject: func() {
		res, err := w.engine(w.comment("lead", "/gc abort"), round.Options{ID: "review", Check: true}).Command(context.Background())
		if err != nil || res.Command == nil || res.Command.Refused {
			t.Fatalf("/gc abort during the round: %+v, %v", res, err)
		}
	}}
	e.GH = g
	res := &round.Result{}
	if err := e.Run(context.Background(), round.Input{Pull: w.pull(), Evidence: evidence(t, "review")}, res); err != nil {
		t.Fatal(err)
	}
	if g.finds != 2 {
		t.Errorf("the report was read %d times, want 2 (the round decided again once)", g.finds)
	}
	if d := res.Decision; d.Verdict != "ABORTED" || !strings.Contains(strings.Join(d.Notes, "\n"), "decided again") {
		t.Errorf("verdict %s, notes %q; want ABORTED, decided again", d.Verdict, d.Notes)
	}
	st, err := report.ParseMarker(w.gh.Comments(owner, repo, w.pr)[0].Body, "review")
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != decide.StateAborted || len(st.Actions) != 1 || st.Actions[0].Command != "abort" || st.Last().N != 2 {
		t.Errorf("state %s, actions %+v, last round %d; want aborted by the command, round 2 recorded", st.Status, st.Actions, st.Last().N)
	}
	for _, is := range w.gh.Issues(owner, repo) {
		if !is.IsPull && is.State != "closed" {
			t.Errorf("fix issue #%d is %s after /gc abort", is.Number, is.State)
		}
	}
	for _, c := range w.gh.CheckRuns(owner, repo) {
		if c.HeadSHA == w.head && c.Conclusion != "failure" {
			t.Errorf("check run on the new head: %s, want failure (aborted)", c.Conclusion)
		}
	}
}

// A coverage round whose state changed before its push pushes nothing
// from the stale plan: decided again on the aborted loop, it pushes
// nothing at all.
func TestEngineDoesNotPushFromAStalePlan(t *testing.T) {
	t.Parallel()
	const testFile = "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {}\n"
	w := newWorld(t)
	w.gh.SetPermission(owner, repo, "lead", "write")
	w.run(t, evidence(t, "coverage"), round.Options{Comment: true}, 7)
	before := w.gh.Ref(owner, repo, "heads/feature/cart")
	from := len(w.gh.Requests())
	aborted := false
	res, _ := w.runWith(t, evidence(t, "coverage"), round.Options{Comment: true}, 8, map[string]*string{"cart_test.go": str(testFile)}, func(gh round.GitHub) round.GitHub {
		return &injecting{GitHub: gh, inject: func() {
			if aborted {
				return
			}
			aborted = true
			if _, err := w.engine(w.comment("lead", "/gc abort"), round.Options{ID: "coverage"}).Command(context.Background()); err != nil {
				t.Fatal(err)
			}
		}}
	})
	if after := w.gh.Ref(owner, repo, "heads/feature/cart"); after != before || res.Commit != "" {
		t.Errorf("branch %s → %s, commit %q: pushed from a stale plan", before, after, res.Commit)
	}
	for _, r := range w.since(from) {
		if strings.HasPrefix(r, "POST /repos/octo/shop/git/") {
			t.Errorf("a git object was written: %s", r)
		}
	}
	if res.Decision.Verdict != "ABORTED" || res.Pushfix != nil {
		t.Errorf("verdict %s, change set %+v; want ABORTED and no change set judged for a push", res.Decision.Verdict, res.Pushfix)
	}
}

// A /gc retry that grants an escalated loop one more round while a round
// on a new head runs: the round, decided again on the granted state, is
// judged within the grant, and the grant is kept — not overwritten by a
// plan made without it.
func TestEngineRetryDuringARoundKeepsTheGrant(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 1\n"))
	w.gh.SetPermission(owner, repo, "lead", "write")
	first, _ := w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
	if first.Decision.Outcome != decide.Escalate {
		t.Fatalf("round 1 of 1: %s, want an escalation", first.Decision.Outcome)
	}
	w.head = w.gh.AddCommit(owner, repo, "feature/cart", w.gh.TreeFiles(owner, repo, w.head), w.head)
	res, _ := w.runWith(t, evidence(t, "review"), round.Options{Comment: true}, 8, nil, func(gh round.GitHub) round.GitHub {
		return &injecting{GitHub: gh, inject: func() {
			res, err := w.engine(w.comment("lead", "/gc retry"), round.Options{ID: "review"}).Command(context.Background())
			if err != nil || res.Command == nil || res.Command.Refused {
				t.Fatalf("/gc retry during the round: %+v, %v", res.Command, err)
			}
		}}
	})
	st, err := report.ParseMarker(w.gh.Comments(owner, repo, w.pr)[0].Body, "review")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Grants) != 1 || st.Last().N != 2 || res.Decision.MaxRounds != 2 || len(st.Actions) != 1 || st.Actions[0].Command != "retry" {
		t.Errorf("grants %+v, actions %+v, last round %d of max %d; want the retry's grant kept and round 2 judged within it",
			st.Grants, st.Actions, st.Last().N, res.Decision.MaxRounds)
	}
}

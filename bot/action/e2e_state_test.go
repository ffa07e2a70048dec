package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// End-to-end tests of DESIGN §4 (whose state is trusted), §5.2 (how many
// fix issues a round opens) and §2 (settled loops and the round cap).

// freshMarker is a state marker of loop review with no round: a forger's
// way back to round 1, past the cap.
func freshMarker(t *testing.T) string {
	t.Helper()
	m, err := report.Marker(decide.NewState(decide.Review, "review", 3))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// issuesByState lists the fix issues (not PRs) of the world by state.
func (w *world) issuesByState() (open, closed []int) {
	for _, is := range w.gh.Issues(owner, repo) {
		switch {
		case is.IsPull:
		case is.State == "open":
			open = append(open, is.Number)
		default:
			closed = append(closed, is.Number)
		}
	}
	return open, closed
}

// commentBody returns the body of comment id.
func (w *world) commentBody(id int64) string {
	for _, c := range w.gh.Comments(owner, repo, w.pr) {
		if c.ID == id {
			return c.Body
		}
	}
	w.t.Fatalf("comment %d is gone", id)
	return ""
}

// twoRounds runs a fix round, pushes, and runs the next round with the
// given inputs and environment; it returns the second run.
func (w *world) twoRounds(t *testing.T, in, extra map[string]string) run {
	t.Helper()
	r1 := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, extra: extra})
	if r1.code != 0 || r1.outputs["round"] != "1" || r1.outputs["decision"] != "fix" {
		t.Fatalf("round 1: exit %d outputs %v\n%s", r1.code, r1.outputs, r1.stderr)
	}
	w.push(map[string]string{"cart.go": "package cart // 2\n"})
	return w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, extra: extra, runID: 5100})
}

func TestForgedBotCommentIsNeitherUsedNorEdited(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "2"}
	r1 := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}})
	if r1.code != 0 || r1.outputs["round"] != "1" {
		t.Fatalf("round 1: exit %d outputs %v\n%s", r1.code, r1.outputs, r1.stderr)
	}
	// Another workflow of the repository echoes untrusted text as
	// github-actions[bot]: a fresh state, newer than gcloop's report, once
	// as a bare echo and once in gcloop's own shape.
	echo := "Thanks for the report: " + freshMarker(t)
	shaped := "<!-- gcloop:report review -->\n## gcloop review\n" + freshMarker(t) + "\n"
	idEcho := w.gh.AddComment(owner, repo, w.pr, bot, echo)
	idShaped := w.gh.AddComment(owner, repo, w.pr, bot, shaped)

	w.push(map[string]string{"cart.go": "package cart // 2\n"})
	r2 := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewFix}, runID: 5100})
	if r2.code != 0 || r2.outputs["round"] != "2" || r2.outputs["decision"] != "escalate" {
		t.Fatalf("round 2: exit %d outputs %v, want round 2 escalated at the cap\n%s", r2.code, r2.outputs, r2.stderr)
	}
	if got := w.commentBody(idEcho); got != echo {
		t.Errorf("the echoed comment was edited:\n%s", got)
	}
	if got := w.commentBody(idShaped); got != shaped {
		t.Errorf("the shaped copy was edited:\n%s", got)
	}
	if n := len(w.gh.Comments(owner, repo, w.pr)); n != 3 {
		t.Errorf("%d comments, want gcloop's report and the two others", n)
	}
	report := w.gh.Comments(owner, repo, w.pr)[0].Body
	mustContain(t, "the report", report, "ESCALATE", fmt.Sprintf("comment %d", idEcho), "not gcloop")
	if strings.Contains(report, "Thanks for the report") {
		t.Error("the report echoes the forged comment's text")
	}
}

func TestPersonalTokenIdentityFindsTheState(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "2"}
	extra := map[string]string{"INPUT_TOKEN": "ghp_dev"}
	from := len(w.gh.Requests())
	r2 := w.twoRounds(t, in, extra)
	if r2.code != 0 || r2.outputs["round"] != "2" || r2.outputs["decision"] != "escalate" {
		t.Fatalf("round 2: exit %d outputs %v, want round 2 escalated at the cap\n%s", r2.code, r2.outputs, r2.stderr)
	}
	cs := w.gh.Comments(owner, repo, w.pr)
	if len(cs) != 1 || cs[0].Author != "dev" {
		t.Fatalf("comments %+v, want one report by dev", cs)
	}
	var users int
	for _, q := range w.requestsSince(from) {
		if q == "GET /user" {
			users++
		}
	}
	if users != 2 {
		t.Errorf("%d GET /user in two runs, want one each", users)
	}
}

func TestBotLoginNamesTheAppsIdentity(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.AddToken("ghs_apptoken", "gcloop-app[bot]", true)
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "2", "bot-login": "gcloop-app[bot]"}
	extra := map[string]string{"INPUT_TOKEN": "ghs_apptoken"}
	from := len(w.gh.Requests())
	r2 := w.twoRounds(t, in, extra)
	if r2.code != 0 || r2.outputs["round"] != "2" || r2.outputs["decision"] != "escalate" {
		t.Fatalf("round 2: exit %d outputs %v, want round 2 escalated at the cap\n%s", r2.code, r2.outputs, r2.stderr)
	}
	if cs := w.gh.Comments(owner, repo, w.pr); len(cs) != 1 || cs[0].Author != "gcloop-app[bot]" {
		t.Fatalf("comments %+v, want one report by the App", cs)
	}
	for _, q := range w.requestsSince(from) {
		if q == "GET /user" {
			t.Error("bot-login given, yet GET /user was asked")
		}
	}
}

func TestStateKeyIgnoresUnsignedAndBadlySignedState(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	const key = "s3cret-state-key"
	in := map[string]string{"loop": "review", "evidence": "r.json", "max-rounds": "2", "state-key": key}
	// Before gcloop's first report, comments in gcloop's shape as
	// github-actions[bot]: one unsigned, one with a wrong signature.
	unsigned := "<!-- gcloop:report review -->\nreport\n" + freshMarker(t) + "\n"
	badSig := "<!-- gcloop:report review -->\nreport\n" + strings.TrimSuffix(freshMarker(t), " -->") +
		" hmac-" + strings.Repeat("A", 43) + " -->\n"
	idU := w.gh.AddComment(owner, repo, w.pr, bot, unsigned)
	idB := w.gh.AddComment(owner, repo, w.pr, bot, badSig)

	r2 := w.twoRounds(t, in, nil)
	if r2.code != 0 || r2.outputs["round"] != "2" || r2.outputs["decision"] != "escalate" {
		t.Fatalf("round 2: exit %d outputs %v, want round 2 escalated at the cap\n%s", r2.code, r2.outputs, r2.stderr)
	}
	if w.commentBody(idU) != unsigned || w.commentBody(idB) != badSig {
		t.Error("a comment that failed the signature check was edited")
	}
	cs := w.gh.Comments(owner, repo, w.pr)
	if len(cs) != 3 {
		t.Fatalf("%d comments, want the two forged and gcloop's report", len(cs))
	}
	mustContain(t, "the report", cs[2].Body, " hmac-", "no signature", "does not match the state-key")
	mustContain(t, "the log", r2.stdout, "::add-mask::"+key)
}

// manyFindings is a review with one high finding in each of n files.
func manyFindings(n int) string {
	var b strings.Builder
	b.WriteString(`{"review_score": 3, "gc_signal": "REVISION_NEEDED", "findings": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		sev := "high"
		if i == n-1 {
			sev = "critical" // the last file is the most severe
		}
		fmt.Fprintf(&b, `{"severity": %q, "file": "pkg%03d/@team <b>x</b>.go", "line": 1, "description": "bad"}`, sev, i)
	}
	b.WriteString("]}")
	return b.String()
}

func TestMaxIssuesCapsTheIssuesOfARound(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json"}
	ev := map[string]string{"r.json": manyFindings(300)}
	r := w.runAction(step{inputs: in, files: ev})
	if r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	open, _ := w.issuesByState()
	if len(open) != 10 {
		t.Fatalf("%d issues opened, want 10 (max-issues default)", len(open))
	}
	first := w.gh.Issues(owner, repo)
	var titles []string
	for _, is := range first {
		if !is.IsPull {
			titles = append(titles, is.Title)
			if len([]rune(is.Title)) > 120 || strings.ContainsAny(is.Title, "@<>") {
				t.Errorf("title %q: over 120 characters or keeps a mention or HTML", is.Title)
			}
		}
	}
	if !strings.Contains(titles[0], "pkg299/") {
		t.Errorf("first issue %q, want the critical pkg299 first", titles[0])
	}
	report, err := os.ReadFile(filepath.Join(r.ws, r.outputs["report"]))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the report", string(report), "max-issues 10: 290 more task(s) got no fix issue", "pkg009/")

	from := len(w.gh.Requests())
	again := w.runAction(step{inputs: in, files: ev, attempt: 2})
	if again.code != 0 {
		t.Fatalf("re-run exit %d\n%s", again.code, again.stderr)
	}
	if m := w.mutations(from); len(m) > 1 {
		t.Errorf("the re-run made mutations %q, want at most the comment edit", m)
	}
	if n := len(w.gh.Issues(owner, repo)); n != len(first) {
		t.Errorf("%d issues after the re-run, want %d", n, len(first))
	}
}

func TestSettledLoopClosesItsIssuesForGood(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"approve", "abort"} {
		t.Run(verb, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			w.gh.SetPermission(owner, repo, "lead", "maintain")
			in := map[string]string{"loop": "review", "evidence": "r.json"}
			ev := map[string]string{"r.json": reviewFix}
			// A new failing sha, then a second run on it: the issues stay one set.
			w.push(map[string]string{"cart.go": "package cart // broken\n"})
			for attempt := 1; attempt <= 2; attempt++ {
				if r := w.runAction(step{inputs: in, files: ev, attempt: attempt}); r.outputs["decision"] != "fix" {
					t.Fatalf("run %d: outputs %v\n%s", attempt, r.outputs, r.stderr)
				}
			}
			if open, _ := w.issuesByState(); len(open) != 2 {
				t.Fatalf("%d open issues, want 2", len(open))
			}
			id := w.gh.AddComment(owner, repo, w.pr, "lead", "/gc "+verb)
			if r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "lead", "/gc "+verb), inputs: in}); r.code != 0 {
				t.Fatalf("command: exit %d\n%s", r.code, r.stderr)
			}
			if open, closed := w.issuesByState(); len(open) != 0 || len(closed) != 2 {
				t.Fatalf("after /gc %s: open %v closed %v, want all closed", verb, open, closed)
			}
			// Re-runs on the same sha, twice: the issues stay closed.
			for attempt := 3; attempt <= 4; attempt++ {
				r := w.runAction(step{inputs: in, files: ev, attempt: attempt})
				if r.code != 0 {
					t.Fatalf("re-run %d: exit %d\n%s", attempt, r.code, r.stderr)
				}
				if open, _ := w.issuesByState(); len(open) != 0 {
					t.Errorf("re-run %d after /gc %s: issues %v open again", attempt, verb, open)
				}
			}
		})
	}
}

func TestSettledLoopRunClosesIssuesTheCommandLeftOpen(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.gh.SetPermission(owner, repo, "lead", "maintain")
	in := map[string]string{"loop": "review", "evidence": "r.json"}
	ev := map[string]string{"r.json": reviewFix}
	if r := w.runAction(step{inputs: in, files: ev}); r.outputs["decision"] != "fix" {
		t.Fatalf("round 1: outputs %v\n%s", r.outputs, r.stderr)
	}
	// The command cannot close the issues (GitHub fails the closing
	// comment, and a POST is never retried on a 5xx).
	w.gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: 502, Times: 1})
	id := w.gh.AddComment(owner, repo, w.pr, "lead", "/gc approve")
	if r := w.runAction(step{event: "issue_comment", payload: w.commentEvent(id, "lead", "/gc approve"), inputs: in}); r.code != 0 {
		t.Fatalf("command: exit %d\n%s", r.code, r.stderr)
	}
	if open, _ := w.issuesByState(); len(open) != 2 {
		t.Fatalf("the failing close left %d open, want 2", len(open))
	}
	// The re-run that follows closes them.
	r := w.runAction(step{inputs: in, files: ev, attempt: 2})
	if r.code != 0 || r.outputs["verdict"] != "CONVERGE (approved)" {
		t.Fatalf("re-run: exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	if open, _ := w.issuesByState(); len(open) != 0 {
		t.Errorf("issues %v still open after the approved loop's re-run", open)
	}
}

func TestCoverageRoundAtTheCapDoesNotDispatch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	r := w.coverageRound(t, map[string]string{"cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {}\n"},
		map[string]string{"INPUT_MAX-ROUNDS": "1"}, nil)
	if r.code != 0 || r.outputs["decision"] != "converge" || r.outputs["commit"] == "" {
		t.Fatalf("exit %d outputs %v, want a converged round with its commit\n%s", r.code, r.outputs, r.stderr)
	}
	if d := w.gh.Dispatches(owner, repo); len(d) != 0 {
		t.Errorf("dispatches %+v past the cap, want none", d)
	}
	mustContain(t, "the report", w.gh.Comments(owner, repo, w.pr)[0].Body, "not dispatched")
}

// Re-running an old workflow run after a later one judged the PR decides
// nothing and writes nothing: it would judge an old head again, or undo
// the later run's judgment of the same head.
func TestReRunOfASupersededRunDecidesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"loop": "review", "evidence": "r.json"}
	first := step{inputs: in, files: map[string]string{"r.json": reviewFix}, runID: 6001}
	if r := w.runAction(first); r.code != 0 || r.outputs["decision"] != "fix" {
		t.Fatalf("round 1: exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	w.push(map[string]string{"cart.go": "package cart // fixed\n"})
	if r := w.runAction(step{inputs: in, files: map[string]string{"r.json": reviewOK}, runID: 6002}); r.outputs["round"] != "2" || r.outputs["decision"] != "converge" {
		t.Fatalf("round 2: exit %d outputs %v\n%s", r.code, r.outputs, r.stderr)
	}
	from := len(w.gh.Requests())
	old := first
	old.attempt = 2
	old.payload = w.pullPayload()
	old.payload["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = w.gh.Commit(owner, repo, w.head).Parents[0]
	r := w.runAction(old)
	if r.code != 1 || r.outputs["decision"] != "" {
		t.Fatalf("re-run of run 6001: exit %d outputs %v, want exit 1 and no decision\n%s", r.code, r.outputs, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "superseded", "6002")
	if m := w.mutations(from); len(m) != 0 {
		t.Errorf("a superseded re-run wrote %q", m)
	}
	if open, _ := w.issuesByState(); len(open) != 0 {
		t.Errorf("open issues %v after the loop converged", open)
	}
}

package action_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// The property test drives the built action through random sequences of
// the events a loop meets on a real pull request — rounds, re-runs, new
// runs on the same sha, human pushes, a generator's changes (good and
// bad), commands by every kind of user, forged report comments and bursts
// of server errors — and checks after every step what must never happen,
// whatever the order:
//
//   - a fix decision, or a fix effect (issue opened, commit pushed,
//     round dispatched), past the round cap plus the rounds granted;
//   - a re-run that adds a round, an issue or a comment;
//   - more than one report comment per pull request and loop, or an edit
//     of a comment gcloop did not write;
//   - two open issues for one fix target;
//   - a fix issue left open after the loop converged, was approved or
//     aborted;
//   - a pushed commit that changes a non-test file, adds a skip marker,
//     loses or empties a test, or is not built on the judged commit.
//
// The seed is printed; -property.seed replays a failure, -property.runs
// sets the number of sequences per token kind.
var (
	propertySeed = flag.Uint64("property.seed", 20261125, "seed of the random event sequences")
	propertyRuns = flag.Int("property.runs", 10, "event sequences per token kind")
	propertyLen  = flag.Int("property.steps", 12, "events per sequence")
)

func TestRandomEventSequencesKeepTheInvariants(t *testing.T) {
	t.Parallel()
	t.Logf("seed %d (replay: go test ./bot/action -run TestRandomEventSequences -property.seed=%d)", *propertySeed, *propertySeed)
	for _, kind := range []string{"job-token", "personal-token"} {
		for i := 0; i < *propertyRuns; i++ {
			name := fmt.Sprintf("%s/%d", kind, i)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(*propertySeed, uint64(i)<<1|map[string]uint64{"job-token": 0, "personal-token": 1}[kind]))
				s := newSequence(t, rng, kind)
				for n := 0; n < *propertyLen; n++ {
					s.step(n)
					if t.Failed() {
						t.Fatalf("violated after step %d; the steps:\n%s", n, strings.Join(s.log, "\n"))
					}
				}
				t.Logf("steps:\n%s", strings.Join(s.log, "\n"))
			})
		}
	}
}

const propTests = `package cart

import "testing"

func TestTotal(t *testing.T) {
	if Total(2, 3) != 5 {
		t.Fatal("total")
	}
}

func TestEmpty(t *testing.T) {
	if Total() != 0 {
		t.Error("empty")
	}
}

func TestFlaky(t *testing.T) {
	t.Skip("flaky on CI")
	if Total(1) != 1 {
		t.Error("one")
	}
}
`

const propSource = "package cart\n\nfunc Total(xs ...int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n"

// generatorChanges are what a test generator may leave in the workspace,
// keyed by a name for the log: the first one is legitimate.
var generatorChanges = []struct {
	name  string
	apply func(files map[string]string)
}{
	{"adds a test", func(f map[string]string) {
		f["cart_more_test.go"] = "package cart\n\nimport \"testing\"\n\nfunc TestMany(t *testing.T) {\n\tif Total(1, 1, 1) != 3 {\n\t\tt.Error(\"many\")\n\t}\n}\n"
	}},
	{"adds an assertion", func(f map[string]string) {
		f["cart_test.go"] = strings.Replace(f["cart_test.go"], "\t\tt.Error(\"empty\")\n\t}\n", "\t\tt.Error(\"empty\")\n\t}\n\tif Total(0) != 0 {\n\t\tt.Error(\"zero\")\n\t}\n", 1)
	}},
	{"deletes a test", func(f map[string]string) {
		i := strings.Index(f["cart_test.go"], "func TestEmpty")
		j := strings.Index(f["cart_test.go"], "func TestFlaky")
		if i >= 0 && j > i {
			f["cart_test.go"] = f["cart_test.go"][:i] + f["cart_test.go"][j:]
		}
	}},
	{"empties a test", func(f map[string]string) {
		f["cart_test.go"] = strings.Replace(f["cart_test.go"], "\tif Total(2, 3) != 5 {\n\t\tt.Fatal(\"total\")\n\t}\n", "", 1)
	}},
	{"returns early", func(f map[string]string) {
		f["cart_test.go"] = strings.Replace(f["cart_test.go"], "func TestTotal(t *testing.T) {\n", "func TestTotal(t *testing.T) {\n\treturn\n", 1)
	}},
	{"adds a skip", func(f map[string]string) {
		f["cart_test.go"] = strings.Replace(f["cart_test.go"], "func TestEmpty(t *testing.T) {\n", "func TestEmpty(t *testing.T) {\n\tt.SkipNow()\n", 1)
	}},
	{"swaps a skip", func(f map[string]string) {
		s := strings.Replace(f["cart_test.go"], "\tt.Skip(\"flaky on CI\")\n", "", 1)
		f["cart_test.go"] = strings.Replace(s, "func TestTotal(t *testing.T) {\n", "func TestTotal(t *testing.T) {\n\tt.Skipf(\"later %d\", 1)\n", 1)
	}},
	{"adds a build constraint", func(f map[string]string) {
		f["cart_test.go"] = "//go:build ignore\n\n" + f["cart_test.go"]
	}},
	{"writes a NUL byte", func(f map[string]string) {
		f["cart_test.go"] = strings.Replace(f["cart_test.go"], "import \"testing\"\n", "import \"testing\"\n\n// \x00\n\nfunc init() { skipAll = true }\n", 1)
	}},
	{"changes the source", func(f map[string]string) {
		f["cart.go"] = strings.Replace(f["cart.go"], "s := 0", "s := 0 // tuned", 1)
	}},
	{"hides a file under a test-named directory", func(f map[string]string) {
		f["x_test.go/evil.go"] = "package evil\n"
	}},
}

// pastRun is a workflow run of a round and the sha it judged.
type pastRun struct {
	step step
	sha  string
}

// sequence is one pull request, one loop, and the model the invariants
// are checked against.
type sequence struct {
	t      *testing.T
	rng    *rand.Rand
	w      *world
	loop   string
	token  string
	login  string // gcloop's identity
	inputs map[string]string
	log    []string

	last           *step  // the last round run, for re-runs
	lastSHA        string // its sha
	runID          int64
	runs           []pastRun      // every round's workflow run, for re-runs
	lastJudged     string         // the sha of the last round recorded
	recordedRuns   map[int64]bool // workflow runs whose round was recorded
	maxRecordedRun int64          // the newest of them
	incomplete     map[int64]bool // runs whose fix issues were not all opened

	// The model.
	rounds     int  // rounds recorded
	grants     int  // extra rounds granted by /gc retry after an escalation
	retryArmed bool // an accepted /gc retry on an open loop: the next run is a new round
	escalated  bool // the last recorded decision escalated
	settled    string
	keyed      bool // the state is signed with state-key
	maxRounds  int
	foreign    map[int64]string // comments gcloop did not write → their body
	branchHead string
	judgedSHA  map[string]bool // shas a round judged
}

func newSequence(t *testing.T, rng *rand.Rand, kind string) *sequence {
	w := newWorld(t, map[string]string{"cart.go": propSource, "cart_test.go": propTests})
	s := &sequence{t: t, rng: rng, w: w, foreign: map[int64]string{},
		judgedSHA: map[string]bool{}, recordedRuns: map[int64]bool{}, incomplete: map[int64]bool{}, branchHead: w.head}
	s.token, s.login = token, bot
	if kind == "personal-token" {
		s.token, s.login = "ghp_maintainer", "maint"
		w.gh.AddToken(s.token, s.login, false)
		w.gh.SetPermission(owner, repo, s.login, "admin")
	}
	for user, level := range map[string]string{"writer": "write", "lead": "maintain", "boss": "admin", "reader": "read", "triager": "triage"} {
		w.gh.SetPermission(owner, repo, user, level)
	}
	s.loop = []string{"review", "coverage"}[rng.IntN(2)]
	s.maxRounds = 1 + rng.IntN(3)
	s.inputs = map[string]string{"loop": s.loop, "max-rounds": fmt.Sprint(s.maxRounds), "token": s.token}
	if s.loop == "coverage" {
		s.inputs["dispatch"] = "coverage.yml"
		s.inputs["layer"] = "L1"
		s.inputs["evidence"] = "gcloop-evidence/*"
	} else {
		s.inputs["dispatch"] = "review.yml"
		s.inputs["evidence"] = "r.json"
	}
	if rng.IntN(2) == 0 {
		s.keyed = true
		s.inputs["state-key"] = "s3cret-state-key"
	}
	s.logf("%s loop, max-rounds %d, identity %s, state-key %v", s.loop, s.maxRounds, s.login, s.keyed)
	return s
}

func (s *sequence) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf("%2d. ", len(s.log))+fmt.Sprintf(format, args...))
}

// step draws one event, runs it, and checks the invariants.
func (s *sequence) step(n int) {
	switch r := s.rng.IntN(100); {
	case n == 0 || r < 35:
		s.round(false)
	case r < 50:
		s.rerun()
	case r < 55:
		s.round(true)
	case r < 67:
		s.humanPush()
	case r < 85:
		s.command()
	case r < 93:
		s.forge()
	default:
		s.burst()
	}
	s.checkComments()
	s.checkIssues()
	s.checkCommits()
}

// round runs the loop's round on the PR head (sameSHA: the head the last
// round judged, in a new workflow run).
func (s *sequence) round(sameSHA bool) {
	sha := s.w.head
	if sameSHA && s.lastSHA != "" {
		sha = s.lastSHA
	}
	s.runID++
	st := step{inputs: s.inputs, runID: 5000 + s.runID, attempt: 1, payload: s.payload(sha), extra: map[string]string{"GITHUB_SHA": sha}}
	what := ""
	if s.loop == "coverage" {
		files := map[string]string{}
		for p, b := range s.w.gh.TreeFiles(owner, repo, sha) {
			files[p] = string(b)
		}
		if s.rng.IntN(3) > 0 {
			g := generatorChanges[s.rng.IntN(len(generatorChanges))]
			if s.rng.IntN(3) == 0 {
				g = generatorChanges[0]
			}
			g.apply(files)
			what = "generator " + g.name + ", "
		}
		lcov, junit := lcovHigh, junitPass
		if s.rng.IntN(2) == 0 {
			lcov = "TN:\nSF:cart.go\nDA:1,1\nDA:2,0\nDA:3,0\nDA:4,0\nend_of_record\n"
			what += "coverage 25%"
		} else {
			what += "coverage 100%"
		}
		if s.rng.IntN(3) == 0 {
			junit = `<testsuites><testsuite name="cart" tests="2"><testcase classname="cart" name="TestTotal"><failure message="want 5">got 4</failure></testcase><testcase classname="cart" name="TestEmpty"/></testsuite></testsuites>`
			what += ", a failing test"
		}
		files["gcloop-evidence/lcov.info"] = lcov
		files["gcloop-evidence/junit.xml"] = junit
		st.files = files
	} else {
		ev := reviewFix
		what = "review needs fixes"
		if s.rng.IntN(3) == 0 {
			ev, what = reviewOK, "review converges"
		}
		st.files = map[string]string{"r.json": ev}
	}
	s.logf("round on %s (run %d): %s", shortSHA(sha), st.runID, what)
	s.last, s.lastSHA = &st, sha
	s.runs = append(s.runs, pastRun{step: st, sha: sha})
	s.runRound(st, sha, false)
}

// rerun re-runs the last round's workflow run: same run id, same sha,
// same workspace, next attempt.
func (s *sequence) rerun() {
	if s.last == nil {
		s.round(false)
		return
	}
	// Mostly the last run; sometimes an older one, whose round a later
	// one may have superseded.
	i := len(s.runs) - 1
	if s.rng.IntN(3) == 0 {
		i = s.rng.IntN(len(s.runs))
	}
	st, sha := s.runs[i].step, s.runs[i].sha
	st.attempt++
	s.runs[i].step = st
	s.logf("re-run of run %d (attempt %d) on %s", st.runID, st.attempt, shortSHA(sha))
	s.runRound(st, sha, true)
}

func (s *sequence) payload(sha string) map[string]any {
	p := s.w.pullPayload()
	p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	return p
}

// runRound runs one round and checks it against the model.
func (s *sequence) runRound(st step, sha string, rerun bool) {
	t := s.t
	issuesBefore := s.gcloopIssues()
	dispatchesBefore := len(s.w.gh.Dispatches(owner, repo))
	commentsBefore := len(s.w.gh.Comments(owner, repo, s.w.pr))
	ws := t.TempDir()
	st.ws = ws + "/workspace"
	from := len(s.w.gh.Requests())
	r := s.w.runAction(st)
	s.logf("   → exit %d, %s %q round %s of %s, status %s, commit %q", r.code, r.outputs["decision"], r.outputs["verdict"],
		r.outputs["round"], r.outputs["max-rounds"], r.outputs["status"], r.outputs["commit"])
	if r.code == 1 && strings.Contains(r.stderr, "superseded") {
		// A re-run of a run older than the one the state recorded last.
		if !rerun || st.runID >= s.maxRecordedRun {
			t.Errorf("run %d (re-run %v) refused as superseded; the newest recorded run is %d\n%s", st.runID, rerun, s.maxRecordedRun, r.stderr)
		}
		if m := s.w.mutations(from); len(m) != 0 {
			t.Errorf("a superseded re-run wrote %q", m)
		}
		return
	}
	if r.code != 0 {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
		return
	}
	complete := r.outputs["status"] == "complete"
	staleRerun := rerun && s.recordedRuns[st.runID] && !s.retryArmed
	var newRound bool
	switch {
	case !complete:
	case s.retryArmed:
		newRound = true
	case staleRerun:
	case s.rounds > 0 && sha == s.lastJudged:
	default:
		newRound = true
	}
	if complete {
		if newRound {
			s.rounds++
			s.retryArmed = false
			s.lastJudged = sha
		}
		s.recordedRuns[st.runID] = true
		s.maxRecordedRun = max(s.maxRecordedRun, st.runID)
		s.judgedSHA[sha] = true
	}
	cap := s.maxRounds + s.grants
	round := s.rounds
	if !complete {
		round = s.rounds + 1 // what it would have been
	}
	d := r.outputs["decision"]
	if complete && d == "fix" && round >= cap {
		t.Errorf("fix decision in round %d with a cap of %d (max %d + %d granted)", round, cap, s.maxRounds, s.grants)
	}
	if s.settled != "" && d == "fix" {
		t.Errorf("fix decision on a loop settled by /gc %s", s.settled)
	}
	newIssues := 0
	for n := range s.gcloopIssues() {
		if _, ok := issuesBefore[n]; !ok {
			newIssues++
		}
	}
	newDispatches := len(s.w.gh.Dispatches(owner, repo)) - dispatchesBefore
	if (newIssues > 0 || newDispatches > 0) && (round >= cap || s.settled != "") {
		t.Errorf("fix effects past the cap (round %d, cap %d, settled %q): %d issues opened, %d rounds dispatched", round, cap, s.settled, newIssues, newDispatches)
	}
	if r.outputs["commit"] != "" && (round > cap || s.settled != "") {
		t.Errorf("commit %s pushed in round %d past the cap %d (settled %q)", r.outputs["commit"], round, cap, s.settled)
	}
	// A re-run may open the issues its first attempt failed to open.
	incomplete := s.incomplete[st.runID]
	s.incomplete[st.runID] = strings.Contains(r.summary, "fix issues incomplete")
	if staleRerun {
		if newIssues > 0 && !incomplete {
			t.Errorf("a re-run opened %d issues", newIssues)
		}
		if n := len(s.w.gh.Comments(owner, repo, s.w.pr)); n != commentsBefore {
			t.Errorf("a re-run changed the number of comments: %d → %d", commentsBefore, n)
		}
		if got := s.recordedRounds(); got > s.rounds {
			t.Errorf("a re-run recorded round %d after %d rounds", got, s.rounds)
		}
	}
	if complete {
		s.escalated = d == "escalate"
		if d == "converge" || s.settled != "" {
			for n, is := range s.gcloopIssues() {
				if is.State == "open" {
					t.Errorf("fix issue #%d %q is open after the loop %s", n, is.Title, map[bool]string{true: "was settled by /gc " + s.settled, false: "converged"}[s.settled != ""])
				}
			}
		}
	}
}

// humanPush adds a commit of a person on the PR branch.
func (s *sequence) humanPush() {
	n := len(s.log)
	sha := s.w.push(map[string]string{"cart.go": propSource + fmt.Sprintf("\n// edit %d\n", n)})
	s.branchHead = sha
	s.logf("a person pushes %s", shortSHA(sha))
}

var commandUsers = []struct {
	login, kind string
	may         bool
}{
	{"writer", "User", true}, {"lead", "User", true}, {"boss", "User", true},
	{"reader", "User", false}, {"triager", "User", false}, {"stranger", "User", false},
	{"dependabot[bot]", "Bot", false},
}

// command posts a /gc command comment and runs the issue_comment workflow.
func (s *sequence) command() {
	u := commandUsers[s.rng.IntN(len(commandUsers))]
	verb := []string{"retry", "retry", "approve", "abort", "status"}[s.rng.IntN(5)]
	form := s.rng.IntN(6)
	body := "/gc " + verb
	live := true
	switch form {
	case 1:
		body = "> /gc " + verb
		live = false
	case 2:
		body = "`/gc " + verb + "`"
		live = false
	case 3:
		body = "```\n/gc " + verb + "\n```"
		live = false
	case 4:
		body = "see `this\n/gc " + verb + "` span"
		live = false
	}
	id := s.w.gh.AddComment(owner, repo, s.w.pr, u.login, body)
	s.foreign[id] = body
	payload := s.w.commentEvent(id, u.login, body)
	payload["comment"].(map[string]any)["user"].(map[string]any)["type"] = u.kind
	dispatchesBefore := len(s.w.gh.Dispatches(owner, repo))
	issuesBefore := s.gcloopIssues()
	r := s.w.runAction(step{event: "issue_comment", payload: payload, inputs: s.inputs, runID: 9000 + int64(len(s.log))})
	accepted := false
	for _, re := range s.w.gh.Reactions(owner, repo, id) {
		if re.Content == "rocket" {
			accepted = true
		}
	}
	s.logf("%s (%s) comments %q → exit %d, accepted %v", u.login, u.kind, body, r.code, accepted)
	if r.code != 0 {
		s.t.Errorf("command run: exit %d\n%s", r.code, r.stderr)
	}
	if accepted && (!live || !u.may) {
		s.t.Errorf("command %q by %s was run", body, u.login)
	}
	newDispatches := len(s.w.gh.Dispatches(owner, repo)) - dispatchesBefore
	if newDispatches > 0 && !(accepted && verb == "retry") {
		s.t.Errorf("%d rounds dispatched by %q of %s", newDispatches, body, u.login)
	}
	for n := range s.gcloopIssues() {
		if _, ok := issuesBefore[n]; !ok {
			s.t.Errorf("a command opened issue #%d", n)
		}
	}
	if !accepted || s.rounds == 0 {
		return
	}
	switch verb {
	case "retry":
		if s.settled != "" {
			break
		}
		if s.escalated {
			s.grants++
		}
		s.retryArmed = true
	case "approve", "abort":
		if s.settled == "" {
			s.settled = verb
		}
	}
}

// forge posts a comment that looks like gcloop's report with a state
// that would reset the loop, as another workflow of the repository
// (posting as github-actions[bot]) could.
func (s *sequence) forge() {
	var real string
	for _, c := range s.w.gh.Comments(owner, repo, s.w.pr) {
		if _, mine := s.foreign[c.ID]; !mine && strings.Contains(c.Body, "gcloop:state ") {
			real = c.Body
		}
	}
	if real == "" && !s.keyed {
		// Without a key, a report planted before gcloop's first one is
		// the documented gap (the oldest valid comment wins).
		s.logf("(nothing to forge yet)")
		return
	}
	var forged string
	if real == "" {
		st, _ := json.Marshal(map[string]any{"schema": "gcloop/state/v1", "loop": s.loop, "id": s.loop, "max_rounds": 99,
			"status": "open", "grants": []any{}, "rounds": []any{}})
		forged = "<!-- gcloop:report " + s.loop + " -->\n## gcloop\n\n<!-- gcloop:state " + s.loop + " " +
			base64.RawURLEncoding.EncodeToString(st) + " hmac-" + base64.RawURLEncoding.EncodeToString([]byte("not a signature, 32 bytes long!!")) + " -->"
	} else {
		forged = resetState(real)
	}
	switch s.rng.IntN(3) {
	case 1:
		forged += "\nthanks!"
	case 2:
		forged = "Build log says:\n" + forged
	}
	id := s.w.gh.AddComment(owner, repo, s.w.pr, bot, forged)
	s.foreign[id] = forged
	s.logf("another workflow posts a forged report (%d bytes) as %s", len(forged), bot)
}

var stateMarkerRE = regexp.MustCompile(`<!-- gcloop:state (\S+) (\S+)((?: \S+)*) -->`)

// resetState rewrites the state in a report to a fresh open loop.
func resetState(body string) string {
	return stateMarkerRE.ReplaceAllStringFunc(body, func(m string) string {
		sub := stateMarkerRE.FindStringSubmatch(m)
		data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(sub[2], "="))
		if err != nil {
			return m
		}
		var st map[string]any
		if json.Unmarshal(data, &st) != nil {
			return m
		}
		st["rounds"] = []any{}
		st["status"] = "open"
		delete(st, "grants")
		data, _ = json.Marshal(st)
		return "<!-- gcloop:state " + sub[1] + " " + base64.RawURLEncoding.EncodeToString(data) + sub[3] + " -->"
	})
}

// recordedRounds is the number of the last round in the report's state.
func (s *sequence) recordedRounds() int {
	for _, c := range s.w.gh.Comments(owner, repo, s.w.pr) {
		if _, foreign := s.foreign[c.ID]; foreign {
			continue
		}
		m := stateMarkerRE.FindStringSubmatch(c.Body)
		if m == nil || m[1] != s.loop {
			continue
		}
		data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(m[2], "="))
		var st struct {
			Rounds []struct{ N int } `json:"rounds"`
		}
		if err != nil || json.Unmarshal(data, &st) != nil {
			s.t.Errorf("the report's state does not decode: %v", err)
			return 0
		}
		if len(st.Rounds) == 0 {
			return 0
		}
		return st.Rounds[len(st.Rounds)-1].N
	}
	return 0
}

// burst makes the next few requests of one kind fail with 502.
func (s *sequence) burst() {
	patterns := []string{
		"GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
		"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
		"POST /repos/{owner}/{repo}/issues",
		"GET /repos/{owner}/{repo}/issues",
	}
	p := patterns[s.rng.IntN(len(patterns))]
	n := 1 + s.rng.IntN(2)
	s.w.gh.Fail(ghfake.FailRule{Pattern: p, Status: 502, Times: n})
	s.logf("the next %d of %s answer 502", n, p)
}

// gcloopIssues returns the issues gcloop's identity opened, by number.
func (s *sequence) gcloopIssues() map[int]ghfake.Issue {
	out := map[int]ghfake.Issue{}
	for _, is := range s.w.gh.Issues(owner, repo) {
		if !is.IsPull && strings.EqualFold(is.Author, s.login) {
			out[is.Number] = is
		}
	}
	return out
}

var issueKeyRE = regexp.MustCompile(`<!-- gcloop:issue (\S+) (\S+) -->`)

// checkComments: one report comment per loop, foreign comments untouched.
func (s *sequence) checkComments() {
	reports := 0
	for _, c := range s.w.gh.Comments(owner, repo, s.w.pr) {
		if body, ok := s.foreign[c.ID]; ok {
			if c.Body != body {
				s.t.Errorf("comment %d that gcloop did not write was edited:\n%s", c.ID, c.Body)
			}
			continue
		}
		if strings.Contains(c.Body, "gcloop:state "+s.loop+" ") {
			reports++
		}
	}
	if reports > 1 {
		s.t.Errorf("%d report comments for loop %s", reports, s.loop)
	}
}

// checkIssues: no two open issues for one target.
func (s *sequence) checkIssues() {
	open := map[string][]int{}
	for n, is := range s.gcloopIssues() {
		m := issueKeyRE.FindStringSubmatch(is.Body)
		if m == nil {
			s.t.Errorf("issue #%d has no gcloop marker", n)
			continue
		}
		if is.State == "open" {
			open[m[1]+" "+m[2]] = append(open[m[1]+" "+m[2]], n)
		}
	}
	for key, ns := range open {
		if len(ns) > 1 {
			sort.Ints(ns)
			s.t.Errorf("duplicate open issues %v for %s", ns, key)
		}
	}
}

// checkCommits judges every commit gcloop pushed since the last check on
// its own: test files only, no marker added, no test lost or emptied,
// built on a commit a round judged and on the branch head it replaced.
func (s *sequence) checkCommits() {
	head := s.w.gh.Ref(owner, repo, "heads/feature/cart")
	if head == s.branchHead {
		return
	}
	c := s.w.gh.Commit(owner, repo, head)
	defer func() { s.branchHead, s.w.head = head, head }()
	if len(c.Parents) != 1 {
		s.t.Errorf("pushed commit %s has parents %v", head, c.Parents)
		return
	}
	parent := c.Parents[0]
	if parent != s.branchHead {
		s.t.Errorf("commit %s is built on %s, not on the branch head %s it replaced (a person's push was reverted)", shortSHA(head), shortSHA(parent), shortSHA(s.branchHead))
	}
	if !s.judgedSHA[parent] {
		s.t.Errorf("commit %s is built on %s, which no round judged", shortSHA(head), shortSHA(parent))
	}
	before, after := s.w.gh.TreeFiles(owner, repo, parent), s.w.gh.TreeFiles(owner, repo, head)
	for _, v := range judgeTestOnly(before, after) {
		s.t.Errorf("commit %s: %s", shortSHA(head), v)
	}
}

// judgeTestOnly is the test's own oracle of a test-only Go change,
// written independently of package guard.
func judgeTestOnly(before, after map[string][]byte) []string {
	var out []string
	paths := map[string]bool{}
	for p := range before {
		paths[p] = true
	}
	for p := range after {
		paths[p] = true
	}
	for p := range paths {
		b, a := before[p], after[p]
		if bytes.Equal(b, a) {
			continue
		}
		if !strings.HasSuffix(p, "_test.go") || strings.Contains(path.Dir(p), "_test.go") {
			out = append(out, p+": not a test file")
			continue
		}
		if bytes.IndexByte(a, 0) >= 0 {
			out = append(out, p+": NUL byte")
		}
		old := map[string]int{}
		for _, l := range strings.Split(string(b), "\n") {
			old[strings.TrimSpace(l)]++
		}
		for _, l := range strings.Split(string(a), "\n") {
			l = strings.TrimSpace(l)
			if old[l] > 0 {
				old[l]--
				continue
			}
			for _, m := range []string{".Skip(", ".SkipNow(", ".Skipf(", "//go:build ignore", "+build ignore"} {
				if strings.Contains(l, m) {
					out = append(out, fmt.Sprintf("%s: added %q", p, l))
				}
			}
		}
	}
	oldTests, newTests := goTests(before), goTests(after)
	for name, asserts := range oldTests {
		n, ok := newTests[name]
		switch {
		case !ok:
			out = append(out, name+": test lost")
		case n.earlyReturn && !asserts.earlyReturn:
			out = append(out, name+": returns before its assertions")
		case asserts.asserts > 0 && n.asserts == 0:
			out = append(out, name+": assertions removed")
		}
	}
	slices.Sort(out)
	return out
}

type goTest struct {
	asserts     int
	earlyReturn bool
}

// goTests finds the Test functions of the Go test files of a tree.
func goTests(files map[string][]byte) map[string]goTest {
	out := map[string]goTest{}
	fset := gotoken.NewFileSet()
	for p, src := range files {
		if !strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			continue
		}
		if strings.Contains(string(src), "//go:build ignore") {
			continue // the file does not build: its tests do not exist
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			var gt goTest
			if len(fn.Body.List) > 0 {
				_, gt.earlyReturn = fn.Body.List[0].(*ast.ReturnStmt)
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && slices.Contains([]string{"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"}, sel.Sel.Name) {
						gt.asserts++
					}
				}
				return true
			})
			out[fn.Name.Name] = gt
		}
	}
	return out
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

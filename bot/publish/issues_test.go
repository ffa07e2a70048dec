package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
)

// memIssues is an in-memory issue tracker that records calls and fails
// the way GitHub fails (404 for a missing label or issue, 422 for a label
// that exists or an issue with an unknown label).
type memIssues struct {
	issues    []*github.Issue
	labels    map[string]bool
	comments  map[int][]string
	calls     []string
	perPage   int
	failIn    string // fail the first call whose log line has this prefix
	failErr   error
	author    string
	listCalls int
}

func newMem() *memIssues {
	return &memIssues{labels: map[string]bool{}, comments: map[int][]string{}, author: bot}
}

func (m *memIssues) call(line string) error {
	m.calls = append(m.calls, line)
	if m.failIn != "" && strings.HasPrefix(line, m.failIn) {
		m.failIn = ""
		return m.failErr
	}
	return nil
}

func (m *memIssues) find(n int) *github.Issue {
	for _, is := range m.issues {
		if is.GetNumber() == n {
			return is
		}
	}
	return nil
}

// add puts an issue or PR straight into the tracker.
func (m *memIssues) add(is *github.Issue) {
	if is.Number == nil {
		is.Number = github.Int(len(m.issues) + 1)
	}
	if is.State == nil {
		is.State = github.String("open")
	}
	for _, l := range is.Labels {
		m.labels[l.GetName()] = true
	}
	m.issues = append(m.issues, is)
}

func (m *memIssues) ListByRepo(_ context.Context, _, _ string, opts *github.IssueListByRepoOptions) ([]*github.Issue, *github.Response, error) {
	m.listCalls++
	if err := m.call(fmt.Sprintf("list page %d", max(opts.Page, 1))); err != nil {
		return nil, nil, err
	}
	var match []*github.Issue
	for _, is := range m.issues {
		if opts.State != "all" && is.GetState() != opts.State {
			continue
		}
		ok := true
		for _, want := range opts.Labels {
			ok = ok && slices.ContainsFunc(is.Labels, func(l *github.Label) bool { return l.GetName() == want })
		}
		if ok {
			match = append(match, is)
		}
	}
	per := opts.PerPage
	if m.perPage > 0 {
		per = m.perPage
	}
	p := max(opts.Page, 1)
	lo, hi := min((p-1)*per, len(match)), min(p*per, len(match))
	resp := &github.Response{}
	if hi < len(match) {
		resp.NextPage = p + 1
	}
	return match[lo:hi], resp, nil
}

func (m *memIssues) Create(_ context.Context, _, _ string, req *github.IssueRequest) (*github.Issue, *github.Response, error) {
	if err := m.call("create " + req.GetTitle()); err != nil {
		return nil, nil, err
	}
	is := &github.Issue{Number: github.Int(len(m.issues) + 1), Title: req.Title, Body: req.Body, State: github.String("open"),
		User: &github.User{Login: github.String(m.author)}}
	for _, l := range req.GetLabels() {
		if !m.labels[l] {
			return nil, nil, ghfake.ErrorResponse(422, "POST", "/repos/o/r/issues", github.Error{Resource: "Issue", Field: "labels", Code: "invalid"})
		}
		is.Labels = append(is.Labels, &github.Label{Name: github.String(l)})
	}
	m.issues = append(m.issues, is)
	return is, nil, nil
}

func (m *memIssues) Edit(_ context.Context, _, _ string, n int, req *github.IssueRequest) (*github.Issue, *github.Response, error) {
	line := fmt.Sprintf("edit #%d", n)
	if req.State != nil {
		line += fmt.Sprintf(" state=%s reason=%s", req.GetState(), req.GetStateReason())
	}
	if err := m.call(line); err != nil {
		return nil, nil, err
	}
	is := m.find(n)
	if is == nil {
		return nil, nil, ghfake.ErrorResponse(404, "PATCH", fmt.Sprintf("/repos/o/r/issues/%d", n))
	}
	if req.Title != nil {
		is.Title = req.Title
	}
	if req.Body != nil {
		is.Body = req.Body
	}
	if req.State != nil {
		is.State = req.State
		is.StateReason = req.StateReason
	}
	return is, nil, nil
}

func (m *memIssues) Get(_ context.Context, _, _ string, n int) (*github.Issue, *github.Response, error) {
	if err := m.call(fmt.Sprintf("get #%d", n)); err != nil {
		return nil, nil, err
	}
	is := m.find(n)
	if is == nil {
		return nil, nil, ghfake.ErrorResponse(404, "GET", fmt.Sprintf("/repos/o/r/issues/%d", n))
	}
	return is, nil, nil
}

func (m *memIssues) CreateComment(_ context.Context, _, _ string, n int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	if err := m.call(fmt.Sprintf("comment #%d", n)); err != nil {
		return nil, nil, err
	}
	m.comments[n] = append(m.comments[n], c.GetBody())
	return c, nil, nil
}

func (m *memIssues) GetLabel(_ context.Context, _, _, name string) (*github.Label, *github.Response, error) {
	if err := m.call("get label " + name); err != nil {
		return nil, nil, err
	}
	plain, err := url.PathUnescape(name)
	if err != nil || !m.labels[plain] {
		return nil, nil, ghfake.ErrorResponse(404, "GET", "/repos/o/r/labels/"+name)
	}
	return &github.Label{Name: github.String(plain)}, nil, nil
}

func (m *memIssues) CreateLabel(_ context.Context, _, _ string, l *github.Label) (*github.Label, *github.Response, error) {
	if err := m.call("create label " + l.GetName()); err != nil {
		return nil, nil, err
	}
	if m.labels[l.GetName()] {
		return nil, nil, ghfake.ErrorResponse(422, "POST", "/repos/o/r/labels", github.Error{Resource: "Label", Field: "name", Code: "already_exists"})
	}
	m.labels[l.GetName()] = true
	return l, nil, nil
}

func reviewTask(id, file string, findings ...string) decide.Task {
	return decide.Task{ID: id, Type: "fix", Title: "Fix " + file, TargetFiles: []string{file}, Findings: findings,
		Acceptance: "review round 3 reports no critical or high finding in " + file, DependsOn: []string{}}
}

func spec(round int, tasks ...decide.Task) SyncSpec {
	return SyncSpec{Owner: "o", Repo: "r", PR: 12, PRURL: "https://github.com/o/r/pull/12", LoopID: "review", Loop: decide.Review,
		Round: round, Tasks: tasks, BotLogin: bot}
}

func syncRound(t *testing.T, m *memIssues, s SyncSpec) SyncResult {
	t.Helper()
	m.calls = nil
	res, err := SyncIssues(context.Background(), m, s)
	if err != nil {
		t.Fatalf("sync round %d: %v", s.Round, err)
	}
	return res
}

func TestSyncIssuesAcrossRounds(t *testing.T) {
	t.Parallel()
	m := newMem()
	nofile := decide.Task{ID: "FIX-2-3", Type: "fix", Title: "Fix findings without a file", TargetFiles: []string{},
		Findings: []string{"high: the design has no rollback"}, Acceptance: "review round 2 no longer reports these findings", DependsOn: []string{}}
	round1 := spec(1, reviewTask("FIX-2-1", "a.go", "critical a.go:3 nil deref"), reviewTask("FIX-2-2", "b.go", "high b.go:9 leak"), nofile)

	// Round 1: labels created, three issues.
	res := syncRound(t, m, round1)
	wantCalls := []string{"list page 1", "get label gcloop", "create label gcloop", "get label gcloop:review", "create label gcloop:review",
		"create gcloop: fix a.go (PR #12, round 1)", "create gcloop: fix b.go (PR #12, round 1)",
		"create gcloop: Fix findings without a file (PR #12, round 1)"}
	if diff := cmp.Diff(wantCalls, m.calls); diff != "" {
		t.Errorf("round 1 calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, res.Created); diff != "" {
		t.Errorf("round 1 created (-want +got):\n%s", diff)
	}
	for i, p := range res.Planned {
		if p.Number != i+1 {
			t.Errorf("planned issue %d has number %d, want %d", i, p.Number, i+1)
		}
	}

	// The same round again: one list request, no mutation, no duplicate.
	res = syncRound(t, m, round1)
	if diff := cmp.Diff([]string{"list page 1"}, m.calls); diff != "" {
		t.Errorf("re-run calls (-want +got):\n%s", diff)
	}
	if len(res.Created)+len(res.Updated)+len(res.Closed) != 0 || len(m.issues) != 3 {
		t.Errorf("re-run changed something: %+v, %d issues", res, len(m.issues))
	}

	// Round 2: a.go still has a task (updated in place), b.go and the
	// file-less task are fixed (closed with a comment).
	res = syncRound(t, m, spec(2, reviewTask("FIX-3-1", "a.go", "critical a.go:4 nil deref")))
	wantCalls = []string{"list page 1", "edit #1", "comment #2", "edit #2 state=closed reason=completed", "comment #3", "edit #3 state=closed reason=completed"}
	if diff := cmp.Diff(wantCalls, m.calls); diff != "" {
		t.Errorf("round 2 calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(SyncResult{Updated: []int{1}, Closed: []int{2, 3}}, res, cmpNoPlans); diff != "" {
		t.Errorf("round 2 result (-want +got):\n%s", diff)
	}
	if got := m.find(1).GetTitle(); got != "gcloop: fix a.go (PR #12, round 2)" {
		t.Errorf("issue #1 title %q after round 2", got)
	}
	if got := m.comments[2]; len(got) != 1 || got[0] != "Resolved: round 2 of the review loop `review` on #12 has no task for this target any more." {
		t.Errorf("closing comment of #2: %q", got)
	}

	// Round 3 converges: the open issue is closed with a comment.
	s := spec(3)
	s.Converged = true
	res = syncRound(t, m, s)
	wantCalls = []string{"list page 1", "comment #1", "edit #1 state=closed reason=completed"}
	if diff := cmp.Diff(wantCalls, m.calls); diff != "" {
		t.Errorf("converged calls (-want +got):\n%s", diff)
	}
	if got := m.comments[1]; len(got) != 1 || got[0] != "Resolved: the review loop `review` converged in round 3 on #12." {
		t.Errorf("converge comment of #1: %q", got)
	}
	if diff := cmp.Diff([]int{1}, res.Closed); diff != "" {
		t.Errorf("converged closed (-want +got):\n%s", diff)
	}

	// Converged again (re-run): nothing left to close.
	syncRound(t, m, s)
	if diff := cmp.Diff([]string{"list page 1"}, m.calls); diff != "" {
		t.Errorf("converged re-run calls (-want +got):\n%s", diff)
	}
}

var cmpNoPlans = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Planned" }, cmp.Ignore())

func TestSyncIssuesKeepsOneIssuePerTargetOfAPair(t *testing.T) {
	t.Parallel()
	m := newMem()
	pair := func(n int, files ...string) []decide.Task {
		fix := decide.Task{ID: fmt.Sprintf("DESIGN-fix-%d", n), Type: "fix", Iteration: n, Title: fmt.Sprintf("Address audit findings of round %d", n),
			TargetFiles: files, Findings: []string{"critical: no threat model"}, Acceptance: "every listed finding is resolved in the artifacts", DependsOn: []string{}}
		re := decide.Task{ID: fmt.Sprintf("AUDIT-re-%d", n), Type: "audit", Iteration: n, Title: fmt.Sprintf("Re-audit after revision %d", n),
			TargetFiles: files, Findings: []string{}, Acceptance: "the audit signals audit_passed", DependsOn: []string{fix.ID}}
		return []decide.Task{fix, re}
	}
	s := spec(2, pair(2, "docs/design.md")...)
	s.Loop, s.LoopID = decide.Audit, "audit"
	res := syncRound(t, m, s)
	if diff := cmp.Diff([]int{1, 2}, res.Created); diff != "" {
		t.Fatalf("round 2 created (-want +got):\n%s", diff)
	}
	if got := m.find(1).GetTitle(); got != "gcloop: Address audit findings of round 2 (PR #12, round 2)" {
		t.Errorf("title %q", got)
	}
	s.Round, s.Tasks = 3, pair(3, "docs/design.md")
	res = syncRound(t, m, s)
	if diff := cmp.Diff(SyncResult{Updated: []int{1, 2}}, res, cmpNoPlans); diff != "" {
		t.Errorf("round 3 (-want +got):\n%s", diff)
	}
	if got := m.find(2).GetTitle(); got != "gcloop: Re-audit after revision 3 (PR #12, round 3)" {
		t.Errorf("title %q", got)
	}
}

func TestSyncIssues(t *testing.T) {
	t.Parallel()
	other := func(pr int, loopID string) *github.Issue {
		s := spec(1, reviewTask("FIX-2-1", "a.go", "x"))
		s.PR, s.LoopID = pr, loopID
		p := s.plan()[0]
		return &github.Issue{Title: github.String(p.Title), Body: github.String(p.Body), User: &github.User{Login: github.String(bot)},
			Labels: []*github.Label{{Name: github.String("gcloop")}, {Name: github.String("gcloop:review")}}}
	}
	planned := func(s SyncSpec, i int) *github.Issue {
		p := s.plan()[i]
		return &github.Issue{Title: github.String(p.Title), Body: github.String(p.Body), User: &github.User{Login: github.String(bot)},
			Labels: []*github.Label{{Name: github.String("gcloop")}, {Name: github.String("gcloop:review")}}}
	}
	base := spec(1, reviewTask("FIX-2-1", "a.go", "critical a.go:1 boom"))
	tests := []struct {
		name      string
		prepare   func(m *memIssues)
		spec      func() SyncSpec
		wantCalls []string
		want      SyncResult
		wantErr   string
	}{
		{
			name: "an escalation with no task reads and changes nothing",
			spec: func() SyncSpec { return spec(3) },
		},
		{
			name:    "a dry run makes no request",
			prepare: func(m *memIssues) { m.add(planned(base, 0)) },
			spec:    func() SyncSpec { s := base; s.DryRun = true; return s },
		},
		{
			name: "pull requests in the issue list are skipped",
			prepare: func(m *memIssues) {
				pr := planned(base, 0)
				pr.PullRequestLinks = &github.PullRequestLinks{URL: github.String("https://api.github.com/repos/o/r/pulls/1")}
				m.add(pr)
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "create gcloop: fix a.go (PR #12, round 1)"},
			want:      SyncResult{Created: []int{2}},
		},
		{
			name: "an issue by another author is not ours to update",
			prepare: func(m *memIssues) {
				is := planned(base, 0)
				is.User.Login = github.String("mallory")
				m.add(is)
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "create gcloop: fix a.go (PR #12, round 1)"},
			want:      SyncResult{Created: []int{2}},
		},
		{
			name: "issues of another PR or loop id are left alone on convergence",
			prepare: func(m *memIssues) {
				m.add(other(13, "review"))
				m.add(other(12, "security"))
				m.add(other(1, "review"))
			},
			spec:      func() SyncSpec { s := spec(2); s.Converged = true; return s },
			wantCalls: []string{"list page 1"},
		},
		{
			name: "open issues on later pages are found",
			prepare: func(m *memIssues) {
				m.perPage = 2
				m.add(other(13, "review"))
				m.add(other(14, "review"))
				m.add(planned(base, 0))
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "list page 2"},
		},
		{
			name: "a duplicate from a race is closed as not planned",
			prepare: func(m *memIssues) {
				m.add(planned(base, 0))
				m.add(planned(base, 0))
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "comment #2", "edit #2 state=closed reason=not_planned"},
			want:      SyncResult{Closed: []int{2}},
		},
		{
			name: "a label created meanwhile by another run is fine",
			prepare: func(m *memIssues) {
				m.labels["gcloop:review"] = true
				m.failIn = "get label gcloop:review"
				m.failErr = ghfake.ErrorResponse(404, "GET", "/x")
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "get label gcloop", "create label gcloop", "get label gcloop:review", "create label gcloop:review", "create gcloop: fix a.go (PR #12, round 1)"},
			want:      SyncResult{Created: []int{1}},
		},
		{
			name:    "extra labels are created too, their names escaped in the path",
			prepare: func(m *memIssues) { m.labels["gcloop"], m.labels["gcloop:review"] = true, true },
			spec:    func() SyncSpec { s := base; s.Labels = []string{" needs/triage ", "", "gcloop"}; return s },
			wantCalls: []string{"list page 1", "get label gcloop", "get label gcloop:review", "get label needs%2Ftriage", "create label needs/triage",
				"create gcloop: fix a.go (PR #12, round 1)"},
			want: SyncResult{Created: []int{1}},
		},
		{
			name: "a failed creation stops the sync with what was done",
			prepare: func(m *memIssues) {
				m.failIn = "create gcloop: fix b.go"
				m.failErr = ghfake.ErrorResponse(403, "POST", "/repos/o/r/issues")
			},
			spec: func() SyncSpec { s := base; s.Tasks = append(s.Tasks, reviewTask("FIX-2-2", "b.go", "y")); return s },
			wantCalls: []string{"list page 1", "get label gcloop", "create label gcloop", "get label gcloop:review", "create label gcloop:review",
				"create gcloop: fix a.go (PR #12, round 1)", "create gcloop: fix b.go (PR #12, round 1)"},
			want:    SyncResult{Created: []int{1}},
			wantErr: "fix issues: create the issue of task FIX-2-2: permission denied: Forbidden",
		},
		{
			name: "a label lookup that fails otherwise stops before any issue",
			prepare: func(m *memIssues) {
				m.failIn = "get label gcloop"
				m.failErr = ghfake.ErrorResponse(500, "GET", "/repos/o/r/labels/gcloop")
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1", "get label gcloop"},
			wantErr:   `fix issues: look up label "gcloop": server error: Internal Server Error`,
		},
		{
			name: "a failed listing is returned",
			prepare: func(m *memIssues) {
				m.failIn = "list"
				m.failErr = ghfake.ErrorResponse(502, "GET", "/repos/o/r/issues")
			},
			spec:      func() SyncSpec { return base },
			wantCalls: []string{"list page 1"},
			wantErr:   "fix issues: list open issues labelled gcloop:review, page 1: server error: Bad Gateway",
		},
		{
			name:    "a bad loop id is refused before any request",
			spec:    func() SyncSpec { s := base; s.LoopID = "a b"; return s },
			wantErr: `fix issues: loop id "a b": ` + decide.IDRule,
		},
		{
			name:    "an unknown loop is refused",
			spec:    func() SyncSpec { s := base; s.Loop = "Review"; return s },
			wantErr: `fix issues: loop "Review", want review, critique, audit, validation or coverage`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMem()
			if tt.prepare != nil {
				tt.prepare(m)
			}
			s := tt.spec()
			got, err := SyncIssues(context.Background(), m, s)
			if (err != nil || tt.wantErr != "") && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantCalls, m.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got, cmpNoPlans); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if s.DryRun && len(got.Planned) != len(s.Tasks) {
				t.Errorf("dry run planned %d issues for %d tasks", len(got.Planned), len(s.Tasks))
			}
		})
	}
}

func TestIssueBodyIsEscapedAndBounded(t *testing.T) {
	t.Parallel()
	hostile := "<img src=x onerror=alert(1)> @everyone see #1 | `code` <!-- gcloop:issue review pr12-0000000000000000 -->"
	var many []string
	for i := 0; i < 5000; i++ {
		many = append(many, fmt.Sprintf("high f.go:%d %s", i, strings.Repeat("&<>", 100)))
	}
	tests := []struct {
		name  string
		task  decide.Task
		check func(t *testing.T, p PlannedIssue)
	}{
		{
			name: "artifact text cannot inject HTML, ping, or forge the key",
			task: reviewTask("FIX-2-1", "@admin/x.go\u202e", hostile),
			check: func(t *testing.T, p PlannedIssue) {
				if strings.Contains(p.Body, "<img") || strings.Contains(p.Body, "<!-- gcloop:issue review pr12-0000") {
					t.Errorf("body holds raw artifact markup:\n%s", p.Body)
				}
				if ghfake.Pingable(p.Body) || ghfake.Pingable(p.Title) {
					t.Errorf("title %q or body pings", p.Title)
				}
				if strings.ContainsRune(p.Title, '\u202e') {
					t.Errorf("title %q keeps a bidi override", p.Title)
				}
				if got := parseIssueMarker(p.Body, "review"); got != p.Key {
					t.Errorf("key read back %q, want %q", got, p.Key)
				}
				if !strings.Contains(p.Body, "[#12](https://github.com/o/r/pull/12)") {
					t.Errorf("body does not link the PR:\n%s", p.Body)
				}
			},
		},
		{
			name: "a huge task is cut with a count of the rest",
			task: reviewTask("FIX-2-1", "f.go", many...),
			check: func(t *testing.T, p PlannedIssue) {
				if len(p.Body) > IssueBodyLimit {
					t.Errorf("body of %d bytes, over %d", len(p.Body), IssueBodyLimit)
				}
				if !strings.Contains(p.Body, " more (see the report on the pull request)") {
					t.Error("the cut is not counted")
				}
				if parseIssueMarker(p.Body, "review") != p.Key {
					t.Error("the cut body lost its key")
				}
			},
		},
		{
			name: "long lists of files and dependencies are cut",
			task: func() decide.Task {
				t := reviewTask("FIX-2-1", "f.go", "x")
				for i := 0; i < 20000; i++ {
					t.DependsOn = append(t.DependsOn, strings.Repeat("D", 900))
					t.TargetFiles = append(t.TargetFiles, strings.Repeat("f", 900))
				}
				return t
			}(),
			check: func(t *testing.T, p PlannedIssue) {
				if len(p.Body) > IssueBodyLimit || !strings.Contains(p.Body, "… and 19950 more") {
					t.Errorf("body of %d bytes without the count of the rest", len(p.Body))
				}
			},
		},
		{
			name: "a very long file name is cut in the title",
			task: reviewTask("FIX-2-1", strings.Repeat("d/", 300)+"x.go", "y"),
			check: func(t *testing.T, p PlannedIssue) {
				if n := len([]rune(p.Title)); n > titleRunes || !strings.HasSuffix(p.Title, "… (PR #12, round 1)") {
					t.Errorf("title of %d runes: %q", n, p.Title)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := spec(1, tt.task)
			s.DryRun = true
			res, err := SyncIssues(context.Background(), newMem(), s)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res.Planned[0])
		})
	}
}

func TestPlainTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain text stays as is", "Fix a_b.go", 50, "Fix a_b.go"},
		{"mentions and references are removed", "@team fixes #12 and ##3, not # 4", 50, "team fixes 12 and 3, not # 4"},
		{"lines, controls and bidi overrides are removed", "a\n\tb\u202e\u2066\u200b\x00c", 50, "a bc"},
		{"markdown and html are removed", "`x` *b* ~s~ [l](u) <!-- gcloop:state r e30 --> a\\|b", 80, "x b s l(u) !-- gcloop:state r e30 -- ab"},
		{"a reference hidden behind a removed character", "#`1 #\u200b2", 50, "1 2"},
		{"the cap puts an ellipsis", "abcdef", 4, "abc…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := plainTitle(tt.in, tt.max); got != tt.want {
				t.Errorf("plainTitle(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestTasksOfOneTargetGetDistinctKeys(t *testing.T) {
	t.Parallel()
	s := spec(1, reviewTask("FIX-2-1", "a.go", "x"), reviewTask("FIX-2-2", "a.go", "y"), reviewTask("FIX-2-3", "a.go", "z"))
	ps := s.plan()
	if ps[0].Key == ps[1].Key || ps[1].Key == ps[2].Key || ps[0].Key == ps[2].Key {
		t.Errorf("keys repeat: %s %s %s", ps[0].Key, ps[1].Key, ps[2].Key)
	}
	if again := s.plan(); again[2].Key != ps[2].Key {
		t.Error("keys are not stable from run to run")
	}
}

func TestSyncIssuesOverHTTP(t *testing.T) {
	t.Parallel()
	const (
		list1 = "GET /repos/o/r/issues?direction=asc&labels=gcloop%3Areview&per_page=100&sort=created&state=open"
		list2 = "GET /repos/o/r/issues?direction=asc&labels=gcloop%3Areview&page=2&per_page=100&sort=created&state=open"
	)
	loopLabel := map[string]string{"name": "gcloop:review", "color": loopLabelColor, "description": "Fix task of a gcloop review loop"}
	tests := []struct {
		name      string
		pulls     []ghfake.PullSpec // carry the loop label too: listed, and skipped
		labels    []string          // labels the repository has
		fail      []ghfake.FailRule
		wantReqs  []string
		wantLabel map[string]string // the body of POST …/labels; nil = none sent
	}{
		{
			name: "the list's pages are followed; a pull request is skipped and its labels are known to exist",
			pulls: []ghfake.PullSpec{
				{Number: 5, Title: "a PR", Labels: []string{"gcloop:review", "bot"}},
				{Number: 6, Title: "another PR", Labels: []string{"gcloop:review"}},
			},
			labels:   []string{"gcloop"},
			wantReqs: []string{list1, list2, "GET /repos/o/r/labels/gcloop", "POST /repos/o/r/issues"},
		},
		{
			name:   "a missing label is created, and one a concurrent run created first (422 already_exists) is fine",
			labels: []string{"gcloop", "bot"},
			fail: []ghfake.FailRule{{Pattern: "POST /repos/{owner}/{repo}/labels", Status: 422,
				Errors: []ghfake.FieldError{{Resource: "Label", Code: "already_exists", Field: "name"}}}},
			wantReqs: []string{list1, "GET /repos/o/r/labels/gcloop", "GET /repos/o/r/labels/gcloop:review", "POST /repos/o/r/labels",
				"GET /repos/o/r/labels/bot", "POST /repos/o/r/issues"},
			wantLabel: loopLabel,
		},
		{
			name:      "a missing label is created",
			labels:    []string{"gcloop", "bot"},
			wantReqs:  []string{list1, "GET /repos/o/r/labels/gcloop", "GET /repos/o/r/labels/gcloop:review", "POST /repos/o/r/labels", "GET /repos/o/r/labels/bot", "POST /repos/o/r/issues"},
			wantLabel: loopLabel,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ghfake.New(t)
			s.AddRepo("o", "r", 1, "main")
			s.AddToken("ghs_bot", bot, true)
			s.SetPerPage(1)
			for _, pr := range tt.pulls {
				pr.User, pr.HeadSHA, pr.HeadRef, pr.BaseSHA = "alice", strings.Repeat("a", 40), "feature", strings.Repeat("b", 40)
				s.AddPull("o", "r", pr)
			}
			for _, l := range tt.labels {
				s.AddLabel("o", "r", l, "ededed", "")
			}
			for _, f := range tt.fail {
				s.Fail(f)
			}
			st := spec(1, reviewTask("FIX-2-1", "a.go", "critical a.go:1 boom"))
			st.Labels = []string{"bot"}
			res, err := SyncIssues(context.Background(), s.Client("ghs_bot").Issues, st)
			if err != nil {
				t.Fatal(err)
			}
			var made []ghfake.Issue
			for _, is := range s.Issues("o", "r") {
				if !is.IsPull {
					made = append(made, is)
				}
			}
			if len(made) != 1 || !slices.Equal(res.Created, []int{made[0].Number}) {
				t.Fatalf("created %v; issues on GitHub %+v, want the one created", res.Created, made)
			}
			if is := made[0]; is.Title != "gcloop: fix a.go (PR #12, round 1)" || !slices.Equal(is.Labels, []string{"gcloop", "gcloop:review", "bot"}) ||
				parseIssueMarker(is.Body, "review") == "" || is.Author != bot {
				t.Errorf("issue %+v", is)
			}
			if diff := cmp.Diff(tt.wantReqs, s.RequestLines()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			var label map[string]string
			for _, r := range s.Requests() {
				if r.Method == "POST" && r.Path == "/repos/o/r/labels" {
					if err := json.Unmarshal(r.Body, &label); err != nil {
						t.Fatalf("label request %s: %v", r.Body, err)
					}
				}
			}
			if diff := cmp.Diff(tt.wantLabel, label); diff != "" {
				t.Errorf("label (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncIssuesOpensAtMostMaxIssuesMostSevereFirst(t *testing.T) {
	t.Parallel()
	var tasks []decide.Task
	sev := map[string]decide.Severity{}
	for i := 1; i <= 14; i++ {
		id := fmt.Sprintf("FIX-2-%d", i)
		tasks = append(tasks, reviewTask(id, fmt.Sprintf("f%02d.go", i), "x"))
		sev[id] = decide.High
	}
	sev["FIX-2-9"], sev["FIX-2-12"] = decide.Critical, decide.Critical
	delete(sev, "FIX-2-1") // unranked: last
	tests := []struct {
		name        string
		max         int
		wantFiles   []string
		wantSkipped []string
	}{
		{"the default is 10", 0,
			[]string{"f09.go", "f12.go", "f02.go", "f03.go", "f04.go", "f05.go", "f06.go", "f07.go", "f08.go", "f10.go"},
			[]string{"f11.go", "f13.go", "f14.go", "f01.go"}},
		{"a smaller cap", 3, []string{"f09.go", "f12.go", "f02.go"},
			[]string{"f03.go", "f04.go", "f05.go", "f06.go", "f07.go", "f08.go", "f10.go", "f11.go", "f13.go", "f14.go", "f01.go"}},
		{"a cap over the tasks", 20,
			[]string{"f09.go", "f12.go", "f02.go", "f03.go", "f04.go", "f05.go", "f06.go", "f07.go", "f08.go", "f10.go", "f11.go", "f13.go", "f14.go", "f01.go"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMem()
			s := spec(1, tasks...)
			s.MaxIssues, s.Severity = tt.max, sev
			res := syncRound(t, m, s)
			var got, skipped []string
			for _, is := range m.issues {
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(is.GetTitle(), "gcloop: fix "), " (PR #12, round 1)"))
			}
			for _, p := range res.Skipped {
				skipped = append(skipped, strings.TrimSuffix(strings.TrimPrefix(p.Title, "gcloop: fix "), " (PR #12, round 1)"))
			}
			if diff := cmp.Diff(tt.wantFiles, got); diff != "" {
				t.Errorf("issues opened (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			// A re-run opens, edits and closes nothing.
			again := syncRound(t, m, s)
			if len(again.Created)+len(again.Updated)+len(again.Closed) != 0 || len(m.issues) != len(tt.wantFiles) {
				t.Errorf("re-run: created %v updated %v closed %v", again.Created, again.Updated, again.Closed)
			}
		})
	}
}

func TestSyncIssuesLeavesTheIssueOfASkippedTaskOpen(t *testing.T) {
	t.Parallel()
	m := newMem()
	a, b := reviewTask("FIX-2-1", "a.go", "x"), reviewTask("FIX-2-2", "b.go", "y")
	syncRound(t, m, spec(1, a, b))
	s := spec(2, a, b)
	s.MaxIssues, s.Severity = 1, map[string]decide.Severity{"FIX-2-2": decide.Critical}
	res := syncRound(t, m, s)
	if len(res.Closed) != 0 || len(res.Skipped) != 1 || res.Skipped[0].TaskID != "FIX-2-1" {
		t.Errorf("closed %v, skipped %+v: the skipped task's issue must stay open", res.Closed, res.Skipped)
	}
}

func TestIssueTitlesAreCutTo120Characters(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("dir/", 60) + "@x`y`.go"
	s := spec(3, reviewTask("FIX-4-1", long, "x"), decide.Task{ID: "T", Type: "revise", Title: "[Click](https://evil) <b>@team</b> #1\u202e"})
	s.DryRun = true
	res, err := SyncIssues(context.Background(), nil, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Planned {
		if n := len([]rune(p.Title)); n > 120 {
			t.Errorf("title of %d characters: %q", n, p.Title)
		}
		if what := strings.TrimSuffix(p.Title, " (PR #12, round 3)"); strings.ContainsAny(what, "@`[]<>#\u202e") {
			t.Errorf("title %q keeps markdown, a mention, a reference or a bidi character", p.Title)
		}
		if !strings.HasSuffix(p.Title, " (PR #12, round 3)") {
			t.Errorf("title %q lost its tail", p.Title)
		}
	}
}

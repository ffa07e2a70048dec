package report

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
)

const bot = "github-actions[bot]"

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testState returns a state of loop id with n fix rounds.
func testState(t testing.TB, id string, n int) *decide.State {
	t.Helper()
	st := decide.NewState(decide.Review, id, 3)
	for i := 1; i <= n; i++ {
		score := float64(4 + i)
		st.Record(decide.RoundRecord{N: i, SHA: fmt.Sprintf("%040d", i), Time: t0.Add(time.Duration(i) * time.Hour),
			Decision: decide.Fix, Verdict: "REVISION_NEEDED", Score: &score,
			Fingerprints: []string{fmt.Sprintf("fp-%d", i)}, Tasks: []string{fmt.Sprintf("FIX-%d-1", i+1)}, Issues: []int{}})
	}
	return st
}

func marker(t testing.TB, st *decide.State) string {
	t.Helper()
	m, err := Marker(st)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func comment(id int64, login, body string, created time.Time) *github.IssueComment {
	return &github.IssueComment{ID: github.Int64(id), Body: github.String(body), User: &github.User{Login: github.String(login)},
		CreatedAt: &github.Timestamp{Time: created}}
}

// fakeComments serves comment pages and records calls; it fails the way
// GitHub fails.
type fakeComments struct {
	pages    [][]*github.IssueComment
	next     func(page int) int // overrides the next page, for broken links
	listErr  error
	calls    []string
	created  []string
	nextID   int64
	listOpts []github.IssueListCommentsOptions
}

func (f *fakeComments) ListComments(_ context.Context, owner, repo string, n int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, fmt.Sprintf("list %s/%s#%d page %d", owner, repo, n, opts.Page))
	f.listOpts = append(f.listOpts, *opts)
	if f.listErr != nil {
		return nil, nil, f.listErr
	}
	p := max(opts.Page, 1)
	resp := &github.Response{}
	if p < len(f.pages) {
		resp.NextPage = p + 1
	}
	if f.next != nil {
		resp.NextPage = f.next(p)
	}
	if p > len(f.pages) {
		return nil, resp, nil
	}
	return f.pages[p-1], resp, nil
}

func (f *fakeComments) CreateComment(_ context.Context, _, _ string, n int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, fmt.Sprintf("create #%d", n))
	f.created = append(f.created, c.GetBody())
	f.nextID++
	return &github.IssueComment{ID: github.Int64(1000 + f.nextID), Body: c.Body}, nil, nil
}

func (f *fakeComments) GetComment(_ context.Context, _, _ string, id int64) (*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, fmt.Sprintf("get %d", id))
	for _, page := range f.pages {
		for _, c := range page {
			if c.GetID() == id {
				return c, nil, nil
			}
		}
	}
	return nil, nil, ghfake.ErrorResponse(404, "GET", fmt.Sprintf("/repos/o/r/issues/comments/%d", id))
}

func (f *fakeComments) EditComment(_ context.Context, _, _ string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, fmt.Sprintf("edit %d", id))
	return &github.IssueComment{ID: github.Int64(id), Body: c.Body}, nil, nil
}

func TestFindStateChoosesTheTrustedComment(t *testing.T) {
	t.Parallel()
	st1 := testState(t, "review", 1)
	st2 := testState(t, "review", 2)
	other := testState(t, "security", 3)
	m1, m2, mo := marker(t, st1), marker(t, st2), marker(t, other)
	corrupt := "<!-- gcloop:state review eyJub3QiOiJzdGF0ZSJ9 -->" // {"not":"state"}
	r1, r2, rc := report("review", m1), report("review", m2), report("review", corrupt)
	misfit := func(id int64, why string) string {
		return fmt.Sprintf("comment %d by `github-actions[bot]` carries a state marker of loop `review` but is not gcloop's report (%s): ignored and left alone", id, why)
	}
	tests := []struct {
		name      string
		pages     [][]*github.IssueComment
		key       []byte
		wantID    int64 // 0: no comment
		wantState *decide.State
		wantNotes []string
	}{
		{
			name:  "no comments means no state and no note",
			pages: [][]*github.IssueComment{{}},
		},
		{
			name:      "the bot's comment with the marker is found",
			pages:     [][]*github.IssueComment{{comment(1, "alice", "lgtm", t0), comment(2, bot, r1, t0)}},
			wantID:    2,
			wantState: st1,
		},
		{
			name:      "the login is compared case-insensitively",
			pages:     [][]*github.IssueComment{{comment(2, "GitHub-Actions[BOT]", r1, t0)}},
			wantID:    2,
			wantState: st1,
		},
		{
			name:   "a marker by another author is ignored and noted",
			pages:  [][]*github.IssueComment{{comment(5, "mallory", r2, t0.Add(-time.Hour)), comment(2, bot, r1, t0)}},
			wantID: 2, wantState: st1,
			wantNotes: []string{"state marker of loop `review` in comment 5 by `mallory` ignored: only comments by `github-actions[bot]` are trusted"},
		},
		{
			name:  "the bare name of the bot app is another account",
			pages: [][]*github.IssueComment{{comment(5, "github-actions", r2, t0)}},
			wantNotes: []string{
				"state marker of loop `review` in comment 5 by `github-actions` ignored: only comments by `github-actions[bot]` are trusted"},
		},
		{
			name:  "a hostile login is quoted without characters that could ping or break out",
			pages: [][]*github.IssueComment{{comment(5, "@alice`<b>", r2, t0)}},
			wantNotes: []string{
				"state marker of loop `review` in comment 5 by `?alice??b?` ignored: only comments by `github-actions[bot]` are trusted"},
		},
		{
			name:  "a comment without an author is not trusted",
			pages: [][]*github.IssueComment{{{ID: github.Int64(7), Body: github.String(r1)}}},
			wantNotes: []string{
				"state marker of loop `review` in comment 7 by `(unknown)` ignored: only comments by `github-actions[bot]` are trusted"},
		},
		{
			name:  "the marker of another loop id is not this loop's",
			pages: [][]*github.IssueComment{{comment(3, bot, report("security", mo), t0)}},
		},
		{
			name:      "forged: the header is missing",
			pages:     [][]*github.IssueComment{{comment(3, bot, "echo of an issue title\n"+m2+"\n", t0), comment(4, bot, r1, t0.Add(time.Hour))}},
			wantID:    4,
			wantState: st1,
			wantNotes: []string{misfit(3, "it does not start with gcloop's report header")},
		},
		{
			name:      "forged: the header of another loop id",
			pages:     [][]*github.IssueComment{{comment(3, bot, Header("security")+m2, t0)}},
			wantNotes: []string{misfit(3, "it does not start with gcloop's report header")},
		},
		{
			name:      "forged: the marker is not the last line",
			pages:     [][]*github.IssueComment{{comment(3, bot, Header("review")+m2+"\nmore text", t0)}},
			wantNotes: []string{misfit(3, "its state marker is not its last line")},
		},
		{
			name:      "forged: text after the marker on its line",
			pages:     [][]*github.IssueComment{{comment(3, bot, Header("review")+"x\n"+m2+" tail\n", t0)}},
			wantNotes: []string{misfit(3, "its state marker is not its last line")},
		},
		{
			name:      "forged: a second marker before the last line",
			pages:     [][]*github.IssueComment{{comment(3, bot, Header("review")+m2+"\n"+m1+"\n", t0)}},
			wantNotes: []string{misfit(3, "it holds more than one state marker")},
		},
		{
			name:      "forged: an unsigned state when a key is configured",
			key:       []byte("k1"),
			pages:     [][]*github.IssueComment{{comment(3, bot, r2, t0)}},
			wantNotes: []string{misfit(3, "its state carries no signature, and a state-key is configured")},
		},
		{
			name:      "forged: a state signed with another key",
			key:       []byte("k1"),
			pages:     [][]*github.IssueComment{{comment(3, bot, report("review", sealed(t, st2, scope7, "k2")), t0)}},
			wantNotes: []string{misfit(3, "its state signature does not match the state-key")},
		},
		{
			name:      "forged: a signed state copied from another pull request",
			key:       []byte("k1"),
			pages:     [][]*github.IssueComment{{comment(3, bot, report("review", sealed(t, st2, Scope{Owner: "o", Repo: "r", PR: 8, LoopID: "review"}, "k1")), t0)}},
			wantNotes: []string{misfit(3, "its state signature does not match the state-key")},
		},
		{
			name:      "a state signed with the key is trusted",
			key:       []byte("k1"),
			pages:     [][]*github.IssueComment{{comment(3, bot, report("review", sealed(t, st2, scope7, "k1")), t0)}},
			wantID:    3,
			wantState: st2,
		},
		{
			name:      "without a key a signature is not needed and not checked",
			pages:     [][]*github.IssueComment{{comment(3, bot, report("review", sealed(t, st2, scope7, "k2")), t0)}},
			wantID:    3,
			wantState: st2,
		},
		{
			name:      "a report from before the header is read without a key",
			pages:     [][]*github.IssueComment{{comment(3, bot, "<!-- gcloop:banner -->\n> **`/gc retry`** by x.\n\n## 🔁 gcloop review — FIX\n\ntext\n"+m2+"\n", t0)}},
			wantID:    3,
			wantState: st2,
		},
		{
			name:      "forged: an old-style heading is not enough with a key",
			key:       []byte("k1"),
			pages:     [][]*github.IssueComment{{comment(3, bot, "## 🔁 gcloop review — FIX\n"+sealed(t, st2, scope7, "k1")+"\n", t0)}},
			wantNotes: []string{misfit(3, "it does not start with gcloop's report header")},
		},
		{
			name:      "a corrupt marker gives no state but keeps the comment to edit",
			pages:     [][]*github.IssueComment{{comment(4, bot, rc, t0)}},
			wantID:    4,
			wantNotes: []string{`unreadable state in comment 4 (state marker of "review": state is not valid JSON: json: unknown field "not"): the loop started from round 1`},
		},
		{
			name:      "of two bot comments the oldest wins",
			pages:     [][]*github.IssueComment{{comment(2, bot, r1, t0), comment(9, bot, r2, t0.Add(time.Hour))}},
			wantID:    2,
			wantState: st1,
			wantNotes: []string{"2 comments by `github-actions[bot]` carry the state of loop `review`; used comment 2, left comment(s) 9 as they are"},
		},
		{
			name:      "oldest by creation time, not by position",
			pages:     [][]*github.IssueComment{{comment(9, bot, r2, t0.Add(-time.Hour)), comment(2, bot, r1, t0)}},
			wantID:    9,
			wantState: st2,
			wantNotes: []string{"2 comments by `github-actions[bot]` carry the state of loop `review`; used comment 9, left comment(s) 2 as they are"},
		},
		{
			name:      "an older comment on the second page wins",
			pages:     [][]*github.IssueComment{{comment(2, bot, r1, t0)}, {comment(9, bot, r2, t0.Add(-time.Hour))}},
			wantID:    9,
			wantState: st2,
			wantNotes: []string{"2 comments by `github-actions[bot]` carry the state of loop `review`; used comment 9, left comment(s) 2 as they are"},
		},
		{
			name:      "a corrupt older comment loses to a newer readable one",
			pages:     [][]*github.IssueComment{{comment(2, bot, r1, t0.Add(time.Hour)), comment(9, bot, rc, t0)}},
			wantID:    2,
			wantState: st1,
			wantNotes: []string{
				"2 comments by `github-actions[bot]` carry the state of loop `review`; used comment 2, left comment(s) 9 as they are",
				`unreadable state in the older comment 9 (state marker of "review": state is not valid JSON: json: unknown field "not"): used the newer readable one`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeComments{pages: tt.pages}
			got, err := FindState(context.Background(), f, "o", "r", 7, "review", Trust{Login: bot, Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			if id := got.Comment.GetID(); id != tt.wantID {
				t.Errorf("comment %d, want %d", id, tt.wantID)
			}
			if diff := cmp.Diff(tt.wantState, got.State); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNotes, got.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if len(f.calls) != len(tt.pages) {
				t.Errorf("%d list requests for %d pages: %q", len(f.calls), len(tt.pages), f.calls)
			}
			for _, n := range got.Notes {
				if strings.Contains(n, "@") {
					t.Errorf("note %q holds an '@'", n)
				}
			}
		})
	}
}

func TestFindStateCapsTheNotesAboutOtherAuthors(t *testing.T) {
	t.Parallel()
	m := marker(t, testState(t, "review", 1))
	var page []*github.IssueComment
	for i := 1; i <= 8; i++ {
		page = append(page, comment(int64(i), fmt.Sprintf("user%d", i), m, t0))
	}
	got, err := FindState(context.Background(), &fakeComments{pages: [][]*github.IssueComment{page}}, "o", "r", 7, "review", Trust{Login: bot})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != maxIgnoredNotes+1 || got.Notes[maxIgnoredNotes] != "3 more state markers of loop `review` in comments by other accounts ignored" {
		t.Errorf("notes %q, want %d notes and a count of the rest", got.Notes, maxIgnoredNotes+1)
	}
}

func TestFindStateFails(t *testing.T) {
	t.Parallel()
	listErr := ghfake.ErrorResponse(http.StatusBadGateway, "GET", "/repos/o/r/issues/7/comments")
	tests := []struct {
		name    string
		f       *fakeComments
		pr      int
		id, bot string
		want    string
	}{
		{name: "on an invalid loop id", f: &fakeComments{}, pr: 7, id: "bad id", bot: bot,
			want: `find state: loop id "bad id": ` + decide.IDRule},
		{name: "without a bot login", f: &fakeComments{}, pr: 7, id: "review",
			want: "find state: the bot login is empty, want the login of the token's user"},
		{name: "on a PR number of zero", f: &fakeComments{}, id: "review", bot: bot,
			want: "find state: pull request number 0, want a positive number"},
		{name: "when listing fails", f: &fakeComments{listErr: listErr}, pr: 7, id: "review", bot: bot,
			want: "find state: list comments of PR #7, page 1: GET https://api.github.com/repos/o/r/issues/7/comments: 502 Bad Gateway []"},
		{name: "when a page links back", f: &fakeComments{pages: [][]*github.IssueComment{{}, {}}, next: func(int) int { return 1 }}, pr: 7, id: "review", bot: bot,
			want: "find state: comments of PR #7: page 1 links back to page 1, want a later page"},
		{name: "past the page cap", f: &fakeComments{pages: [][]*github.IssueComment{{}}, next: func(p int) int { return p + 1 }}, pr: 7, id: "review", bot: bot,
			want: `find state: PR #7 has more than 20000 comments; gave up looking for the state of loop "review"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FindState(context.Background(), tt.f, "o", "r", tt.pr, tt.id, Trust{Login: tt.bot})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFindStateOverHTTP(t *testing.T) {
	t.Parallel()
	st := testState(t, "review", 2)
	m := marker(t, st)
	type posted struct{ author, body string }
	tests := []struct {
		name     string
		comments []posted
		perPage  int // the fake's page size; 0 = GitHub's
		want     int // index of the report comment in comments
		wantReqs []string
	}{
		{
			name:     "a PR whose comments fit in one page costs one request",
			comments: []posted{{"alice", "hi"}, {bot, report("review", m)}},
			want:     1,
			wantReqs: []string{"GET /repos/o/r/issues/7/comments?per_page=100"},
		},
		{
			name:     "pages are followed through the Link header",
			comments: []posted{{"alice", "hi"}, {"bob", "ok"}, {bot, report("review", m)}},
			perPage:  1,
			want:     2,
			wantReqs: []string{
				"GET /repos/o/r/issues/7/comments?per_page=100",
				"GET /repos/o/r/issues/7/comments?page=2&per_page=100",
				"GET /repos/o/r/issues/7/comments?page=3&per_page=100",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, client := fakeGitHub(t)
			s.SetPerPage(tt.perPage)
			var ids []int64
			for _, c := range tt.comments {
				ids = append(ids, s.AddComment("o", "r", 7, c.author, c.body))
			}
			got, err := FindState(context.Background(), client.Issues, "o", "r", 7, "review", Trust{Login: bot})
			if err != nil {
				t.Fatal(err)
			}
			if got.Comment.GetID() != ids[tt.want] {
				t.Errorf("comment %d, want %d", got.Comment.GetID(), ids[tt.want])
			}
			if diff := cmp.Diff(st, got.State); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantReqs, s.RequestLines()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// hugeDecision is a review decision whose full report is far over the
// comment limit.
func hugeDecision(st *decide.State) *decide.Decision {
	score := 3.0
	d := &decide.Decision{Loop: decide.Review, ID: st.ID, Outcome: decide.Fix, Verdict: "REVISION_NEEDED", Round: len(st.Rounds),
		MaxRounds: 50, Score: &score, Status: decide.StatusComplete, Time: t0, History: st.Rounds}
	for i := 0; i < 3000; i++ {
		d.Findings = append(d.Findings, decide.Finding{Severity: decide.High, File: fmt.Sprintf("pkg/file%04d.go", i), Line: i + 1,
			Message: strings.Repeat("<b>@everyone</b> | broken ", 20)})
	}
	for i := 0; i < 200; i++ {
		d.Tasks = append(d.Tasks, decide.Task{ID: fmt.Sprintf("FIX-2-%d", i+1), Type: "fix", Title: "Fix x", TargetFiles: []string{"x.go"},
			Findings: []string{strings.Repeat("finding ", 50)}})
	}
	return d
}

// bigState is a state of 40 rounds with 31 fingerprints each.
func bigState(t testing.TB) *decide.State {
	st := testState(t, "review", 40)
	for i := range st.Rounds {
		for k := 0; k < 30; k++ {
			st.Rounds[i].Fingerprints = append(st.Rounds[i].Fingerprints, fmt.Sprintf("%064x", i*1000+k))
		}
	}
	return st
}

func TestBodyFitsTheCommentLimitAndCarriesTheState(t *testing.T) {
	t.Parallel()
	st := bigState(t)
	d := hugeDecision(st)
	body, err := Body(d, st, Options{BlobURL: "https://github.com/o/r/blob/abc/"}, scope7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > CommentLimit {
		t.Fatalf("body of %d bytes, over %d", len(body), CommentLimit)
	}
	got, err := ParseMarker(body, "review")
	if err != nil {
		t.Fatalf("the body's marker does not read back: %v", err)
	}
	if got.Last().N != 40 || len(got.Rounds[len(got.Rounds)-1].Fingerprints) != 31 {
		t.Errorf("the newest round was not kept whole: n=%d, %d fingerprints", got.Last().N, len(got.Rounds[len(got.Rounds)-1].Fingerprints))
	}
	if ghfake.Pingable(body) {
		t.Error("the body holds an '@' that pings")
	}

	// The fake refuses bodies over the limit the way GitHub does (a 422); a
	// body from Body never meets that refusal.
	s, client := fakeGitHub(t)
	if _, err := Swap(context.Background(), client.Issues, "o", "r", 7, nil, body); err != nil {
		t.Fatalf("swap: %v", err)
	}
	if got := s.Comments("o", "r", 7); len(got) != 1 || got[0].Body != body {
		t.Errorf("%d comments on GitHub, want the one body sent", len(got))
	}
}

func TestBodyFails(t *testing.T) {
	t.Parallel()
	st := testState(t, "review", 1)
	bad := testState(t, "review", 1)
	bad.ID = "no spaces allowed"
	tests := []struct {
		name string
		d    *decide.Decision
		st   *decide.State
		want string
	}{
		{"without a decision", nil, st, "report comment: no decision"},
		{"without a state", &decide.Decision{Loop: decide.Review}, nil, "report comment: no state to carry"},
		{"with a state id no marker can hold", &decide.Decision{Loop: decide.Review}, bad,
			`report comment: state loop id "no spaces allowed": ` + decide.IDRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Body(tt.d, tt.st, Options{}, scope7, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReportRoundTripIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := &fakeComments{pages: [][]*github.IssueComment{{comment(1, "alice", "please review", t0)}}}
	found, err := FindState(ctx, f, "o", "r", 7, "review", Trust{Login: bot})
	if err != nil || found.Comment != nil || found.State != nil {
		t.Fatalf("fresh PR: %+v, %v", found, err)
	}
	st := testState(t, "review", 1)
	score := 5.0
	d := &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Fix, Verdict: "REVISION_NEEDED", Round: 1, MaxRounds: 3,
		Score: &score, Status: decide.StatusComplete, Time: t0, History: st.Rounds}
	body, err := Body(d, st, Options{}, scope7, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Swap(ctx, f, "o", "r", 7, found.Comment, body)
	if err != nil {
		t.Fatal(err)
	}
	c.User = &github.User{Login: github.String(bot)}
	f.pages[0] = append(f.pages[0], c)

	// The re-run finds the comment and its state, renders the same body and
	// sends nothing.
	f.calls = nil
	again, err := FindState(ctx, f, "o", "r", 7, "review", Trust{Login: bot})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, again.State); diff != "" {
		t.Errorf("state read back (-want +got):\n%s", diff)
	}
	body2, err := Body(d, again.State, Options{}, scope7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Swap(ctx, f, "o", "r", 7, again.Comment, body2); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"list o/r#7 page 0"}, f.calls); diff != "" {
		t.Errorf("re-run calls (-want +got):\n%s", diff)
	}
}

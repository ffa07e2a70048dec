package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// FuzzFindState feeds hostile comment bodies and logins to FindState: it
// never panics, trusts only the bot's comments, and writes notes that
// cannot ping.
func FuzzFindState(f *testing.F) {
	m := marker(f, testState(f, "review", 2))
	f.Add("report\n"+m, bot, "x", "mallory")
	f.Add(m, "mallory", m, bot)
	f.Add("<!-- gcloop:state review eyJub3QiOiJzdGF0ZSJ9 -->", bot, m, "GITHUB-ACTIONS[BOT]")
	f.Add("<!-- gcloop:state review !!! -->", bot, "", "")
	f.Add("<!-- gcloop:state review "+strings.Repeat("A", 5000)+" -->", "@x`<", m+m, bot)
	f.Add(strings.Replace(m, "review", "other", 1), bot, "<!-- gcloop:state review e30 -->", bot)
	st := testState(f, "review", 1)
	signed := sealed(f, st, Scope{Owner: "o", Repo: "r", PR: 1, LoopID: "review"}, "key")
	f.Add(report("review", signed), bot, report("review", m), bot)
	f.Add(Header("review")+m+"\n\n", bot, Header("review")+m+" x", bot)
	f.Add(Header("review")+m+"\n"+m, bot, Header("review")+"<!-- GCLOOP:STATE x -->\n"+m, bot)
	f.Fuzz(func(t *testing.T, body1, login1, body2, login2 string) {
		page := []*github.IssueComment{comment(1, login1, body1, t0), comment(2, login2, body2, t0)}
		got, err := FindState(context.Background(), &fakeComments{pages: [][]*github.IssueComment{page}}, "o", "r", 1, "review", Trust{Login: bot})
		if err != nil {
			t.Fatal(err)
		}
		if got.Comment != nil && !strings.HasPrefix(got.Comment.GetBody(), Header("review")) {
			t.Errorf("trusted a comment without the header: %q", got.Comment.GetBody())
		}
		keyed, err := FindState(context.Background(), &fakeComments{pages: [][]*github.IssueComment{page}}, "o", "r", 1, "review", Trust{Login: bot, Key: []byte("key")})
		if err != nil {
			t.Fatal(err)
		}
		if c := keyed.Comment; c != nil && (!strings.Contains(c.GetBody(), " hmac-") || !strings.EqualFold(c.GetUser().GetLogin(), bot)) {
			t.Errorf("with a key, trusted an unsigned or foreign comment: %q", c.GetBody())
		}
		if got.Comment != nil && !strings.EqualFold(got.Comment.GetUser().GetLogin(), bot) {
			t.Errorf("trusted a comment by %q", got.Comment.GetUser().GetLogin())
		}
		if got.State != nil && (got.Comment == nil || got.State.ID != "review") {
			t.Errorf("state %+v without its comment, or of another loop", got.State)
		}
		for _, n := range got.Notes {
			if strings.Contains(n, "@") {
				t.Errorf("note %q holds an '@'", n)
			}
		}
	})
}

// FuzzIssuePlan feeds hostile task text to the issue planner: it never
// panics, bodies stay within the limit and carry their own key only, and
// titles are one line that cannot ping.
func FuzzIssuePlan(f *testing.F) {
	f.Add("a.go", "critical a.go:1 <script>@x</script>", "Fix a.go", "FIX-2-1", "done")
	f.Add("", "<!-- gcloop:issue review pr1-0123456789abcdef -->", "Address audit findings of round 2", "DESIGN-fix-2", "")
	f.Add("@team/\u202ex.go\n", "#1 `|` \x00", "", "", "line\n# heading\n- item")
	f.Add(strings.Repeat("é", 400), strings.Repeat("&", 3000), strings.Repeat("#1", 300), "x", "y")
	f.Fuzz(func(t *testing.T, file, finding, title, id, acceptance string) {
		task := decide.Task{ID: id, Type: "fix", Title: title, Findings: []string{finding, finding}, Acceptance: acceptance}
		if file != "" {
			task.TargetFiles = []string{file}
		}
		s := spec(1, task)
		s.DryRun = true
		res, err := SyncIssues(context.Background(), newMem(), s)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Planned[0]
		if len(p.Body) > IssueBodyLimit {
			t.Errorf("body of %d bytes", len(p.Body))
		}
		if n := len(issueMarkerRE.FindAllString(p.Body, -1)); n != 1 || parseIssueMarker(p.Body, "review") != p.Key {
			t.Errorf("body holds %d keys, want only its own %s", n, p.Key)
		}
		if decide.HasMarker(p.Body) {
			t.Error("body holds a state marker")
		}
		if strings.ContainsAny(p.Title, "\n\r") || pingable(p.Title) || pingable(p.Body) || len([]rune(p.Title)) > titleRunes {
			t.Errorf("title %q", p.Title)
		}
	})
}

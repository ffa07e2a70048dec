package report

import (
	"context"
	"strings"
	"testing"

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

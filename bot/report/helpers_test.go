package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
)

// fakeGitHub is the fake GitHub of the comment tests: repository o/r with
// PR #7, the bot's token, and a clock stopped at t0. The client sends the
// bot's token.
func fakeGitHub(t *testing.T) (*ghfake.Server, *github.Client) {
	t.Helper()
	s := ghfake.New(t)
	s.SetClock(func() time.Time { return t0 })
	s.AddRepo("o", "r", 1, "main")
	s.AddToken("ghs_bot", bot, true)
	s.AddPull("o", "r", ghfake.PullSpec{Number: 7, User: "alice", HeadSHA: strings.Repeat("a", 40), HeadRef: "feature", BaseSHA: strings.Repeat("b", 40)})
	return s, s.Client("ghs_bot")
}

// scope7 is the scope of loop review on PR o/r#7, the PR of the comment
// tests.
var scope7 = Scope{Owner: "o", Repo: "r", PR: 7, LoopID: "review"}

// report is a report comment of loop id as gcloop shapes it: its header,
// some text, the marker m as the last line.
func report(id, m string) string { return Header(id) + "## report\n\ntext\n" + m + "\n" }

// sealed is the state marker of st signed over s with key.
func sealed(t testing.TB, st *decide.State, s Scope, key string) string {
	t.Helper()
	m, err := Seal(st, s, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

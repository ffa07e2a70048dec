package report

import (
	"testing"

	"github.com/gcloop/gcloop/decide"
)

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

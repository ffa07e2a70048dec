package ghfake_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v62/github"
)

// TestIssueCloseAndReopen: PATCH state closed then open, as the OpenAPI
// description takes them; a reopened issue reads back open, with the state
// reason "reopened", and lists among the open ones again.
func TestIssueCloseAndReopen(t *testing.T) {
	t.Parallel()
	_, c := world(t)
	ctx := context.Background()
	is, _, err := c.Issues.Create(ctx, owner, repo, &github.IssueRequest{Title: github.String("gcloop: fix a.go"), Body: github.String("b")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	steps := []struct {
		req        *github.IssueRequest
		state      string
		reason     string
		listedOpen bool
	}{
		{&github.IssueRequest{State: github.String("closed"), StateReason: github.String("completed")}, "closed", "completed", false},
		{&github.IssueRequest{State: github.String("open"), Title: github.String("gcloop: fix a.go (round 3)"), Body: github.String("c")}, "open", "reopened", true},
	}
	for _, st := range steps {
		if _, _, err := c.Issues.Edit(ctx, owner, repo, n, st.req); err != nil {
			t.Fatalf("edit to %s: %v", st.state, err)
		}
		got, _, err := c.Issues.Get(ctx, owner, repo, n)
		if err != nil {
			t.Fatal(err)
		}
		if got.GetState() != st.state || got.GetStateReason() != st.reason {
			t.Errorf("issue %s (%s), want %s (%s)", got.GetState(), got.GetStateReason(), st.state, st.reason)
		}
		open, _, err := c.Issues.ListByRepo(ctx, owner, repo, &github.IssueListByRepoOptions{State: "open"})
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, o := range open {
			listed = listed || o.GetNumber() == n
		}
		if listed != st.listedOpen {
			t.Errorf("after %s: listed open %v, want %v", st.state, listed, st.listedOpen)
		}
	}
}

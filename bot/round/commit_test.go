package round_test

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
)

func str(s string) *string { return &s }

func TestEngineCoverageCommit(t *testing.T) {
	t.Parallel()
	const testFile = "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total() != 0 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n"
	tests := []struct {
		name       string
		changes    map[string]*string
		fork, move bool
		// onMain opens the PR from the default branch; protect protects
		// the head branch.
		onMain, protect bool
		wantCommit      bool
		wantReason      string // a part of the decision's reasons or notes
		wantFiles       []string
	}{
		{name: "a new test is pushed and the next round dispatched", changes: map[string]*string{"cart_test.go": str(testFile)},
			wantCommit: true, wantReason: "pushed 1 test-only file(s)", wantFiles: []string{"cart_test.go"}},
		{name: "a change to the code is refused as a whole", changes: map[string]*string{"cart_test.go": str(testFile), "cart.go": str("package cart\n\nfunc Total() int { return 0 }\n")},
			wantReason: "refused and not pushed (reverted)"},
		{name: "a deleted file is refused", changes: map[string]*string{"cart.go": nil},
			wantReason: "refused and not pushed (reverted)"},
		{name: "a fork's round escalates", changes: map[string]*string{"cart_test.go": str(testFile)}, fork: true,
			wantReason: "the PR comes from a fork"},
		{name: "a head that moved after the checkout is a conflict", changes: map[string]*string{"cart_test.go": str(testFile)}, move: true,
			wantReason: "conflict"},
		{name: "a PR from the default branch is not pushed to", changes: map[string]*string{"cart_test.go": str(testFile)}, onMain: true,
			wantReason: "protected_branch: the branch is not pushed to: main is the default branch of octo/shop"},
		{name: "a protected head branch is not pushed to", changes: map[string]*string{"cart_test.go": str(testFile)}, protect: true,
			wantReason: "protected_branch: the branch is not pushed to: feature/cart is a protected branch of octo/shop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("coverage:\n  dispatch: coverage.yml\n"))
			pull := w.pull()
			if tt.fork {
				pull.HeadRepoID = 999
			}
			if tt.move {
				// The PR's head moved on; the event still names the commit
				// that was checked out.
				judged := w.head
				w.head = w.gh.AddCommit(owner, repo, "feature/cart", w.gh.TreeFiles(owner, repo, judged), judged)
				pull.HeadSHA = judged
				defer func() { w.head = judged }()
			}
			branch := "feature/cart"
			if tt.onMain {
				branch, pull.HeadRef, pull.HeadSHA = "main", "main", w.base
				judged := w.head
				w.head = w.base
				defer func() { w.head = judged }()
			}
			if tt.protect {
				w.gh.Protect(owner, repo, "feature/cart", true)
			}
			before := w.gh.Ref(owner, repo, "heads/"+branch)
			res, reqs := w.runIn(t, evidence(t, "coverage"), round.Options{Comment: true}, 7, tt.changes, pull)
			// The branch is read only by a round that has a commit to push.
			reads := 0
			for _, r := range reqs {
				if r == "GET /repos/octo/shop" || strings.HasPrefix(r, "GET /repos/octo/shop/branches/") {
					reads++
				}
			}
			want := 0
			switch {
			case tt.onMain:
				want = 1 // the default branch is refused on the repository's read alone
			case tt.wantCommit || tt.protect || tt.move:
				want = 2
			}
			if reads != want {
				t.Errorf("%d reads of the repository and its branch, want %d: %q", reads, want, reqs)
			}
			d := res.Decision
			text := strings.Join(append(append([]string{}, d.Reasons...), d.Notes...), "\n")
			if !strings.Contains(text, tt.wantReason) {
				t.Errorf("reasons and notes do not say %q:\n%s", tt.wantReason, text)
			}
			after := w.gh.Ref(owner, repo, "heads/"+branch)
			if (tt.onMain || tt.protect) && !strings.Contains(res.Report, "the branch is not pushed to") {
				t.Errorf("the report does not say why nothing was pushed:\n%s", res.Report)
			}
			if !tt.wantCommit {
				if res.Commit != "" || after != before {
					t.Errorf("commit %q, branch %s → %s; want nothing pushed", res.Commit, before, after)
				}
				if tt.fork && d.Outcome != decide.Escalate {
					t.Errorf("outcome %s, want escalate", d.Outcome)
				}
				return
			}
			if res.Commit == "" || after != res.Commit {
				t.Fatalf("commit %q, branch at %s; want the commit pushed", res.Commit, after)
			}
			c := w.gh.Commit(owner, repo, res.Commit)
			if len(c.Parents) != 1 || c.Parents[0] != before {
				t.Errorf("parents %v, want the judged commit %s", c.Parents, before)
			}
			files := w.gh.TreeFiles(owner, repo, res.Commit)
			if string(files["cart_test.go"]) != testFile {
				t.Errorf("cart_test.go in the commit = %q", files["cart_test.go"])
			}
			if !res.Dispatched || len(w.gh.Dispatches(owner, repo)) != 1 {
				t.Errorf("dispatched %t (%d dispatches), want the next round", res.Dispatched, len(w.gh.Dispatches(owner, repo)))
			}
		})
	}
}

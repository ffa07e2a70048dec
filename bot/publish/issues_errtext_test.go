package publish

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// TestSyncIssuesGitHubFailuresReachNoTextRaw makes each GitHub call of the
// issue sync fail with go-github's error for a 403 whose URL carries a
// token, and checks that the error (which becomes a report note) reads in
// Describe's words: no URL, no token, no raw error list.
func TestSyncIssuesGitHubFailuresReachNoTextRaw(t *testing.T) {
	t.Parallel()
	task := reviewTask("FIX-2-1", "a.go", "critical a.go:1 boom")
	existing := func(m *memIssues) {
		p := spec(1, task).plan()[0]
		m.add(&github.Issue{Title: github.String(p.Title), Body: github.String(p.Body), User: &github.User{Login: github.String(bot)},
			Labels: []*github.Label{{Name: github.String("gcloop")}, {Name: github.String("gcloop:review")}}})
	}
	converged := spec(2)
	converged.Converged = true
	tests := []struct {
		failIn  string
		prepare func(m *memIssues)
		spec    SyncSpec
	}{
		{failIn: "list page 1", spec: spec(1, task)},
		{failIn: "get label gcloop", spec: spec(1, task)},
		{failIn: "create label gcloop", spec: spec(1, task)},
		{failIn: "create gcloop: fix", spec: spec(1, task)},
		{failIn: "edit #1", prepare: existing, spec: spec(2, reviewTask("FIX-2-1", "a.go", "critical a.go:2 still"))},
		{failIn: "comment #1", prepare: existing, spec: converged},
		{failIn: "edit #1 state=closed", prepare: existing, spec: converged},
	}
	for _, tt := range tests {
		t.Run(tt.failIn, func(t *testing.T) {
			t.Parallel()
			m := newMem()
			if tt.prepare != nil {
				tt.prepare(m)
			}
			u, _ := url.Parse("https://api.github.com/repos/o/r/issues?access_token=ghp_leakleakleak0123456789")
			m.failIn = tt.failIn
			m.failErr = &github.ErrorResponse{Message: "Resource not accessible by integration",
				Response: &http.Response{StatusCode: 403, Request: &http.Request{Method: "POST", URL: u}}}
			_, err := SyncIssues(context.Background(), m, tt.spec)
			if err == nil {
				t.Fatalf("err = nil, want GitHub's refusal (calls %q)", m.calls)
			}
			got := err.Error()
			for _, leak := range []string{"://", "api.github.com", "ghp_leak", "access_token", "[]"} {
				if strings.Contains(got, leak) {
					t.Errorf("err = %q names %q", got, leak)
				}
			}
			if !strings.Contains(got, "permission denied: Resource not accessible by integration") {
				t.Errorf("err = %q, want GitHub's refusal in Describe's words", got)
			}
			var er *github.ErrorResponse
			if !errors.As(err, &er) {
				t.Errorf("err = %v, want it to wrap GitHub's answer", err)
			}
		})
	}
}

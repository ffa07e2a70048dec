package ghfake_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// recorder is a testing.TB that keeps Errorf calls instead of failing, so a
// test can assert that the fake reports violations at cleanup.
type recorder struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) close() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func rawRequest(t *testing.T, method, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := ownTransport.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	resp.Body.Close()
	return resp
}

func TestInvalidRequestsAreReportedAsViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path, body string
		want                     string
	}{
		{"a comment body that is a number", "POST", "repos/acme/widgets/issues/1/comments", `{"body": 42}`, "issues/create-comment"},
		{"a comment without a body", "POST", "repos/acme/widgets/issues/1/comments", `{}`, "issues/create-comment"},
		{"an issue number that is not a number", "GET", "repos/acme/widgets/issues/one", ``, "issues/get"},
		{"a ref update without sha", "PATCH", "repos/acme/widgets/git/refs/heads/main", `{"force": true}`, "git/update-ref"},
		{"a reaction that GitHub does not know", "POST", "repos/acme/widgets/issues/comments/1/reactions", `{"content": "party"}`, "reactions/create-for-issue-comment"},
		{"an operation outside the subset", "GET", "repos/acme/widgets/branches", ``, "no operation"},
		{"a method the path does not have", "PUT", "repos/acme/widgets/issues/1", `{}`, "method not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			s := ghfake.New(rec)
			s.AddRepo(owner, repo, 42, "main")
			s.AddToken(token, bot, true)
			s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "t"})
			rawRequest(t, tt.method, s.URL()+tt.path, tt.body)
			v := s.Violations()
			if len(v) == 0 || !strings.Contains(strings.Join(v, "\n"), tt.want) {
				t.Errorf("violations = %q, want one naming %q", v, tt.want)
			}
			rec.close()
			if len(rec.errors) == 0 {
				t.Errorf("cleanup reported no violation through Errorf")
			}
		})
	}
}

func TestValidRequestsLeaveNoViolation(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	s := ghfake.New(rec)
	s.AddRepo(owner, repo, 42, "main")
	s.AddToken(token, bot, true)
	s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "t"})
	resp := rawRequest(t, "POST", s.URL()+"repos/acme/widgets/issues/1/comments", `{"body": "hello"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("status = %d, want 201", resp.StatusCode)
	}
	rec.close()
	if len(rec.errors) != 0 || len(s.Violations()) != 0 {
		t.Errorf("violations = %q, want none", s.Violations())
	}
}

func TestRequestsAreRecordedInOrder(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	if _, _, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: github.String("x")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Get(ctx, owner, repo, 1); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if string(reqs[0].Body) != `{"body":"x"}`+"\n" || reqs[0].Status != http.StatusCreated || reqs[0].Header.Get("Authorization") != "Bearer "+token {
		t.Errorf("first request = %+v", reqs[0])
	}
	var got []string
	for _, r := range reqs {
		got = append(got, r.Method+" "+r.Operation)
	}
	want := "POST issues/create-comment,GET pulls/get"
	if strings.Join(got, ",") != want {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

// ownTransport is the client of raw requests in these tests. It does not use
// http.DefaultTransport, whose idle connections every httptest.Server.Close
// drops — a parallel test closing its server would break a request here.
var ownTransport = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

package ghfake_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func TestWorkflowRunAndArtifacts(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	s.AddPull(owner, repo, ghfake.PullSpec{Number: 7, User: "mallory", HeadSHA: strings.Repeat("f", 40), HeadRef: "main", HeadRepo: "mallory/widgets", HeadRepoID: 99})
	runID := s.AddWorkflowRun(owner, repo, ghfake.RunSpec{ID: 555, HeadSHA: strings.Repeat("f", 40), HeadBranch: "main", HeadRepoID: 99, HeadRepo: "mallory/widgets", PullRequests: []int{7}})
	for _, name := range []string{"review", "coverage", "junit"} {
		s.AddArtifact(owner, repo, runID, name, []byte("PK\x03\x04"+name))
	}

	run, _, err := c.Actions.GetWorkflowRunByID(ctx, owner, repo, runID)
	if err != nil {
		t.Fatalf("GetWorkflowRunByID: %v", err)
	}
	if run.GetHeadRepository().GetID() != 99 || run.GetRepository().GetID() != 42 || !run.GetHeadRepository().GetFork() {
		t.Errorf("run repos = head %d (fork %v), base %d; want fork head 99, base 42", run.GetHeadRepository().GetID(), run.GetHeadRepository().GetFork(), run.GetRepository().GetID())
	}
	if len(run.PullRequests) != 1 || run.PullRequests[0].GetNumber() != 7 {
		t.Errorf("run pull_requests = %v, want #7", run.PullRequests)
	}

	s.SetPerPage(2)
	var names []string
	opts := &github.ListOptions{}
	for {
		list, resp, err := c.Actions.ListWorkflowRunArtifacts(ctx, owner, repo, runID, opts)
		if err != nil {
			t.Fatalf("ListWorkflowRunArtifacts: %v", err)
		}
		if list.GetTotalCount() != 3 {
			t.Errorf("total_count = %d, want 3", list.GetTotalCount())
		}
		for _, a := range list.Artifacts {
			names = append(names, a.GetName())
			if a.GetWorkflowRun().GetHeadRepositoryID() != 99 {
				t.Errorf("artifact %s head_repository_id = %d, want 99", a.GetName(), a.GetWorkflowRun().GetHeadRepositoryID())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if diff := cmp.Diff([]string{"review", "coverage", "junit"}, names); diff != "" {
		t.Errorf("artifact names (-want +got):\n%s", diff)
	}
}

func TestArtifactDownloadRedirectsToATokenRefusingBlobServer(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	runID := s.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: strings.Repeat("a", 40)})
	zip := []byte("PK\x03\x04 zip bytes")
	id := s.AddArtifact(owner, repo, runID, "review", zip)

	loc, resp, err := c.Actions.DownloadArtifact(ctx, owner, repo, id, 0)
	if err != nil {
		t.Fatalf("DownloadArtifact: %v", err)
	}
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status = %d, want 302", resp.StatusCode)
	}
	if strings.HasPrefix(loc.String(), s.URL()) {
		t.Errorf("Location %s points at the API server, want the blob server", loc)
	}

	get := func(auth string) (int, []byte) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := ownTransport.Do(req)
		if err != nil {
			t.Fatalf("GET blob: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, body := get(""); code != http.StatusOK || string(body) != string(zip) {
		t.Errorf("plain GET = %d %q, want 200 and the zip", code, body)
	}
	if code, _ := get("Bearer " + token); code != http.StatusBadRequest {
		t.Errorf("GET with the token = %d, want 400", code)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if code, _ := get(""); code != http.StatusGone {
		t.Errorf("GET after expiry = %d, want 410", code)
	}

	s.ExpireArtifact(id)
	// go-github's DownloadArtifact reports any status but 302 as a plain error.
	if _, resp, err := c.Actions.DownloadArtifact(ctx, owner, repo, id, 0); err == nil || resp == nil || resp.StatusCode != http.StatusGone {
		t.Errorf("download of an expired artifact: %v, want 410", err)
	}
}

func TestWorkflowDispatchAndRerun(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	s.AddCommit(owner, repo, "feature/x", map[string][]byte{"a.go": []byte("package a\n")})
	s.AddFile(owner, repo, "main", ".github/workflows/coverage.yml", []byte("on: workflow_dispatch\n"))
	s.AddWorkflow(owner, repo, "review.yml")

	tests := []struct {
		name     string
		workflow string
		ref      string
		status   int
	}{
		{"a workflow file on the default branch", "coverage.yml", "feature/x", http.StatusNoContent},
		{"a registered workflow", "review.yml", "refs/heads/feature/x", http.StatusNoContent},
		{"an unknown workflow", "nope.yml", "feature/x", http.StatusUnprocessableEntity},
		{"an unknown ref", "coverage.yml", "no-such-branch", http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, repo, tt.workflow, github.CreateWorkflowDispatchEventRequest{Ref: tt.ref, Inputs: map[string]interface{}{"round": "2"}})
			got := 0
			if resp != nil {
				got = resp.StatusCode
			}
			if got != tt.status {
				t.Errorf("status = %d (%v), want %d", got, err, tt.status)
			}
		})
	}
	want := []ghfake.Dispatch{
		{Workflow: "coverage.yml", Ref: "feature/x", Inputs: map[string]any{"round": "2"}, By: bot},
		{Workflow: "review.yml", Ref: "refs/heads/feature/x", Inputs: map[string]any{"round": "2"}, By: bot},
	}
	if diff := cmp.Diff(want, s.Dispatches(owner, repo)); diff != "" {
		t.Errorf("dispatches (-want +got):\n%s", diff)
	}

	runID := s.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: strings.Repeat("a", 40)})
	if resp, err := c.Actions.RerunWorkflowByID(ctx, owner, repo, runID); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("RerunWorkflowByID: %v", err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, owner, repo, runID)
	if err != nil || run.GetRunAttempt() != 2 {
		t.Errorf("run attempt after rerun = %d, %v; want 2", run.GetRunAttempt(), err)
	}
	if _, err := c.Actions.RerunWorkflowByID(ctx, owner, repo, 1); errStatus(err) != http.StatusNotFound {
		t.Errorf("rerun of an unknown run: %v, want 404", err)
	}
}

func TestPullsListGetAndCommitAssociation(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	head := s.AddCommit(owner, repo, "feature/y", map[string][]byte{"a": []byte("1")})
	next := s.AddCommit(owner, repo, "feature/y", map[string][]byte{"a": []byte("2")}, head)
	s.AddPull(owner, repo, ghfake.PullSpec{Number: 2, User: "bob", HeadSHA: next, HeadRef: "feature/y"})
	s.AddPull(owner, repo, ghfake.PullSpec{Number: 3, User: "eve", HeadSHA: strings.Repeat("e", 40), HeadRef: "feature/y", HeadRepo: "eve/widgets", HeadRepoID: 77})
	s.AddPull(owner, repo, ghfake.PullSpec{Number: 4, User: "bob", State: "closed", HeadSHA: strings.Repeat("c", 40), HeadRef: "old"})

	tests := []struct {
		name string
		opts github.PullRequestListOptions
		want []int
	}{
		{"open by default, newest first", github.PullRequestListOptions{}, []int{3, 2, 1}},
		{"all states", github.PullRequestListOptions{State: "all"}, []int{4, 3, 2, 1}},
		{"head names owner and branch", github.PullRequestListOptions{Head: "acme:feature/y"}, []int{2}},
		{"a fork's head", github.PullRequestListOptions{Head: "eve:feature/y"}, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, _, err := c.PullRequests.List(ctx, owner, repo, &tt.opts)
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			var got []int
			for _, p := range list {
				got = append(got, p.GetNumber())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	pr, _, err := c.PullRequests.Get(ctx, owner, repo, 3)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if pr.GetHead().GetRepo().GetID() != 77 || pr.GetBase().GetRepo().GetID() != 42 || !pr.GetHead().GetRepo().GetFork() {
		t.Errorf("fork PR head repo %d (fork %v), base %d", pr.GetHead().GetRepo().GetID(), pr.GetHead().GetRepo().GetFork(), pr.GetBase().GetRepo().GetID())
	}
	if pr.GetHead().GetRepo().GetFullName() != "eve/widgets" || pr.GetUser().GetLogin() != "eve" {
		t.Errorf("head repo %q, user %q", pr.GetHead().GetRepo().GetFullName(), pr.GetUser().GetLogin())
	}
	if _, _, err := c.PullRequests.Get(ctx, owner, repo, 99); errStatus(err) != http.StatusNotFound {
		t.Errorf("Get of a missing PR: %v, want 404", err)
	}

	for _, sha := range []string{next, head} {
		prs, _, err := c.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, nil)
		if err != nil {
			t.Fatalf("ListPullRequestsWithCommit: %v", err)
		}
		if len(prs) != 1 || prs[0].GetNumber() != 2 {
			t.Errorf("PRs with commit %s = %d, want #2 only", sha[:7], len(prs))
		}
	}
}

func TestFaultsAnswerLikeGitHub(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		rule  ghfake.FailRule
		check func(t *testing.T, err error)
	}{
		{"403 secondary rate limit with Retry-After", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 403, Times: 1, RetryAfter: 7},
			func(t *testing.T, err error) {
				var ab *github.AbuseRateLimitError
				if !errors.As(err, &ab) || ab.GetRetryAfter() != 7*time.Second {
					t.Errorf("err = %v, want *AbuseRateLimitError with RetryAfter 7s", err)
				}
			}},
		{"429 with Retry-After", ghfake.FailRule{Pattern: "PATCH /repos/acme/widgets/issues/comments/{id}", Status: 429, Times: 1, RetryAfter: 3},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 429 || er.Response.Header.Get("Retry-After") != "3" {
					t.Errorf("err = %v, want 429 *ErrorResponse with Retry-After 3", err)
				}
			}},
		{"primary rate limit", ghfake.FailRule{Pattern: "* /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 403, Times: 1, RateLimitReset: time.Now().Add(time.Hour)},
			func(t *testing.T, err error) {
				var rl *github.RateLimitError
				if !errors.As(err, &rl) {
					t.Errorf("err = %v, want *RateLimitError", err)
				}
			}},
		{"502 says retry at once", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 502, Times: 1},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 502 || er.Response.Header.Get("Retry-After") != "0" {
					t.Errorf("err = %v, want 502 with Retry-After 0", err)
				}
			}},
		{"503 with RetryAfter -1 sends no Retry-After", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 503, Times: 1, RetryAfter: -1},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 503 || er.Response.Header.Values("Retry-After") != nil {
					t.Errorf("err = %v, want 503 without Retry-After", err)
				}
			}},
		{"403 secondary limit with RetryNow says Retry-After 0", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 403, Times: 1, RetryNow: true},
			func(t *testing.T, err error) {
				var ab *github.AbuseRateLimitError
				if !errors.As(err, &ab) || ab.Response.StatusCode != 403 || ab.Response.Header.Get("Retry-After") != "0" {
					t.Errorf("err = %v, want a 403 secondary limit with Retry-After 0", err)
				}
			}},
		{"429 without RetryAfter sends none", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 429, Times: 1},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 429 || er.Response.Header.Values("Retry-After") != nil {
					t.Errorf("err = %v, want 429 without Retry-After", err)
				}
			}},
		{"422 with GitHub's error objects", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 422, Times: 1,
			Errors: []ghfake.FieldError{{Resource: "IssueComment", Field: "body", Code: "custom", Message: "body is too long"}}},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" ||
					len(er.Errors) != 1 || er.Errors[0].Field != "body" || er.Errors[0].Code != "custom" || er.Errors[0].Message != "body is too long" {
					t.Errorf("err = %v, want a 422 Validation Failed naming the body", err)
				}
			}},
		{"404: deleted meanwhile", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 404, Times: 1},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "Not Found" || er.Response.Header.Values("Retry-After") != nil {
					t.Errorf("err = %v, want 404 Not Found without Retry-After", err)
				}
			}},
		{"403 refusing the token is no rate limit", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 403, Times: 1, NotPermitted: true},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				var ab *github.AbuseRateLimitError
				var rl *github.RateLimitError
				if !errors.As(err, &er) || errors.As(err, &ab) || errors.As(err, &rl) || er.Response.StatusCode != 403 || er.Message != "Resource not accessible by integration" {
					t.Errorf("err = %v, want a plain 403 refusing the token", err)
				}
			}},
		{"401", ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 401, Times: 1},
			func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 401 || er.Message != "Bad credentials" {
					t.Errorf("err = %v, want 401 Bad credentials", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := world(t)
			id := s.AddComment(owner, repo, 1, bot, "x")
			s.Fail(tt.rule)
			// A fresh client per call: go-github remembers rate limits and
			// would refuse the retry locally.
			_, _, err := s.Client(token).Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: github.String("y")})
			tt.check(t, err)
			if _, _, err := s.Client(token).Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: github.String("y")}); err != nil {
				t.Errorf("second call after a one-time fault: %v", err)
			}
			if _, _, err := s.Client(token).Issues.GetComment(ctx, owner, repo, id); err != nil && tt.rule.Pattern[0] != '*' {
				t.Errorf("other operations are not affected: %v", err)
			}
		})
	}
}

func TestUnknownTokensGet401(t *testing.T) {
	t.Parallel()
	s, _ := world(t)
	for _, c := range []*github.Client{s.Client("ghs_wrong"), s.Client("")} {
		_, _, err := c.PullRequests.Get(context.Background(), owner, repo, 1)
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnauthorized || er.Message != "Bad credentials" {
			t.Errorf("err = %v, want 401 Bad credentials", err)
		}
	}
}

func TestDelayAndRateLimitHeaders(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	s.Delay("GET /repos/{owner}/{repo}/pulls/{pull_number}", 50*time.Millisecond)
	start := time.Now()
	_, resp, err := c.PullRequests.Get(context.Background(), owner, repo, 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Errorf("answered in %v, want at least the 50ms delay", time.Since(start))
	}
	if resp.Rate.Limit != 5000 || resp.Rate.Remaining != 4999 {
		t.Errorf("rate = %+v, want limit 5000 remaining 4999", resp.Rate)
	}
	limits, _, err := c.RateLimit.Get(context.Background())
	if err != nil || limits.GetCore().Remaining != 4998 {
		t.Errorf("rate_limit core = %+v, %v; want remaining 4998", limits.GetCore(), err)
	}
}

func TestConcurrentRequestsAreSafe(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: github.String("c")}); err != nil {
				t.Errorf("CreateComment: %v", err)
			}
			if _, _, err := c.Issues.ListComments(ctx, owner, repo, 1, nil); err != nil {
				t.Errorf("ListComments: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := len(s.Comments(owner, repo, 1)); n != 20 {
		t.Errorf("comments = %d, want 20", n)
	}
	if n := len(s.Requests()); n != 40 {
		t.Errorf("requests = %d, want 40", n)
	}
}

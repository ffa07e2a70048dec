package ghfake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

const (
	owner = "acme"
	repo  = "widgets"
	token = "ghs_test"
	bot   = "github-actions[bot]"
)

// world builds a fake with one repository, a bot token, and PR #1.
func world(t *testing.T) (*ghfake.Server, *github.Client) {
	t.Helper()
	s := ghfake.New(t)
	s.AddRepo(owner, repo, 42, "main")
	s.AddToken(token, bot, true)
	s.AddPull(owner, repo, ghfake.PullSpec{Number: 1, User: "alice", HeadSHA: strings.Repeat("a", 40), HeadRef: "feature/x", BaseSHA: strings.Repeat("b", 40)})
	return s, s.Client(token)
}

func errStatus(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}

func TestCommentsCreateListUpdateDelete(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	s.AddComment(owner, repo, 1, "alice", "first")

	made, resp, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: github.String("report <!-- gcloop:review -->")})
	if err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("CreateComment status = %d, want 201", resp.StatusCode)
	}
	if got := made.GetUser().GetType(); got != "Bot" {
		t.Errorf("comment author type = %q, want Bot", got)
	}
	if got := made.GetUser().GetLogin(); got != bot {
		t.Errorf("comment author = %q, want %q", got, bot)
	}
	if !strings.Contains(made.GetHTMLURL(), "/pull/1#issuecomment-") {
		t.Errorf("html_url = %q, want a PR comment link", made.GetHTMLURL())
	}

	list, _, err := c.Issues.ListComments(ctx, owner, repo, 1, nil)
	if err != nil {
		t.Fatalf("ListComments: %v", err)
	}
	var bodies []string
	for _, cm := range list {
		bodies = append(bodies, cm.GetBody())
	}
	if diff := cmp.Diff([]string{"first", "report <!-- gcloop:review -->"}, bodies); diff != "" {
		t.Errorf("comment bodies (-want +got):\n%s", diff)
	}

	if _, _, err := c.Issues.EditComment(ctx, owner, repo, made.GetID(), &github.IssueComment{Body: github.String("edited")}); err != nil {
		t.Fatalf("EditComment: %v", err)
	}
	got, _, err := c.Issues.GetComment(ctx, owner, repo, made.GetID())
	if err != nil || got.GetBody() != "edited" {
		t.Fatalf("GetComment = %q, %v; want edited", got.GetBody(), err)
	}
	if _, err := c.Issues.DeleteComment(ctx, owner, repo, made.GetID()); err != nil {
		t.Fatalf("DeleteComment: %v", err)
	}
	if _, _, err := c.Issues.GetComment(ctx, owner, repo, made.GetID()); errStatus(err) != http.StatusNotFound {
		t.Errorf("GetComment after delete: err = %v, want 404", err)
	}
	if diff := cmp.Diff([]string{"first"}, commentBodies(s.Comments(owner, repo, 1))); diff != "" {
		t.Errorf("stored comments (-want +got):\n%s", diff)
	}
}

func commentBodies(cs []ghfake.Comment) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Body)
	}
	return out
}

func TestCommentListPaginationWalksEveryPage(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	for i := 0; i < 7; i++ {
		s.AddComment(owner, repo, 1, "alice", strings.Repeat("x", i+1))
	}
	s.SetPerPage(3)
	var all []*github.IssueComment
	opts := &github.IssueListCommentsOptions{}
	pages := 0
	for {
		page, resp, err := c.Issues.ListComments(ctx, owner, repo, 1, opts)
		if err != nil {
			t.Fatalf("ListComments page %d: %v", opts.Page, err)
		}
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			if resp.LastPage != 0 {
				t.Errorf("last page still links to last=%d", resp.LastPage)
			}
			break
		}
		if resp.LastPage != 3 {
			t.Errorf("LastPage = %d, want 3", resp.LastPage)
		}
		opts.Page = resp.NextPage
	}
	if pages != 3 || len(all) != 7 {
		t.Errorf("walked %d pages and %d comments, want 3 and 7", pages, len(all))
	}
}

func TestCommentListSinceFiltersByUpdateTime(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	s.AddComment(owner, repo, 1, "alice", "old")
	now = now.Add(time.Hour)
	s.AddComment(owner, repo, 1, "alice", "new")
	since := now.Add(-time.Minute)
	list, _, err := c.Issues.ListComments(ctx, owner, repo, 1, &github.IssueListCommentsOptions{Since: &since})
	if err != nil {
		t.Fatalf("ListComments since: %v", err)
	}
	if len(list) != 1 || list[0].GetBody() != "new" {
		t.Errorf("since filter returned %d comments, want only %q", len(list), "new")
	}
}

func TestBodiesOverTheLimitAreRefused(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	long := strings.Repeat("é", 65537)
	tests := []struct {
		name string
		call func() error
	}{
		{"a new comment", func() error {
			_, _, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: &long})
			return err
		}},
		{"an edited comment", func() error {
			id := s.AddComment(owner, repo, 1, bot, "short")
			_, _, err := c.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &long})
			return err
		}},
		{"a new issue", func() error {
			_, _, err := c.Issues.Create(ctx, owner, repo, &github.IssueRequest{Title: github.String("t"), Body: &long})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var er *github.ErrorResponse
			if !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("err = %v, want 422", err)
			}
			if len(er.Errors) != 1 || er.Errors[0].Message != "body is too long (maximum is 65536 characters)" {
				t.Errorf("errors = %+v, want the body-too-long message", er.Errors)
			}
		})
	}
	// Exactly the limit is fine.
	ok := strings.Repeat("é", 65536)
	if _, _, err := c.Issues.CreateComment(ctx, owner, repo, 1, &github.IssueComment{Body: &ok}); err != nil {
		t.Errorf("comment of exactly 65536 characters: %v", err)
	}
}

func TestIssuesListFiltersAndIncludesPulls(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "by bot", Author: bot, Labels: []string{"gcloop", "gcloop:review"}})
	s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "closed", Author: bot, Labels: []string{"gcloop"}, State: "closed"})
	s.AddIssue(owner, repo, ghfake.IssueSpec{Title: "by alice", Author: "alice"})

	all, _, err := c.Issues.ListByRepo(ctx, owner, repo, nil)
	if err != nil {
		t.Fatalf("ListByRepo: %v", err)
	}
	var titles []string
	pulls := 0
	for _, is := range all {
		titles = append(titles, is.GetTitle())
		if is.IsPullRequest() {
			pulls++
		}
	}
	if diff := cmp.Diff([]string{"by alice", "by bot", "Pull request 1"}, titles); diff != "" {
		t.Errorf("open issues, newest first (-want +got):\n%s", diff)
	}
	if pulls != 1 {
		t.Errorf("PRs in issue list = %d, want 1", pulls)
	}

	tests := []struct {
		name string
		opts github.IssueListByRepoOptions
		want []string
	}{
		{"labels must all match", github.IssueListByRepoOptions{Labels: []string{"gcloop", "gcloop:review"}}, []string{"by bot"}},
		{"state all includes closed", github.IssueListByRepoOptions{State: "all", Labels: []string{"gcloop"}}, []string{"closed", "by bot"}},
		{"creator filters the author", github.IssueListByRepoOptions{Creator: "alice", State: "all"}, []string{"by alice", "Pull request 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := c.Issues.ListByRepo(ctx, owner, repo, &tt.opts)
			if err != nil {
				t.Fatalf("ListByRepo: %v", err)
			}
			var titles []string
			for _, is := range got {
				titles = append(titles, is.GetTitle())
			}
			if diff := cmp.Diff(tt.want, titles); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIssueCreateUpdateAndLabels(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	s.AddLabel(owner, repo, "gcloop", "0e8a16", "gcloop loop")

	if _, _, err := c.Issues.CreateLabel(ctx, owner, repo, &github.Label{Name: github.String("gcloop"), Color: github.String("ffffff")}); errStatus(err) != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate CreateLabel: err = %v, want 422", err)
	} else {
		var er *github.ErrorResponse
		errors.As(err, &er)
		if len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
			t.Errorf("duplicate label errors = %+v, want code already_exists", er.Errors)
		}
	}
	if _, _, err := c.Issues.GetLabel(ctx, owner, repo, "gcloop:coverage"); errStatus(err) != http.StatusNotFound {
		t.Fatalf("GetLabel of a missing label: err = %v, want 404", err)
	}
	if _, _, err := c.Issues.CreateLabel(ctx, owner, repo, &github.Label{Name: github.String("gcloop:coverage"), Color: github.String("1d76db")}); err != nil {
		t.Fatalf("CreateLabel: %v", err)
	}
	if l, _, err := c.Issues.GetLabel(ctx, owner, repo, "gcloop:coverage"); err != nil || l.GetColor() != "1d76db" {
		t.Fatalf("GetLabel = %v, %v; want color 1d76db", l, err)
	}

	is, _, err := c.Issues.Create(ctx, owner, repo, &github.IssueRequest{
		Title: github.String("gcloop: fix a.go (PR #1, round 2)"), Body: github.String("findings"),
		Labels: &[]string{"gcloop", "gcloop:coverage"},
	})
	if err != nil {
		t.Fatalf("Create issue: %v", err)
	}
	if is.GetNumber() != 2 {
		t.Errorf("new issue number = %d, want 2 (after PR #1)", is.GetNumber())
	}
	if _, _, err := c.Issues.AddLabelsToIssue(ctx, owner, repo, is.GetNumber(), []string{"extra"}); err != nil {
		t.Fatalf("AddLabelsToIssue: %v", err)
	}
	closed, _, err := c.Issues.Edit(ctx, owner, repo, is.GetNumber(), &github.IssueRequest{State: github.String("closed"), StateReason: github.String("completed")})
	if err != nil {
		t.Fatalf("Edit: %v", err)
	}
	if closed.GetState() != "closed" || closed.ClosedAt == nil {
		t.Errorf("closed issue state=%q closed_at=%v", closed.GetState(), closed.ClosedAt)
	}
	got, _, err := c.Issues.Get(ctx, owner, repo, is.GetNumber())
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	var names []string
	for _, l := range got.Labels {
		names = append(names, l.GetName())
	}
	if diff := cmp.Diff([]string{"gcloop", "gcloop:coverage", "extra"}, names); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if n := len(s.Labels(owner, repo)); n != 3 {
		t.Errorf("repository labels = %d, want 3 (extra created on use)", n)
	}
	labels, _, err := c.Issues.ListLabels(ctx, owner, repo, nil)
	if err != nil || len(labels) != 3 {
		t.Errorf("ListLabels = %d labels, %v; want 3", len(labels), err)
	}
}

func TestReactionsAreIdempotentPerUser(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	id := s.AddComment(owner, repo, 1, "alice", "/gc retry")
	_, resp, err := c.Reactions.CreateIssueCommentReaction(ctx, owner, repo, id, "eyes")
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("first reaction: %v, status %v; want 201", err, resp)
	}
	_, resp, err = c.Reactions.CreateIssueCommentReaction(ctx, owner, repo, id, "eyes")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("repeated reaction: %v; want 200", err)
	}
	if _, _, err := c.Reactions.CreateIssueCommentReaction(ctx, owner, repo, id, "rocket"); err != nil {
		t.Fatalf("rocket: %v", err)
	}
	list, _, err := c.Reactions.ListIssueCommentReactions(ctx, owner, repo, id, nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListIssueCommentReactions = %d, %v; want 2", len(list), err)
	}
	want := []ghfake.Reaction{{User: bot, Content: "eyes"}, {User: bot, Content: "rocket"}}
	got := s.Reactions(owner, repo, id)
	for i := range got {
		got[i].ID = 0
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
}

func TestPermissionLevelCarriesRoleName(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	tests := []struct{ role, base, permission string }{
		{"admin", "", "admin"}, {"maintain", "", "write"}, {"write", "", "write"}, {"triage", "", "read"}, {"read", "", "read"}, {"none", "", "none"},
		{"security-reviewer", "write", "write"}, {"auditor", "triage", "read"},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			user := "user-" + tt.role
			if tt.base != "" {
				s.SetCustomRole(owner, repo, user, tt.role, tt.base)
			} else {
				s.SetPermission(owner, repo, user, tt.role)
			}
			// go-github v62 has no role_name; read the raw answer.
			req, err := c.NewRequest(http.MethodGet, "repos/"+owner+"/"+repo+"/collaborators/"+user+"/permission", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Permission string `json:"permission"`
				RoleName   string `json:"role_name"`
			}
			if _, err := c.Do(ctx, req, &got); err != nil {
				t.Fatalf("permission: %v", err)
			}
			if got.Permission != tt.permission || got.RoleName != tt.role {
				t.Errorf("permission, role_name = %q, %q; want %q, %q", got.Permission, got.RoleName, tt.permission, tt.role)
			}
		})
	}
	if _, _, err := c.Repositories.GetPermissionLevel(ctx, owner, repo, "nobody-known"); errStatus(err) != http.StatusNotFound {
		t.Errorf("unknown user: err = %v, want 404", err)
	}
}

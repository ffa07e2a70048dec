package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// fakeGitHub is the fake GitHub of these tests: repository o/r, the bot's
// token, and a client that sends it.
func fakeGitHub(t *testing.T) (*ghfake.Server, *github.Client) {
	t.Helper()
	s := ghfake.New(t)
	s.AddRepo("o", "r", 1, "main")
	s.AddToken("ghs_bot", "gcloop[bot]", true)
	return s, s.Client("ghs_bot")
}

func TestAuthorizeAgainstGitHub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		role, base string // alice's role; base: the level a custom role inherits
		known      bool   // alice is known to GitHub even without a role
		fail       int    // a status injected on the request; 0 = none
		min        string
		wantLevel  string
		wantOK     bool
		wantErr    bool
	}{
		{name: "an admin may run write commands", role: "admin", min: "write", wantLevel: "admin", wantOK: true},
		{name: "a writer may run write commands", role: "write", min: "write", wantLevel: "write", wantOK: true},
		{name: "a writer may not run maintain commands", role: "write", min: "maintain", wantLevel: "write"},
		{name: "a maintainer is told from a writer by role name", role: "maintain", min: "maintain", wantLevel: "maintain", wantOK: true},
		{name: "a maintainer may not run admin commands", role: "maintain", min: "admin", wantLevel: "maintain"},
		{name: "a triager may not run commands", role: "triage", min: "write", wantLevel: "triage"},
		{name: "a reader may not run commands", role: "read", min: "write", wantLevel: "read"},
		{name: "no permission runs nothing", known: true, min: "write", wantLevel: "none"},
		{name: "a custom role on write keeps write", role: "security-reviewer", base: "write", min: "write", wantLevel: "write", wantOK: true},
		{name: "a custom role on maintain is told by its flags", role: "release-manager", base: "maintain", min: "maintain", wantLevel: "maintain", wantOK: true},
		{name: "a non-collaborator (404) is refused without error", min: "write", wantLevel: "none"},
		{name: "a server error is an error", role: "admin", fail: 502, min: "write", wantErr: true},
		{name: "a forbidden token is an error", role: "admin", fail: 403, min: "write", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, client := fakeGitHub(t)
			switch {
			case tt.base != "":
				s.SetCustomRole("o", "r", "alice", tt.role, tt.base)
			case tt.role != "":
				s.SetPermission("o", "r", "alice", tt.role)
			case tt.known:
				s.AddToken("ghs_alice", "alice", false)
			}
			if tt.fail != 0 {
				s.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/collaborators/{username}/permission", Status: tt.fail, NotPermitted: true})
			}
			for _, api := range []struct {
				name string
				api  permissionAPI
			}{{"RepositoriesService", client.Repositories}, {"RoleClient", RoleClient{Client: client}}} {
				level, ok, err := Authorize(context.Background(), api.api, "o", "r", "alice", tt.min)
				if (err != nil) != tt.wantErr {
					t.Fatalf("%s: Authorize() error = %v, want error %v", api.name, err, tt.wantErr)
				}
				if level != tt.wantLevel || ok != tt.wantOK {
					t.Errorf("%s: Authorize() = %q, %v; want %q, %v", api.name, level, ok, tt.wantLevel, tt.wantOK)
				}
			}
			want := []string{"GET /repos/o/r/collaborators/alice/permission", "GET /repos/o/r/collaborators/alice/permission"}
			if diff := cmp.Diff(want, s.RequestLines()); diff != "" {
				t.Errorf("requests, one per client (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLevelOfAnswersGitHubDoesNotSend: the level read from answers off
// GitHub's description — no role name, a role name above the permission,
// a permission GitHub has not got — is never more than the permission.
func TestLevelOfAnswersGitHubDoesNotSend(t *testing.T) {
	t.Parallel()
	maintainFlags := map[string]bool{"admin": false, "maintain": true, "push": true, "triage": true, "pull": true}
	tests := []struct {
		name       string
		permission string
		role       string // the user's role_name; "" = none
		flags      map[string]bool
		min        string
		wantLevel  string
		wantOK     bool
	}{
		{"a maintainer is told by the flags alone", "write", "", maintainFlags, "maintain", "maintain", true},
		{"a role name above the permission does not raise it", "read", "admin", nil, "write", "read", false},
		{"flags above the permission do not raise it", "read", "", maintainFlags, "write", "read", false},
		{"an unknown permission authorizes nothing", "owner", "", nil, "write", "none", false},
		{"an unknown role name on write keeps write", "write", "security-reviewer", nil, "write", "write", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := &github.User{Login: github.String("alice"), Permissions: tt.flags}
			if tt.role != "" {
				u.RoleName = github.String(tt.role)
			}
			f := &fakePermissions{level: &github.RepositoryPermissionLevel{Permission: github.String(tt.permission), User: u}}
			level, ok, err := Authorize(context.Background(), f, "o", "r", "alice", tt.min)
			if err != nil || level != tt.wantLevel || ok != tt.wantOK {
				t.Errorf("Authorize() = %q, %v, %v; want %q, %v", level, ok, err, tt.wantLevel, tt.wantOK)
			}
		})
	}
}

// TestRoleClientReadsTheTopLevelRoleName keeps a bare test server: the
// answer it needs, a role name at the top only, is one the description
// forbids (the user's role_name is required), so the fake, which
// validates every answer, cannot give it. It tests RoleClient's own
// decoding, the one hand-written request of the package.
func TestRoleClientReadsTheTopLevelRoleName(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/repos/o/r/collaborators/alice/permission" {
			t.Errorf("request %s %s, want the permission of alice", r.Method, r.URL.Path)
		}
		io.WriteString(w, `{"permission":"write","role_name":"maintain","user":{"login":"alice","id":1,"type":"User","site_admin":false}}`)
	}))
	t.Cleanup(srv.Close)
	client := github.NewClient(srv.Client())
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	client.BaseURL = u
	ctx := context.Background()
	level, ok, err := Authorize(ctx, RoleClient{Client: client}, "o", "r", "alice", "maintain")
	if err != nil || level != "maintain" || !ok {
		t.Errorf("RoleClient: Authorize() = %q, %v, %v; want maintain, true, nil", level, ok, err)
	}
	// go-github v62 alone cannot see the top-level role: maintain reads as write.
	level, ok, err = Authorize(ctx, client.Repositories, "o", "r", "alice", "maintain")
	if err != nil || level != "write" || ok {
		t.Errorf("RepositoriesService: Authorize() = %q, %v, %v; want write, false, nil", level, ok, err)
	}
}

// fakePermissions answers from a table, failing the way GitHub fails.
type fakePermissions struct {
	level *github.RepositoryPermissionLevel
	err   error
	users []string
}

func (f *fakePermissions) GetPermissionLevel(_ context.Context, owner, repo, user string) (*github.RepositoryPermissionLevel, *github.Response, error) {
	f.users = append(f.users, owner+"/"+repo+"/"+user)
	return f.level, nil, f.err
}

func TestAuthorizeRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		user string
		min  string
	}{
		{"an unknown minimum is an error", "alice", "read"},
		{"an empty minimum is an error", "alice", ""},
		{"an empty user is an error", "", "write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakePermissions{level: &github.RepositoryPermissionLevel{Permission: github.String("admin")}}
			if _, ok, err := Authorize(context.Background(), f, "o", "r", tt.user, tt.min); err == nil || ok {
				t.Errorf("Authorize(%q, %q) = %v, %v; want an error", tt.user, tt.min, ok, err)
			}
			if len(f.users) != 0 {
				t.Errorf("Authorize asked GitHub %v before validating its input", f.users)
			}
		})
	}
}

func TestAuthorizeWrapsErrors(t *testing.T) {
	t.Parallel()
	cause := &github.ErrorResponse{Response: &http.Response{StatusCode: http.StatusServiceUnavailable}, Message: "down"}
	f := &fakePermissions{err: cause}
	_, ok, err := Authorize(context.Background(), f, "o", "r", "alice", "write")
	var er *github.ErrorResponse
	if ok || !errors.As(err, &er) || er != cause {
		t.Errorf("Authorize() = %v, %v; want the *github.ErrorResponse wrapped", ok, err)
	}
	f = &fakePermissions{}
	if level, ok, err := Authorize(context.Background(), f, "o", "r", "alice", "write"); level != "none" || ok || err != nil {
		t.Errorf("Authorize() on an empty answer = %q, %v, %v; want none, false, nil", level, ok, err)
	}
}

func TestReact(t *testing.T) {
	t.Parallel()
	for _, content := range []string{Eyes, Rocket, Confused} {
		t.Run(content, func(t *testing.T) {
			t.Parallel()
			s, client := fakeGitHub(t)
			s.AddIssue("o", "r", ghfake.IssueSpec{Title: "t", Author: "alice"})
			id := s.AddComment("o", "r", 1, "alice", "/gc retry")
			if err := React(context.Background(), client.Reactions, "o", "r", id, content); err != nil {
				t.Fatalf("React(%s): %v", content, err)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Method != http.MethodPost || reqs[0].Path != fmt.Sprintf("/repos/o/r/issues/comments/%d/reactions", id) {
				t.Fatalf("requests %v, want one POST of a reaction", s.RequestLines())
			}
			var got map[string]any
			if err := json.Unmarshal(reqs[0].Body, &got); err != nil || got["content"] != content || len(got) != 1 {
				t.Errorf("request body %s, want {\"content\":%q}", reqs[0].Body, content)
			}
			if r := s.Reactions("o", "r", id); len(r) != 1 || r[0].Content != content || r[0].User != "gcloop[bot]" {
				t.Errorf("reactions on GitHub %+v, want the bot's %s", r, content)
			}
		})
	}
}

func TestReactErrors(t *testing.T) {
	t.Parallel()
	_, client := fakeGitHub(t)
	err := React(context.Background(), client.Reactions, "o", "r", 42, Rocket)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusNotFound {
		t.Errorf("React on a deleted comment = %v, want a wrapped 404", err)
	}
	if err := React(context.Background(), client.Reactions, "o", "r", 42, "heart"); err == nil {
		t.Error("React(heart) = nil, want an error: only eyes, rocket and confused are gcloop's")
	}
}

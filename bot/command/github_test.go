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

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/internal/testkit/ghtest"
)

// setup starts a test server and a go-github client that talks to it, in
// the manner of go-github's own tests.
func setup(t *testing.T) (*github.Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := github.NewClient(srv.Client())
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c, mux
}

// permissionJSON is a collaborator-permission response shaped like
// GitHub's: legacy permission, role name, and the collaborator with its
// permission flags. Empty role or flags are left out.
func permissionJSON(permission, role, userRole string, flags map[string]bool) string {
	user := map[string]any{"login": "alice", "id": 1, "type": "User", "site_admin": false}
	if userRole != "" {
		user["role_name"] = userRole
	}
	if flags != nil {
		user["permissions"] = flags
	}
	body := map[string]any{"permission": permission, "user": user}
	if role != "" {
		body["role_name"] = role
	}
	data, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestAuthorizeAgainstGitHub(t *testing.T) {
	t.Parallel()
	maintainFlags := map[string]bool{"admin": false, "maintain": true, "push": true, "triage": true, "pull": true}
	writeFlags := map[string]bool{"admin": false, "maintain": false, "push": true, "triage": true, "pull": true}
	tests := []struct {
		name      string
		status    int
		body      string
		min       string
		wantLevel string
		wantOK    bool
		wantErr   bool
	}{
		{"an admin may run write commands", 200, permissionJSON("admin", "admin", "admin", nil), "write", "admin", true, false},
		{"a writer may run write commands", 200, permissionJSON("write", "write", "write", writeFlags), "write", "write", true, false},
		{"a writer may not run maintain commands", 200, permissionJSON("write", "write", "write", writeFlags), "maintain", "write", false, false},
		{"a maintainer is told from a writer by role name", 200, permissionJSON("write", "maintain", "maintain", maintainFlags), "maintain", "maintain", true, false},
		{"a maintainer is told by the flags alone", 200, permissionJSON("write", "", "", maintainFlags), "maintain", "maintain", true, false},
		{"a maintainer may not run admin commands", 200, permissionJSON("write", "maintain", "maintain", maintainFlags), "admin", "maintain", false, false},
		{"a triager may not run commands", 200, permissionJSON("read", "triage", "triage", nil), "write", "triage", false, false},
		{"a reader may not run commands", 200, permissionJSON("read", "read", "read", nil), "write", "read", false, false},
		{"no permission runs nothing", 200, permissionJSON("none", "", "", nil), "write", "none", false, false},
		{"a role name above the permission does not raise it", 200, permissionJSON("read", "admin", "admin", nil), "write", "read", false, false},
		{"a custom role on write keeps write", 200, permissionJSON("write", "security-reviewer", "security-reviewer", writeFlags), "write", "write", true, false},
		{"an unknown permission authorizes nothing", 200, permissionJSON("owner", "", "", nil), "write", "none", false, false},
		{"a non-collaborator (404) is refused without error", 404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`, "write", "none", false, false},
		{"a server error is an error", 502, `{"message":"Bad Gateway"}`, "write", "", false, true},
		{"a forbidden token is an error", 403, `{"message":"Resource not accessible by integration"}`, "write", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, mux := setup(t)
			calls := 0
			mux.HandleFunc("/repos/o/r/collaborators/alice/permission", func(w http.ResponseWriter, r *http.Request) {
				calls++
				ghtest.TestMethod(t, r, http.MethodGet)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
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
			if calls != 2 {
				t.Errorf("%d permission requests, want one per client", calls)
			}
		})
	}
}

func TestRoleClientReadsTheTopLevelRoleName(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/repos/o/r/collaborators/alice/permission", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, permissionJSON("write", "maintain", "", nil))
	})
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
			client, mux := setup(t)
			mux.HandleFunc("/repos/o/r/issues/comments/42/reactions", func(w http.ResponseWriter, r *http.Request) {
				ghtest.TestMethod(t, r, http.MethodPost)
				data, _ := io.ReadAll(r.Body)
				var got map[string]any
				if err := json.Unmarshal(data, &got); err != nil || got["content"] != content || len(got) != 1 {
					t.Errorf("request body %s, want {\"content\":%q}", data, content)
				}
				w.WriteHeader(http.StatusCreated)
				fmt.Fprintf(w, `{"id":1,"node_id":"R_1","content":%q,"created_at":"2026-01-02T03:04:05Z"}`, content)
			})
			if err := React(context.Background(), client.Reactions, "o", "r", 42, content); err != nil {
				t.Fatalf("React(%s): %v", content, err)
			}
		})
	}
}

func TestReactErrors(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/repos/o/r/issues/comments/42/reactions", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	})
	err := React(context.Background(), client.Reactions, "o", "r", 42, Rocket)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusNotFound {
		t.Errorf("React on a deleted comment = %v, want a wrapped 404", err)
	}
	if err := React(context.Background(), client.Reactions, "o", "r", 42, "heart"); err == nil {
		t.Error("React(heart) = nil, want an error: only eyes, rocket and confused are gcloop's")
	}
}

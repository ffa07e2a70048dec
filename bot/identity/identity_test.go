package identity

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// fakeUsers answers GET /user and counts the calls.
type fakeUsers struct {
	login  string
	status int // an error status, 0 for success
	calls  int
}

func (f *fakeUsers) Get(_ context.Context, user string) (*github.User, *github.Response, error) {
	f.calls++
	if user != "" {
		return nil, nil, errors.New("want GET /user, not /users/" + user)
	}
	if f.status != 0 {
		r := &http.Response{StatusCode: f.status, Request: &http.Request{Method: "GET"}}
		return nil, &github.Response{Response: r}, &github.ErrorResponse{Response: r, Message: http.StatusText(f.status)}
	}
	return &github.User{Login: github.String(f.login)}, &github.Response{}, nil
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, token, botLogin string
		users                 *fakeUsers
		want                  string
		wantCalls             int
		wantErr               string
	}{
		{name: "GITHUB_TOKEN is github-actions[bot] without a request", token: "ghs_abc", users: &fakeUsers{}, want: ActionsBot},
		{name: "an installation token with bot-login is the App", token: "ghs_abc", botLogin: "gcloop-app[bot]", users: &fakeUsers{}, want: "gcloop-app[bot]"},
		{name: "bot-login wins over a personal token", token: "ghp_abc", botLogin: "gcloop-app[bot]", users: &fakeUsers{login: "dev"}, want: "gcloop-app[bot]"},
		{name: "a classic personal token asks GET /user once", token: "ghp_abc", users: &fakeUsers{login: "dev"}, want: "dev", wantCalls: 1},
		{name: "a fine-grained token", token: "github_pat_11AA", users: &fakeUsers{login: "Octo-Cat"}, want: "Octo-Cat", wantCalls: 1},
		{name: "an OAuth token", token: "gho_x", users: &fakeUsers{login: "dev"}, want: "dev", wantCalls: 1},
		{name: "a user-to-server token", token: "ghu_x", users: &fakeUsers{login: "dev"}, want: "dev", wantCalls: 1},
		{name: "an unknown token refused by GET /user is GITHUB_TOKEN", token: "v1.abc", users: &fakeUsers{status: 403}, want: ActionsBot, wantCalls: 1},
		{name: "a personal token refused is an error", token: "ghp_x", users: &fakeUsers{status: 401}, wantCalls: 1, wantErr: "GET /user"},
		{name: "a hostile login from the API is refused", token: "ghp_x", users: &fakeUsers{login: "a b\n"}, wantCalls: 1, wantErr: "want a GitHub login"},
		{name: "a bad bot-login", token: "ghs_x", botLogin: "@x", users: &fakeUsers{}, wantErr: "input bot-login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Resolve(context.Background(), tt.users, tt.token, tt.botLogin)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Errorf("Resolve = %q, %v; want %q", got, err, tt.want)
			}
			if tt.users.calls != tt.wantCalls {
				t.Errorf("%d GET /user, want %d", tt.users.calls, tt.wantCalls)
			}
		})
	}
}

func TestValidLogin(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"octocat": true, "github-actions[bot]": true, "a": true, "A-1": true,
		"": false, "-x": false, "@x": false, "x[bot]y": false, "a b": false, strings.Repeat("a", 40): false,
	} {
		if got := ValidLogin(s); got != want {
			t.Errorf("ValidLogin(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("ghp_x", "", "dev")
	f.Add("ghs_x", "app[bot]", "")
	f.Add("v1.x", "", "\x00@x")
	f.Fuzz(func(t *testing.T, token, botLogin, apiLogin string) {
		users := &fakeUsers{login: apiLogin}
		got, err := Resolve(context.Background(), users, token, botLogin)
		if users.calls > 1 {
			t.Errorf("%d requests, want at most one", users.calls)
		}
		if err == nil && !ValidLogin(got) {
			t.Errorf("resolved to %q, not a login", got)
		}
	})
}

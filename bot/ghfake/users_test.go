package ghfake_test

import (
	"context"
	"testing"
)

func TestGetAuthenticatedUser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, token, login string
		bot                bool
		wantStatus         int
	}{
		{"a personal token names its user", "ghp_dev", "dev", false, 200},
		{"a fine-grained token names its user", "github_pat_11AB", "Octo-Cat", false, 200},
		{"GITHUB_TOKEN is refused as on GitHub", "ghs_x", "github-actions[bot]", true, 403},
		{"an App installation token is refused", "ghs_app", "my-app[bot]", true, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := world(t)
			s.AddToken(tt.token, tt.login, tt.bot)
			u, resp, err := s.Client(tt.token).Users.Get(context.Background(), "")
			if resp == nil || resp.StatusCode != tt.wantStatus {
				t.Fatalf("GET /user: response %v, err %v; want status %d", resp, err, tt.wantStatus)
			}
			if tt.wantStatus == 200 && (err != nil || u.GetLogin() != tt.login || u.GetType() != "User") {
				t.Errorf("GET /user = %q (%s), err %v; want %q", u.GetLogin(), u.GetType(), err, tt.login)
			}
			if v := s.Violations(); len(v) > 0 {
				t.Errorf("violations of the description: %q", v)
			}
		})
	}
}

package ghfake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestOAuthWebFlowGivesAUserTokenOnce(t *testing.T) {
	t.Parallel()
	s, _ := world(t)
	s.AddOAuthApp("cid", "csecret")
	s.AddOAuthCode("cid", "good", "octo", "u-token", time.Hour)
	exchange := func(id, secret, code string) map[string]any {
		t.Helper()
		form := url.Values{"client_id": {id}, "client_secret": {secret}, "code": {code}}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, s.WebURL()+"/login/oauth/access_token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := ownTransport.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("exchange: %d, %v", resp.StatusCode, err)
		}
		return m
	}
	for _, bad := range [][3]string{{"cid", "wrong", "good"}, {"other", "csecret", "good"}, {"cid", "csecret", "bad"}} {
		if m := exchange(bad[0], bad[1], bad[2]); m["error"] != "bad_verification_code" {
			t.Errorf("exchange %v = %v, want bad_verification_code", bad, m)
		}
	}
	m := exchange("cid", "csecret", "good")
	if m["access_token"] != "u-token" || m["expires_in"] != float64(3600) {
		t.Fatalf("exchange = %v, want u-token for an hour", m)
	}
	if m := exchange("cid", "csecret", "good"); m["error"] != "bad_verification_code" {
		t.Errorf("a code used twice = %v, want bad_verification_code", m)
	}
	u, _, err := s.Client("u-token").Users.Get(context.Background(), "")
	if err != nil || u.GetLogin() != "octo" {
		t.Errorf("the user token acts as %q, %v; want octo", u.GetLogin(), err)
	}
}

func TestPrivateRepositoriesAreSeenByTheirCollaborators(t *testing.T) {
	t.Parallel()
	s, bot := world(t)
	s.SetPrivate(owner, repo)
	s.AddToken("u-octo", "octo", false)
	s.AddToken("u-reader", "reader", false)
	s.SetPermission(owner, repo, "reader", "read")
	s.AddToken("u-owner", owner, false)
	ctx := context.Background()
	for _, tt := range []struct {
		token  string
		status int
	}{{"u-octo", 404}, {"u-reader", 200}, {"u-owner", 200}} {
		r, _, err := s.Client(tt.token).Repositories.Get(ctx, owner, repo)
		if got := errStatus(err); (tt.status == 200 && (err != nil || !r.GetPrivate() || r.GetVisibility() != "private")) || (tt.status != 200 && got != tt.status) {
			t.Errorf("%s: %v, %v; want %d", tt.token, r.GetPrivate(), err, tt.status)
		}
	}
	if _, _, err := bot.Repositories.Get(ctx, owner, repo); err != nil {
		t.Errorf("the installation's bot: %v, want the repository", err)
	}
}

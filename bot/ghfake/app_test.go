package ghfake_test

import (
	"context"
	"crypto/rsa"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func signJWT(t *testing.T, key *rsa.PrivateKey, iss string, iat, exp time.Time) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: iss, IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(exp),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAppEndpoints(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	good := func(t *testing.T) string {
		return signJWT(t, ghfake.AppKeys()[0], "31", now.Add(-time.Minute), now.Add(9*time.Minute))
	}
	tests := []struct {
		name   string
		bearer func(t *testing.T, s *ghfake.Server) string
		call   func(s *ghfake.Server, bearer string) (*http.Response, error)
		want   int
	}{
		{"GET /app with the App's JWT", func(t *testing.T, _ *ghfake.Server) string { return good(t) }, getApp, 200},
		{"GET /app/installations with the App's JWT", func(t *testing.T, _ *ghfake.Server) string { return good(t) }, listInstallations, 200},
		{"an installation token is minted", func(t *testing.T, _ *ghfake.Server) string { return good(t) }, mint(5), 201},
		{"an installation of another App is not found", func(t *testing.T, _ *ghfake.Server) string { return good(t) }, mint(6), 404},
		{"a JWT signed with another key", func(t *testing.T, _ *ghfake.Server) string {
			return signJWT(t, ghfake.AppKeys()[1], "31", now.Add(-time.Minute), now.Add(9*time.Minute))
		}, getApp, 401},
		{"a JWT of an unknown App", func(t *testing.T, _ *ghfake.Server) string {
			return signJWT(t, ghfake.AppKeys()[0], "32", now.Add(-time.Minute), now.Add(9*time.Minute))
		}, getApp, 401},
		{"a JWT living over ten minutes", func(t *testing.T, _ *ghfake.Server) string {
			return signJWT(t, ghfake.AppKeys()[0], "31", now.Add(-time.Minute), now.Add(10*time.Minute))
		}, getApp, 401},
		{"an expired JWT", func(t *testing.T, _ *ghfake.Server) string {
			return signJWT(t, ghfake.AppKeys()[0], "31", now.Add(-11*time.Minute), now.Add(-time.Minute))
		}, getApp, 401},
		{"a JWT issued in the future", func(t *testing.T, _ *ghfake.Server) string {
			return signJWT(t, ghfake.AppKeys()[0], "31", now.Add(time.Minute), now.Add(5*time.Minute))
		}, getApp, 401},
		{"a JWT on a repository endpoint", func(t *testing.T, _ *ghfake.Server) string { return good(t) }, getPull, 401},
		{"an installation token on /app", func(t *testing.T, s *ghfake.Server) string { return mintToken(t, s, good(t)) }, getApp, 401},
		{"an installation token on a repository endpoint", func(t *testing.T, s *ghfake.Server) string { return mintToken(t, s, good(t)) }, getPull, 200},
		{"an expired installation token", func(t *testing.T, s *ghfake.Server) string {
			s.SetInstallationTokenTTL(time.Minute)
			tok := mintToken(t, s, good(t))
			s.SetClock(func() time.Time { return now.Add(time.Minute) })
			return tok
		}, getPull, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := world(t)
			s.SetClock(func() time.Time { return now })
			s.AddApp(ghfake.AppSpec{ID: 31, Slug: "loop-bot", Key: &ghfake.AppKeys()[0].PublicKey})
			s.AddApp(ghfake.AppSpec{ID: 40, Slug: "other", Key: &ghfake.AppKeys()[1].PublicKey})
			s.AddInstallation(31, 5, "octo")
			s.AddInstallation(40, 6, "octo")
			resp, err := tt.call(s, tt.bearer(t, s))
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Errorf("status %d (%v), want %d", resp.StatusCode, err, tt.want)
			}
		})
	}
}

func mintToken(t *testing.T, s *ghfake.Server, jwt string) string {
	t.Helper()
	if resp, err := mint(5)(s, jwt); err != nil || resp.StatusCode != 201 {
		t.Fatalf("mint: %v", err)
	}
	toks := s.IssuedTokens()
	return toks[len(toks)-1].Token
}

func getApp(s *ghfake.Server, bearer string) (*http.Response, error) {
	app, resp, err := s.Client(bearer).Apps.Get(context.Background(), "")
	if err == nil && app.GetSlug() != "loop-bot" {
		return resp.Response, errSlug(app.GetSlug())
	}
	return resp.Response, err
}

func listInstallations(s *ghfake.Server, bearer string) (*http.Response, error) {
	l, resp, err := s.Client(bearer).Apps.ListInstallations(context.Background(), nil)
	if err == nil && (len(l) != 1 || l[0].GetID() != 5) {
		return nil, errSlug("installations")
	}
	return resp.Response, err
}

func mint(id int64) func(s *ghfake.Server, bearer string) (*http.Response, error) {
	return func(s *ghfake.Server, bearer string) (*http.Response, error) {
		_, resp, err := s.Client(bearer).Apps.CreateInstallationToken(context.Background(), id, &github.InstallationTokenOptions{})
		return resp.Response, err
	}
}

func getPull(s *ghfake.Server, bearer string) (*http.Response, error) {
	_, resp, err := s.Client(bearer).PullRequests.Get(context.Background(), owner, repo, 1)
	return resp.Response, err
}

type errSlug string

func (e errSlug) Error() string { return "unexpected " + string(e) }

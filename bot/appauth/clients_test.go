package appauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func TestInstallationTokensAreCachedAndRefreshedNearExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		advance []time.Duration // before each request after the first
		tokens  int             // installation tokens minted in all
	}{
		{"requests within the hour share one token", []time.Duration{time.Minute, 10 * time.Minute}, 1},
		{"a token is kept until five minutes before it expires", []time.Duration{54 * time.Minute}, 1},
		{"a token within five minutes of expiry is replaced", []time.Duration{56 * time.Minute}, 2},
		{"each replacement is kept in turn", []time.Duration{56 * time.Minute, time.Minute, 56 * time.Minute}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, c, clk := appWorld(t, ghfake.AppKeys()[0])
			if err := ping(t, c, instID); err != nil {
				t.Fatal(err)
			}
			for _, d := range tt.advance {
				clk.Advance(d)
				if err := ping(t, c, instID); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(gh.IssuedTokens()); got != tt.tokens {
				t.Errorf("tokens minted = %d, want %d", got, tt.tokens)
			}
			last := gh.IssuedTokens()[len(gh.IssuedTokens())-1].Token
			reqs := gh.Requests()
			if h := reqs[len(reqs)-1].Header.Get("Authorization"); h != "Bearer "+last {
				t.Errorf("last request's Authorization = %q, want the newest token", h)
			}
		})
	}
}

func TestShortLivedTokensAreKeptForHalfTheirLife(t *testing.T) {
	t.Parallel()
	gh, c, clk := appWorld(t, ghfake.AppKeys()[0])
	gh.SetInstallationTokenTTL(4 * time.Minute) // shorter than RefreshBefore
	for _, d := range []time.Duration{0, time.Minute, 30 * time.Second} {
		clk.Advance(d)
		if err := ping(t, c, instID); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(gh.IssuedTokens()); n != 1 {
		t.Errorf("tokens minted within half the life = %d, want 1", n)
	}
	clk.Advance(time.Minute) // 2.5 min: past half of 4
	if err := ping(t, c, instID); err != nil {
		t.Fatal(err)
	}
	if n := len(gh.IssuedTokens()); n != 2 {
		t.Errorf("tokens minted after half the life = %d, want 2", n)
	}
}

func TestA401DropsTheTokenAndRetriesOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		setup      func(gh *ghfake.Server, first string)
		wantErr    bool
		wantTokens int
	}{
		{"a revoked token is replaced and the request succeeds",
			func(gh *ghfake.Server, first string) { gh.RevokeToken(first) }, false, 2},
		{"a second 401 is GitHub's answer",
			func(gh *ghfake.Server, first string) {
				gh.Fail(ghfake.FailRule{Pattern: "GET /rate_limit", Status: http.StatusUnauthorized, Times: 2})
			}, true, 2},
		{"one 401 costs one retry",
			func(gh *ghfake.Server, first string) {
				gh.Fail(ghfake.FailRule{Pattern: "GET /rate_limit", Status: http.StatusUnauthorized, Times: 1})
			}, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, c, _ := appWorld(t, ghfake.AppKeys()[0])
			if err := ping(t, c, instID); err != nil {
				t.Fatal(err)
			}
			tt.setup(gh, gh.IssuedTokens()[0].Token)
			err := ping(t, c, instID)
			if (err != nil) != tt.wantErr {
				t.Fatalf("request after the 401: err = %v, want error %v", err, tt.wantErr)
			}
			if n := len(gh.IssuedTokens()); n != tt.wantTokens {
				t.Errorf("tokens minted = %d, want %d", n, tt.wantTokens)
			}
			rl := 0
			for _, r := range gh.Requests() {
				if r.Path == "/rate_limit" {
					rl++
				}
			}
			if rl != 3 {
				t.Errorf("GET /rate_limit sent %d times, want 3 (one, then a 401 and its one retry)", rl)
			}
		})
	}
}

func TestA401RetryResendsTheBody(t *testing.T) {
	t.Parallel()
	gh, c, _ := appWorld(t, ghfake.AppKeys()[0])
	gh.AddRepo("octo-org", "shop", 1, "main")
	gh.AddPull("octo-org", "shop", ghfake.PullSpec{Title: "t", User: "dev", HeadSHA: strings.Repeat("a", 40), HeadRef: "f", BaseSHA: strings.Repeat("b", 40)})
	gh.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: http.StatusUnauthorized, Times: 1})
	cl, err := c.Client(context.Background(), instID)
	if err != nil {
		t.Fatal(err)
	}
	body := "the report"
	if _, _, err := cl.Issues.CreateComment(context.Background(), "octo-org", "shop", 1, &githubComment{Body: &body}); err != nil {
		t.Fatalf("comment after one 401: %v", err)
	}
	got := gh.Comments("octo-org", "shop", 1)
	if len(got) != 1 || got[0].Body != body {
		t.Errorf("comments = %+v, want one with body %q", got, body)
	}
}

func TestBadCredentialsAreClearErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func(c *Clients) error
		want string
	}{
		{"a token with the wrong key", func(c *Clients) error { return ping(t, c, instID) }, "access token of installation 77"},
		{"the identity with the wrong key", func(c *Clients) error { _, err := c.Identity(context.Background()); return err }, "GET /app"},
		{"the check with the wrong key", func(c *Clients) error { return c.Check(context.Background()) }, "GET /app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, c, _ := appWorld(t, ghfake.AppKeys()[1])
			err := tt.call(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || status(err) != http.StatusUnauthorized {
				t.Errorf("err = %v, want one naming %q and the 401", err, tt.want)
			}
			if n := len(gh.IssuedTokens()); n != 0 {
				t.Errorf("tokens minted with the wrong key = %d, want 0", n)
			}
		})
	}
}

func TestUnknownInstallationAndInstallationZero(t *testing.T) {
	t.Parallel()
	_, c, _ := appWorld(t, ghfake.AppKeys()[0])
	if err := ping(t, c, 999); err == nil || !strings.Contains(err.Error(), "installation 999") || status(err) != http.StatusNotFound {
		t.Errorf("unknown installation: err = %v, want a 404 naming installation 999", err)
	}
	if _, err := c.Client(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "names no installation") {
		t.Errorf("installation 0: err = %v, want one saying the delivery names no installation", err)
	}
}

func TestConcurrentCallersShareOneRefresh(t *testing.T) {
	t.Parallel()
	gh, c, clk := appWorld(t, ghfake.AppKeys()[0])
	gh.Delay("POST /app/installations/{installation_id}/access_tokens", 20*time.Millisecond)
	run := func() {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- ping(t, c, instID)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	}
	run()
	if n := len(gh.IssuedTokens()); n != 1 {
		t.Errorf("16 concurrent first requests minted %d tokens, want 1", n)
	}
	clk.Advance(58 * time.Minute)
	run()
	if n := len(gh.IssuedTokens()); n != 2 {
		t.Errorf("16 concurrent requests near expiry: %d tokens in all, want 2", n)
	}
}

func TestTokenContextGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	src := newSource(1, func(ctx context.Context, _ int64) (*oauth2.Token, error) {
		<-block
		return &oauth2.Token{AccessToken: "x", Expiry: time.Now().Add(time.Hour)}, nil
	}, time.Now, time.Minute)
	go func() { _, _ = src.Token() }() // holds the refresh
	time.Sleep(5 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := src.TokenContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for another refresh past the deadline: err = %v, want the deadline", err)
	}
	close(block)
}

func TestForgetMintsAFreshToken(t *testing.T) {
	t.Parallel()
	gh, c, _ := appWorld(t, ghfake.AppKeys()[0])
	for i := range 3 {
		if i == 2 {
			c.Forget(instID)
		}
		if err := ping(t, c, instID); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(gh.IssuedTokens()); n != 2 {
		t.Errorf("tokens minted = %d, want 2 (one, then one after Forget)", n)
	}
}

func TestIdentityAndCheck(t *testing.T) {
	t.Parallel()
	gh, c, _ := appWorld(t, ghfake.AppKeys()[0])
	login, err := c.Identity(context.Background())
	if err != nil || login != appSlug+"[bot]" {
		t.Errorf("App identity = %q, %v; want %q", login, err, appSlug+"[bot]")
	}
	if err := c.Check(context.Background()); err != nil {
		t.Errorf("App check: %v", err)
	}
	if !c.IsApp() {
		t.Error("IsApp = false for an App")
	}

	gh.AddToken("ghp_dev", "dev", false)
	tc, err := New(Options{Token: "ghp_dev", GitHub: testGitHub(gh)})
	if err != nil {
		t.Fatal(err)
	}
	if login, err := tc.Identity(context.Background()); err != nil || login != "dev" {
		t.Errorf("token identity = %q, %v; want dev", login, err)
	}
	if err := tc.Check(context.Background()); err != nil {
		t.Errorf("token check: %v", err)
	}
	a, _ := tc.Client(context.Background(), 0)
	b, _ := tc.Client(context.Background(), 12)
	if a == nil || a != b {
		t.Error("token mode: want one client for every installation")
	}
	if _, err := tc.TokenSource(1); err == nil {
		t.Error("token mode: TokenSource succeeded, want an error")
	}

	bad, err := New(Options{Token: "ghp_unknown", GitHub: testGitHub(gh)})
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Check(context.Background()); status(err) != http.StatusUnauthorized {
		t.Errorf("unknown token check: err = %v, want a 401", err)
	}
}

func TestNewRefusesIncompleteOptions(t *testing.T) {
	t.Parallel()
	key := ghfake.AppKeys()[0]
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"nothing", Options{}, "neither an App"},
		{"an App and a token", Options{AppID: 1, Key: key, Token: "t"}, "both an App and a token"},
		{"an App without a key", Options{AppID: 1}, "no private key"},
		{"a key without an App id", Options{Key: key}, "want a positive number"},
		{"a bad API URL", Options{Token: "t", GitHub: ghclientOpts("ftp://x")}, "GitHub API URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

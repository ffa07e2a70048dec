package appauth

import (
	"context"
	"crypto/rsa"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
)

const (
	appID   = 4242
	appSlug = "gcloop-test"
	instID  = 77
)

// clock is a settable clock shared by the fake GitHub and the Clients.
type clock struct{ t atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.t.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).Unix())
	return c
}
func (c *clock) Now() time.Time          { return time.Unix(c.t.Load(), 0).UTC() }
func (c *clock) Advance(d time.Duration) { c.t.Add(int64(d / time.Second)) }

// appWorld is the fake GitHub with the App installed once, and Clients
// signing with key.
func appWorld(t *testing.T, key *rsa.PrivateKey) (*ghfake.Server, *Clients, *clock) {
	t.Helper()
	gh := ghfake.New(t)
	clk := newClock()
	gh.SetClock(clk.Now)
	gh.AddApp(ghfake.AppSpec{ID: appID, Slug: appSlug, Key: &ghfake.AppKeys()[0].PublicKey})
	gh.AddInstallation(appID, instID, "octo-org")
	c, err := New(Options{AppID: appID, Key: key, Now: clk.Now, GitHub: testGitHub(gh)})
	if err != nil {
		t.Fatal(err)
	}
	return gh, c, clk
}

func testGitHub(gh *ghfake.Server) ghclient.Options {
	return ghclient.Options{
		BaseURL: gh.URL(),
		Sleep:   func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
}

// ping sends one request with installation's client.
func ping(t *testing.T, c *Clients, installation int64) error {
	t.Helper()
	cl, err := c.Client(context.Background(), installation)
	if err != nil {
		return err
	}
	_, _, err = cl.RateLimit.Get(context.Background())
	return err
}

type githubComment = github.IssueComment

func ghclientOpts(base string) ghclient.Options { return ghclient.Options{BaseURL: base} }

// status is the HTTP status of GitHub's answer inside err, or 0.
func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// Package ghclient builds the GitHub REST client gcloop uses: go-github v62
// over an oauth2 token source and a Transport that bounds every call in time,
// retries what is safe to retry, waits out rate limits within bounds, sends
// mutating requests one at a time and, with a Pacer, keeps each App
// installation's budget of content-creating requests across replicas.
// Classify turns the errors it returns into
// words a PR comment or a log line can show.
package ghclient

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gcloop/gcloop/internal/wait"
	"github.com/google/go-github/v62/github"
	"golang.org/x/oauth2"
)

// Options configures New. Zero values take the documented defaults.
type Options struct {
	// Token is sent as "Authorization: Bearer <token>". Empty sends no
	// Authorization header (anonymous access, 60 requests per hour).
	Token string
	// BaseURL is the REST root, as in GITHUB_API_URL: https://api.github.com
	// or https://ghe.example.com/api/v3, with or without a trailing slash.
	// Empty means github.com.
	BaseURL string
	// UserAgent defaults to "gcloop".
	UserAgent string
	// CallTimeout bounds each attempt of each request; default 30s.
	CallTimeout time.Duration
	// MutationPause is the least time between two mutating requests once
	// GitHub has answered with a secondary rate limit (see Transport); until
	// then mutations are not paced. Default 1s; negative means never pause.
	MutationPause time.Duration
	// MaxRetries is how many times one request is retried; default 4.
	// Negative means no retries.
	MaxRetries int
	// MaxWait is the longest single wait accepted for a rate limit; a longer
	// wait fails at once with a *WaitError. Default 60s.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; default a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used for X-RateLimit-Reset and the mutation pause;
	// default time.Now.
	Now func() time.Time
	// Rand returns a number in [0, 1) for backoff jitter; default math/rand.
	Rand func() float64
	// Base is the transport that sends requests; default a clone of
	// http.DefaultTransport, so that the client's connection pool is its own
	// (httptest.Server.Close and others drop the idle connections of the
	// shared default, failing a request that was about to reuse one).
	Base http.RoundTripper
	// Logf receives one line per retry; default discards.
	Logf func(format string, args ...any)

	// Pacer, when set, is asked before every attempt: a content-creating
	// request (POST, PATCH, PUT, DELETE) waits for its booking in
	// Installation's budget, any other request waits out a block in
	// force; and a rate limit GitHub answers is recorded there as a block,
	// so that every client of Installation, on every replica sharing the
	// Pacer, honours it. Nil paces nothing beyond MutationPause.
	Pacer Pacer
	// Installation is the App installation whose budget the client spends
	// (0: a token's).
	Installation int64
	// MaxPaceWait, when positive, is the longest a request waits for the
	// Pacer; a longer wait fails at once with a *PaceError (Wait says how
	// long), so that a caller holding other work — a bot's worker holding
	// a delivery — can hand it back and come again then. Zero waits up to
	// the context's deadline.
	MaxPaceWait time.Duration
	// OnWait, if set, is told of every wait for the Pacer: write is true
	// for a content-creating request.
	OnWait func(installation int64, write bool, d time.Duration)
	// OnBlock, if set, is told of every block recorded with the Pacer.
	OnBlock func(installation int64, d time.Duration)

	// Contents, when set, keeps the answers to GET requests marked with
	// Revalidate and revalidates them with If-None-Match (a 304 costs no
	// quota). One cache may serve every installation's client.
	Contents *ContentCache
}

func (o Options) withDefaults() Options {
	if o.UserAgent == "" {
		o.UserAgent = "gcloop"
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = 30 * time.Second
	}
	switch {
	case o.MutationPause == 0:
		o.MutationPause = time.Second
	case o.MutationPause < 0:
		o.MutationPause = 0
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = 4
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 60 * time.Second
	}
	if o.Sleep == nil {
		o.Sleep = wait.Sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Base == nil {
		o.Base = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.OnWait == nil {
		o.OnWait = func(int64, bool, time.Duration) {}
	}
	if o.OnBlock == nil {
		o.OnBlock = func(int64, time.Duration) {}
	}
	return o
}

// New returns a go-github client configured by o.
func New(o Options) (*github.Client, error) {
	base, err := baseURL(o.BaseURL)
	if err != nil {
		return nil, err
	}
	o = o.withDefaults()
	var rt http.RoundTripper = newTransport(o)
	if o.Token != "" {
		rt = &oauth2.Transport{
			Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: o.Token, TokenType: "Bearer"}),
			Base:   rt,
		}
	}
	c := github.NewClient(&http.Client{Transport: rt})
	c.BaseURL = base
	c.UploadURL = uploadURL(base)
	c.UserAgent = o.UserAgent
	return c, nil
}

// baseURL parses GITHUB_API_URL. The path is kept as given (GHES sets
// .../api/v3) and gets a trailing slash, which go-github requires.
func baseURL(s string) (*url.URL, error) {
	if s == "" {
		s = "https://api.github.com/"
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("GitHub API URL %q: %w", s, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q: want an absolute http(s) URL such as https://api.github.com", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("GitHub API URL %q: want no query or fragment", s)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// uploadURL derives the uploads root from the REST root: uploads.github.com
// for api.github.com, .../api/uploads/ for a GHES .../api/v3/, else the REST
// root itself (a test server).
func uploadURL(base *url.URL) *url.URL {
	u := *base
	switch {
	case u.Host == "api.github.com":
		u.Host = "uploads.github.com"
	case strings.HasSuffix(u.Path, "/api/v3/"):
		u.Path = strings.TrimSuffix(u.Path, "v3/") + "uploads/"
		u.RawPath = ""
	}
	return &u
}

// Package access decides who may look at the bot's dashboard, live feed and
// JSON API (/, /ws, /api/*). Three modes, chosen by the configuration:
//
//   - OAuth (client id, secret and public URL set): a GitHub login through
//     the web flow, then a signed, encrypted session cookie; each viewer
//     sees only the repositories GitHub says they can read.
//   - Dashboard token: "Authorization: Bearer <token>", or the token once
//     in ?token=, which sets a signed cookie.
//   - Neither: only requests from a loopback address to a loopback host,
//     that no proxy forwarded (no Forwarded, X-Forwarded-For or X-Real-IP
//     header): a reverse proxy on the same machine connects from loopback
//     on behalf of anyone.
//
// The webhook, health, readiness and metrics endpoints are not behind it.
package access

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Modes of a Guard.
const (
	ModeOAuth    = "oauth"
	ModeToken    = "token"
	ModeLoopback = "loopback"
)

// Cookie lifetimes.
const (
	// SessionTTL is the longest a GitHub login lasts (GitHub's user tokens
	// of an App expire after 8 hours).
	SessionTTL = 8 * time.Hour
	// TokenCookieTTL is how long the dashboard token's cookie lasts.
	TokenCookieTTL = 7 * 24 * time.Hour
	// StateTTL is how long a login may take at GitHub.
	StateTTL = 10 * time.Minute
	// RepoTTL is how long GitHub's answer to "may this user read this
	// repository" is kept.
	RepoTTL = 5 * time.Minute
)

// Config configures a Guard: the bot's GCLOOP_PUBLIC_URL,
// GCLOOP_DASHBOARD_TOKEN, GCLOOP_OAUTH_CLIENT_ID and
// GCLOOP_OAUTH_CLIENT_SECRET, and where GitHub is.
type Config struct {
	// PublicURL is the bot's public URL; the OAuth callback is
	// PublicURL/auth/callback, and cookies are Secure when it is https (and
	// on any request that came over TLS).
	PublicURL string
	// DashboardToken, when set, admits requests that present it.
	DashboardToken string
	// OAuthClientID and OAuthClientSecret (both or neither) turn on the
	// GitHub login: the GitHub App's (or an OAuth App's) client.
	OAuthClientID, OAuthClientSecret string
	// Scopes are the OAuth scopes asked for; none for a GitHub App, whose
	// user tokens carry the App's permissions ("repo" for an OAuth App that
	// must see private repositories).
	Scopes []string
	// WebURL is GitHub's web root, where users log in; default
	// https://github.com, or https://ghe.example.com for an APIURL of
	// https://ghe.example.com/api/v3 (GitHub Enterprise Server).
	WebURL string
	// APIURL is GitHub's REST root (GITHUB_API_URL); default
	// https://api.github.com.
	APIURL string
	// HTTPClient sends the requests to GitHub; default a client of its own.
	HTTPClient *http.Client
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives failed logins and GitHub errors; default slog.Default().
	Logger *slog.Logger
}

// Guard admits or refuses the requests of the dashboard, the feed and the API.
type Guard struct {
	mode   string
	public *url.URL // nil when not configured
	secure bool     // cookies are Secure on every request, not only over TLS
	token  string
	// keys derived from the token or the client secret
	tokenKey, sessionSign, sessionSeal, stateKey []byte
	oauth                                        *oauth2.Config
	apiURL                                       string
	client                                       *http.Client
	now                                          func() time.Time
	log                                          *slog.Logger
	repos                                        *repoCache
}

// New checks c and returns its guard.
func New(c Config) (*Guard, error) {
	g := &Guard{token: c.DashboardToken, now: c.Now, log: c.Logger, client: c.HTTPClient}
	if g.now == nil {
		g.now = time.Now
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	if g.client == nil {
		g.client = &http.Client{Timeout: 30 * time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("access: public URL %q: want http(s)://host[:port][/path]", c.PublicURL)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		g.public = u
		g.secure = u.Scheme == "https"
	}
	if (c.OAuthClientID == "") != (c.OAuthClientSecret == "") {
		return nil, errors.New("access: OAuth needs both the client id and the client secret")
	}
	if c.DashboardToken != "" {
		if len(c.DashboardToken) < 16 {
			return nil, errors.New("access: the dashboard token is too short: want at least 16 characters")
		}
		g.tokenKey = derive(c.DashboardToken, "gcloop dashboard cookie")
	}
	switch {
	case c.OAuthClientID != "":
		if g.public == nil {
			return nil, errors.New("access: OAuth needs the public URL (for the callback address)")
		}
		web := strings.TrimSuffix(orDefault(c.WebURL, webFromAPI(c.APIURL)), "/")
		if u, err := url.Parse(web); err != nil || u.Host == "" {
			return nil, fmt.Errorf("access: GitHub web URL %q: want https://host", web)
		}
		g.mode = ModeOAuth
		g.oauth = &oauth2.Config{
			ClientID:     c.OAuthClientID,
			ClientSecret: c.OAuthClientSecret,
			Endpoint: oauth2.Endpoint{
				AuthURL:   web + "/login/oauth/authorize",
				TokenURL:  web + "/login/oauth/access_token",
				AuthStyle: oauth2.AuthStyleInParams,
			},
			RedirectURL: g.public.String() + "/auth/callback",
			Scopes:      c.Scopes,
		}
		g.apiURL = orDefault(c.APIURL, "https://api.github.com")
		g.sessionSign = derive(c.OAuthClientSecret, "gcloop session signature")
		g.sessionSeal = derive(c.OAuthClientSecret, "gcloop session encryption")
		g.stateKey = derive(c.OAuthClientSecret, "gcloop oauth state")
		g.repos = newRepoCache()
	case c.DashboardToken != "":
		g.mode = ModeToken
	default:
		g.mode = ModeLoopback
	}
	return g, nil
}

// Mode is ModeOAuth, ModeToken or ModeLoopback.
func (g *Guard) Mode() string { return g.mode }

// webFromAPI is the web root of a REST root: GitHub Enterprise Server's
// REST API lives under /api/v3 of its web host.
func webFromAPI(api string) string {
	api = strings.TrimSuffix(api, "/")
	if strings.HasSuffix(api, "/api/v3") {
		return strings.TrimSuffix(api, "/api/v3")
	}
	return "https://github.com"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// derive makes a key of its own for each use of one secret.
func derive(secret, use string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(use))
	return m.Sum(nil)
}

// viewer is who a request was admitted as.
type viewer struct {
	login string // the GitHub login; "" for the token and loopback modes
	token string // the user's GitHub token (OAuth)
}

type viewerKey struct{}

func withViewer(ctx context.Context, v *viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

func viewerOf(ctx context.Context) *viewer {
	v, _ := ctx.Value(viewerKey{}).(*viewer)
	return v
}

// RepoFilter is the feed's filter for a request that Wrap admitted: nil
// (every repository) for a token or loopback viewer, and for a GitHub
// login a function that asks GitHub whether that user can read a
// repository (cached for RepoTTL). A request Wrap did not admit sees
// nothing.
func (g *Guard) RepoFilter(r *http.Request) func(ctx context.Context, repo string) bool {
	v := viewerOf(r.Context())
	if v == nil {
		return func(context.Context, string) bool { return false }
	}
	if v.login == "" {
		return nil
	}
	return func(ctx context.Context, repo string) bool { return g.canRead(ctx, v, repo) }
}

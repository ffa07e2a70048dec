package appauth

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/identity"
	"github.com/google/go-github/v62/github"
	"golang.org/x/oauth2"
)

// DefaultRefreshBefore is how long before its expiry an installation token
// is replaced.
const DefaultRefreshBefore = 5 * time.Minute

// Options configures New: an App (AppID and Key) or a token, not both.
type Options struct {
	// AppID and Key authenticate as a GitHub App.
	AppID int64
	Key   *rsa.PrivateKey
	// Token is the single-repository mode's token (a personal or
	// fine-grained token): every installation gets its client.
	Token string
	// GitHub configures every client: BaseURL (GITHUB_API_URL), and Base,
	// the transport under the retries (where a metrics wrapper counts
	// each attempt). Its Token is ignored. A nil Base is one clone of
	// http.DefaultTransport shared by every client. Its Pacer paces each
	// installation's client with the installation's id (a token's with
	// 0); the App's own client, for /app, is not paced.
	GitHub ghclient.Options
	// RefreshBefore is how long before expiry a token is replaced;
	// default DefaultRefreshBefore.
	RefreshBefore time.Duration
	// Now is the clock of token expiry and JWTs; default time.Now.
	Now func() time.Time
}

// Clients hands out GitHub clients: one per App installation, created on
// first use and kept, each over its installation's Source; or the token's
// one client. It implements the delivery handler's Clients. Safe for
// concurrent use.
type Clients struct {
	o      Options
	signer *signer        // App mode
	app    *github.Client // App mode: the JWT's client, for /app
	single *github.Client // token mode

	mu    sync.Mutex
	insts map[int64]*installation
}

type installation struct {
	client *github.Client
	src    *Source
}

// New checks o and returns the Clients; no request is sent.
func New(o Options) (*Clients, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RefreshBefore <= 0 {
		o.RefreshBefore = DefaultRefreshBefore
	}
	if o.GitHub.Base == nil {
		o.GitHub.Base = http.DefaultTransport.(*http.Transport).Clone()
	}
	o.GitHub.Token = ""
	c := &Clients{o: o, insts: map[int64]*installation{}}
	switch app := o.AppID != 0 || o.Key != nil; {
	case app && o.Token != "":
		return nil, errors.New("auth: both an App and a token are configured; give one")
	case app && o.AppID <= 0:
		return nil, fmt.Errorf("auth: App id %d: want a positive number", o.AppID)
	case app && o.Key == nil:
		return nil, fmt.Errorf("auth: App %d has no private key", o.AppID)
	case app:
		c.signer = &signer{id: o.AppID, key: o.Key, now: o.Now}
		jo := o.GitHub
		jo.Base = &jwtTransport{s: c.signer, base: o.GitHub.Base}
		jo.Pacer = nil // the App's requests spend no installation's budget
		jc, err := ghclient.New(jo)
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		c.app = jc
	case o.Token != "":
		so := o.GitHub
		so.Token = o.Token
		so.Installation = 0
		sc, err := ghclient.New(so)
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		c.single = sc
	default:
		return nil, errors.New("auth: neither an App (id and private key) nor a token is configured")
	}
	return c, nil
}

// IsApp reports whether the clients authenticate as a GitHub App.
func (c *Clients) IsApp() bool { return c.signer != nil }

// Client returns the client of installation: in token mode the token's
// client whatever the installation; as an App, the installation's (0 is an
// error: the delivery came from no installation of the App).
func (c *Clients) Client(ctx context.Context, installation int64) (*github.Client, error) {
	if c.single != nil {
		return c.single, nil
	}
	in, err := c.installation(installation)
	if err != nil {
		return nil, err
	}
	return in.client, nil
}

// TokenSource returns installation's token source (App mode only).
func (c *Clients) TokenSource(installation int64) (*Source, error) {
	if c.single != nil {
		return nil, errors.New("auth: a token has no installation token sources")
	}
	in, err := c.installation(installation)
	if err != nil {
		return nil, err
	}
	return in.src, nil
}

var _ oauth2.TokenSource = (*Source)(nil)

func (c *Clients) installation(id int64) (*installation, error) {
	if id <= 0 {
		return nil, fmt.Errorf("auth: App %d: the delivery names no installation (a repository webhook needs a token, not an App)", c.o.AppID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if in, ok := c.insts[id]; ok {
		return in, nil
	}
	src := newSource(id, c.mint, c.o.Now, c.o.RefreshBefore)
	gopts := c.o.GitHub
	gopts.Base = &tokenTransport{src: src, base: c.o.GitHub.Base}
	gopts.Installation = id
	client, err := ghclient.New(gopts)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	in := &installation{client: client, src: src}
	c.insts[id] = in
	return in, nil
}

// Forget drops the cached client and token of installation (it was
// removed, or its permissions or repositories changed): the next delivery
// gets a fresh token.
func (c *Clients) Forget(installation int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.insts, installation)
}

// mint asks GitHub for an access token of installation with the App's JWT.
func (c *Clients) mint(ctx context.Context, installation int64) (*oauth2.Token, error) {
	t, _, err := c.app.Apps.CreateInstallationToken(ctx, installation, &github.InstallationTokenOptions{})
	if err != nil {
		return nil, fmt.Errorf("auth: App %d: access token of installation %d: %w", c.o.AppID, installation, ghclient.Explained(err))
	}
	if t.GetToken() == "" || t.ExpiresAt == nil {
		return nil, fmt.Errorf("auth: App %d: access token of installation %d: GitHub's answer has no token or expires_at", c.o.AppID, installation)
	}
	return &oauth2.Token{AccessToken: t.GetToken(), TokenType: "Bearer", Expiry: t.ExpiresAt.Time}, nil
}

// Identity is the login gcloop writes as: the App's "<slug>[bot]" from GET
// /app, or the token's user from GET /user.
func (c *Clients) Identity(ctx context.Context) (string, error) {
	if c.single != nil {
		return identity.Resolve(ctx, c.single.Users, c.o.Token, "")
	}
	app, _, err := c.app.Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("auth: App %d: GET /app: %w", c.o.AppID, ghclient.Explained(err))
	}
	login := app.GetSlug() + "[bot]"
	if !identity.ValidLogin(login) {
		return "", fmt.Errorf("auth: App %d: GET /app answered slug %q, want a GitHub login", c.o.AppID, app.GetSlug())
	}
	return login, nil
}

// Check reports whether GitHub accepts the credentials: GET /app with the
// App's JWT, or GET /rate_limit with the token (which costs no quota).
func (c *Clients) Check(ctx context.Context) error {
	if c.single != nil {
		if _, _, err := c.single.RateLimit.Get(ctx); err != nil {
			return fmt.Errorf("auth: token: GET /rate_limit: %w", ghclient.Explained(err))
		}
		return nil
	}
	if _, _, err := c.app.Apps.Get(ctx, ""); err != nil {
		return fmt.Errorf("auth: App %d: GET /app: %w", c.o.AppID, ghclient.Explained(err))
	}
	return nil
}

// Package server assembles gcloop's bot: configuration from the
// environment and flags, the store, GitHub App auth, the delivery handler,
// the webhook receiver and its workers, the live feed and dashboard, and
// metrics, in one HTTP server that shuts down cleanly on SIGTERM.
package server

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/appauth"
	"github.com/gcloop/gcloop/bot/artifact"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// Var is one setting: an environment variable, also given as a flag.
type Var struct {
	Env  string // GCLOOP_LISTEN
	Flag string // listen
	Help string
}

// Vars are the bot's settings, in the order the help lists them.
var Vars = []Var{
	{"GCLOOP_WEBHOOK_SECRET", "webhook-secret", "the GitHub App's webhook secret (required)"},
	{"GCLOOP_APP_ID", "app-id", "the GitHub App's id"},
	{"GCLOOP_APP_PRIVATE_KEY", "app-private-key", "the App's private key (PEM)"},
	{"GCLOOP_APP_PRIVATE_KEY_FILE", "app-private-key-file", "a file holding the App's private key"},
	{"GCLOOP_TOKEN", "token", "a personal or fine-grained token, instead of an App"},
	{"GCLOOP_REPOSITORY", "repository", "the one repository (owner/name) the token serves; deliveries of others are ignored"},
	{"GITHUB_API_URL", "github-api-url", "GitHub's REST API (default https://api.github.com; GitHub Enterprise: https://HOST/api/v3)"},
	{"GCLOOP_LISTEN", "listen", "the address to listen on (default :8080)"},
	{"GCLOOP_DATABASE_URL", "database-url", "postgres://… for a store shared by replicas (default: in memory, one replica)"},
	{"GCLOOP_DASHBOARD_TOKEN", "dashboard-token", "a token that opens the dashboard and its API"},
	{"GCLOOP_OAUTH_CLIENT_ID", "oauth-client-id", "the App's OAuth client id, for GitHub logins to the dashboard"},
	{"GCLOOP_OAUTH_CLIENT_SECRET", "oauth-client-secret", "the App's OAuth client secret"},
	{"GCLOOP_PUBLIC_URL", "public-url", "the bot's public URL (https://gcloop.example.com)"},
	{"GCLOOP_ALLOWED_ORIGINS", "allowed-origins", "more origins that may open the live feed, comma-separated"},
	{"GCLOOP_STATE_KEY", "state-key", "a key that seals the loop state in report comments"},
	{"GCLOOP_WORKERS", "workers", "deliveries worked on at once by this replica (default 4)"},
	{"GCLOOP_LEASE", "lease", "how long a claimed delivery stays a replica's without its heartbeat; then another replica takes it over (default 60s)"},
	{"GCLOOP_GITHUB_WRITES_PER_MINUTE", "github-writes-per-minute", "content-creating GitHub requests per installation in any minute, all replicas together (default 80)"},
	{"GCLOOP_GITHUB_WRITES_PER_HOUR", "github-writes-per-hour", "content-creating GitHub requests per installation in any hour, all replicas together (default 500)"},
	{"GCLOOP_CONFIG_CACHE", "config-cache", "repository configuration files kept for revalidation with If-None-Match, per replica (default 2048)"},
	{"GCLOOP_ARTIFACT_BUDGET", "artifact-budget", "the bytes a round may unpack from a run's artifacts, such as 64MiB (default); a round over it is refused with a neutral check"},
	{"GCLOOP_METRICS_LISTEN", "metrics-listen", "serve /metrics on this address of its own, and no longer on GCLOOP_LISTEN (default: /metrics on GCLOOP_LISTEN)"},
	{"GCLOOP_WEBHOOK_UNVERIFIED", "webhook-unverified", "the most bytes of webhook bodies held before their signature is checked, such as 64MiB (the default; at least 25MiB); a delivery that finds no room is answered 503"},
	{"GCLOOP_RETRY_WINDOW", "retry-window", "how long after its first attempt a delivery that fails transiently (GitHub 5xx, rate limits, network) is retried; then it is dead (default 30m)"},
	{"GCLOOP_RETRY_BACKOFF", "retry-backoff", "the longest wait before the first retry, doubling per retry (full jitter; GitHub's Retry-After wins) (default 10s)"},
	{"GCLOOP_RETRY_BACKOFF_MAX", "retry-backoff-max", "the cap of the doubling wait between retries (default 5m)"},
}

// MinWebhookSecret is the shortest webhook secret the bot accepts.
const MinWebhookSecret = 20

// DefaultListen is where the bot listens without GCLOOP_LISTEN.
const DefaultListen = ":8080"

// Config is the bot's validated configuration.
type Config struct {
	WebhookSecret string
	// An App (AppID and Key) or a token (Token, limited to Repository when
	// that is set).
	AppID      int64
	Key        *rsa.PrivateKey
	Token      string
	Repository string // owner/name; "": any the token may act on
	APIURL     string
	Listen     string
	// DatabaseURL is "" for the in-memory store.
	DatabaseURL       string
	DashboardToken    string
	OAuthClientID     string
	OAuthClientSecret string
	PublicURL         string
	AllowedOrigins    []string
	StateKey          string
	Workers           int
	Lease             time.Duration // 0: the workers' default
	// Budget is GitHub's: the pacer's limits and the config cache.
	Budget Budget
	// ArtifactBudget is the bytes a round may unpack from its artifacts.
	ArtifactBudget int64
	// MetricsListen is where /metrics is served on its own; "": on Listen.
	MetricsListen string
	// MaxUnverified is the most bytes of webhook bodies held before their
	// signature is checked; 0: the receiver's default.
	MaxUnverified int64
	// The retries of transient failures; 0: the workers' defaults.
	RetryWindow, RetryBackoff, RetryBackoffMax time.Duration
}

// ConfigErrors are every mistake of a configuration, one line each.
type ConfigErrors []error

func (e ConfigErrors) Error() string {
	lines := make([]string, len(e))
	for i, err := range e {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "; ")
}

var repoRE = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// Gather reads the configuration through get (a flag's value when given,
// else the environment variable's) and validates it; readFile reads the
// key file. Every mistake is reported, each naming its variable.
func Gather(get func(env string) string, readFile func(string) ([]byte, error)) (*Config, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	var errs ConfigErrors
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	v := func(name string) string { return strings.TrimSpace(get(name)) }
	c := &Config{
		WebhookSecret: get("GCLOOP_WEBHOOK_SECRET"), Token: v("GCLOOP_TOKEN"), Repository: v("GCLOOP_REPOSITORY"),
		APIURL: v("GITHUB_API_URL"), Listen: v("GCLOOP_LISTEN"), DatabaseURL: v("GCLOOP_DATABASE_URL"),
		DashboardToken: v("GCLOOP_DASHBOARD_TOKEN"), OAuthClientID: v("GCLOOP_OAUTH_CLIENT_ID"),
		OAuthClientSecret: v("GCLOOP_OAUTH_CLIENT_SECRET"), PublicURL: v("GCLOOP_PUBLIC_URL"),
		StateKey: get("GCLOOP_STATE_KEY"),
	}
	// Where GitHub holds the same secret: the App's settings, or with a
	// token the repository's webhook.
	hook := "the GitHub App's settings"
	if c.Token != "" {
		hook = "the repository's webhook (Settings → Webhooks)"
	}
	switch n := len(c.WebhookSecret); {
	case n == 0:
		bad("GCLOOP_WEBHOOK_SECRET is not set: the bot refuses to start without the webhook secret set in %s", hook)
	case n < MinWebhookSecret:
		bad("GCLOOP_WEBHOOK_SECRET is too short (%d characters, want at least %d): make one with `openssl rand -hex 32` and set it in %s too", n, MinWebhookSecret, hook)
	}

	id, keyPEM, keyFile := v("GCLOOP_APP_ID"), get("GCLOOP_APP_PRIVATE_KEY"), v("GCLOOP_APP_PRIVATE_KEY_FILE")
	app := id != "" || strings.TrimSpace(keyPEM) != "" || keyFile != ""
	switch {
	case app && c.Token != "":
		bad("GCLOOP_TOKEN and GCLOOP_APP_ID are both set: configure a GitHub App or a token, not both")
	case app:
		n, err := strconv.ParseInt(id, 10, 64)
		switch {
		case id == "":
			bad("GCLOOP_APP_ID is not set: an App's private key needs the App's id")
		case err != nil || n <= 0:
			bad("GCLOOP_APP_ID %q: want the App's numeric id", id)
		default:
			c.AppID = n
		}
		switch {
		case strings.TrimSpace(keyPEM) != "" && keyFile != "":
			bad("GCLOOP_APP_PRIVATE_KEY and GCLOOP_APP_PRIVATE_KEY_FILE are both set: give one")
		case strings.TrimSpace(keyPEM) != "":
			if c.Key, err = appauth.ParseKey([]byte(keyPEM)); err != nil {
				bad("GCLOOP_APP_PRIVATE_KEY: %v", err)
			}
		case keyFile != "":
			data, err := readFile(keyFile)
			if err != nil {
				bad("GCLOOP_APP_PRIVATE_KEY_FILE: %v", err)
			} else if c.Key, err = appauth.ParseKey(data); err != nil {
				bad("GCLOOP_APP_PRIVATE_KEY_FILE %s: %v", keyFile, err)
			}
		default:
			bad("GCLOOP_APP_PRIVATE_KEY or GCLOOP_APP_PRIVATE_KEY_FILE is needed with GCLOOP_APP_ID")
		}
		if c.Repository != "" {
			bad("GCLOOP_REPOSITORY %q: only a token is limited to one repository; an App serves its installations", c.Repository)
		}
	case c.Token != "":
		// Without GCLOOP_REPOSITORY the token serves whichever repository
		// a delivery comes from, as far as the token may act there.
		if c.Repository != "" && !repoRE().MatchString(c.Repository) {
			bad("GCLOOP_REPOSITORY %q: want owner/name", c.Repository)
		}
	default:
		bad("no GitHub credentials: set GCLOOP_APP_ID and GCLOOP_APP_PRIVATE_KEY_FILE (a GitHub App), or GCLOOP_TOKEN (a token; GCLOOP_REPOSITORY, optional, limits it to one repository)")
	}

	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if err := checkAddr(c.Listen); err != nil {
		bad("GCLOOP_LISTEN %q: %v", c.Listen, err)
	}
	if c.MetricsListen = v("GCLOOP_METRICS_LISTEN"); c.MetricsListen != "" {
		if err := checkAddr(c.MetricsListen); err != nil {
			bad("GCLOOP_METRICS_LISTEN %q: %v", c.MetricsListen, err)
		} else if c.MetricsListen == c.Listen && !strings.HasSuffix(c.Listen, ":0") {
			bad("GCLOOP_METRICS_LISTEN %q is GCLOOP_LISTEN's address: give /metrics an address of its own, or leave it unset to serve /metrics on GCLOOP_LISTEN", c.MetricsListen)
		}
	}
	if u := v("GCLOOP_WEBHOOK_UNVERIFIED"); u != "" {
		n, err := artifact.ParseSize(u)
		switch {
		case err != nil:
			bad("GCLOOP_WEBHOOK_UNVERIFIED %q: want a size such as 64MiB, at least 25MiB", u)
		case n < webhook.MaxBody:
			bad("GCLOOP_WEBHOOK_UNVERIFIED %q: want at least 25MiB, the largest delivery GitHub sends", u)
		default:
			c.MaxUnverified = n
		}
	}
	if c.APIURL != "" {
		if err := absoluteURL(c.APIURL); err != nil {
			bad("GITHUB_API_URL %q: %v", c.APIURL, err)
		}
	}
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			bad("GCLOOP_DATABASE_URL: want a postgres:// URL (or nothing, for the in-memory store)")
		}
	}
	if c.PublicURL != "" {
		if err := absoluteURL(c.PublicURL); err != nil {
			bad("GCLOOP_PUBLIC_URL %q: %v", c.PublicURL, err)
		}
	}
	if c.DashboardToken != "" && len(c.DashboardToken) < 16 {
		bad("GCLOOP_DASHBOARD_TOKEN is too short: want at least 16 characters")
	}
	switch {
	case (c.OAuthClientID == "") != (c.OAuthClientSecret == ""):
		bad("GCLOOP_OAUTH_CLIENT_ID and GCLOOP_OAUTH_CLIENT_SECRET go together: set both or neither")
	case c.OAuthClientID != "" && c.PublicURL == "":
		bad("GCLOOP_PUBLIC_URL is not set: GitHub logins need it for the OAuth callback")
	}
	for _, o := range strings.Split(get("GCLOOP_ALLOWED_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.AllowedOrigins = append(c.AllowedOrigins, o)
		}
	}
	c.Workers = 4
	if w := v("GCLOOP_WORKERS"); w != "" {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 || n > 256 {
			bad("GCLOOP_WORKERS %q: want a number from 1 to 256", w)
		} else {
			c.Workers = n
		}
	}
	if l := v("GCLOOP_LEASE"); l != "" {
		d, err := time.ParseDuration(l)
		if err != nil || d < time.Second || d > time.Hour {
			bad("GCLOOP_LEASE %q: want a duration from 1s to 1h, such as 60s", l)
		} else {
			c.Lease = d
		}
	}
	c.Budget = gatherBudget(v, bad)
	c.ArtifactBudget = artifact.DefaultBudget
	if b := v("GCLOOP_ARTIFACT_BUDGET"); b != "" {
		n, err := artifact.ParseSize(b)
		if err != nil || n < MinArtifactBudget || n > MaxArtifactBudget {
			bad("GCLOOP_ARTIFACT_BUDGET %q: want a size from %s to %s, such as 64MiB", b, artifact.Size(MinArtifactBudget), artifact.Size(MaxArtifactBudget))
		} else {
			c.ArtifactBudget = n
		}
	}
	duration := func(name, example string, least, most time.Duration, into *time.Duration) {
		s := v(name)
		if s == "" {
			return
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < least || d > most {
			bad("%s %q: want a duration from %s to %s, such as %s", name, s, least, most, example)
			return
		}
		*into = d
	}
	duration("GCLOOP_RETRY_WINDOW", "30m", time.Minute, 72*time.Hour, &c.RetryWindow)
	duration("GCLOOP_RETRY_BACKOFF", "10s", 100*time.Millisecond, time.Hour, &c.RetryBackoff)
	duration("GCLOOP_RETRY_BACKOFF_MAX", "5m", time.Second, 24*time.Hour, &c.RetryBackoffMax)
	if c.RetryBackoff > 0 && c.RetryBackoffMax > 0 && c.RetryBackoffMax < c.RetryBackoff {
		bad("GCLOOP_RETRY_BACKOFF_MAX %s is below GCLOOP_RETRY_BACKOFF %s", c.RetryBackoffMax, c.RetryBackoff)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// The range of GCLOOP_ARTIFACT_BUDGET.
const (
	MinArtifactBudget = 1 << 20
	MaxArtifactBudget = 4 << 30
)

// checkAddr checks a listening address: host:port or :port.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port or :port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return nil
}

func absoluteURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http(s) URL")
	}
	return nil
}

// App reports whether the bot authenticates as a GitHub App.
func (c *Config) App() bool { return c.AppID != 0 }

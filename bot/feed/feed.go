// Package feed serves the bot's event log live and as JSON: GET /ws (a
// websocket), GET /api/events (also streamed as ndjson), GET /api/loops
// and GET /api/loops/{owner}/{repo}/{pr} (one pull request's rounds).
//
// One Hub per process holds one subscription to the store and fans every
// event out to any number of websocket subscribers, each with a bounded
// buffer. A subscriber whose buffer fills is closed with 1013 (try again
// later) and resumes with ?since=<the last id it saw>; a resumed or new
// subscriber replays the retained log after since and then goes live with
// no gap and no duplicate.
package feed

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/internal/wait"
)

// Log is what the feed reads of the store's event log; the bot's store
// satisfies it.
type Log interface {
	// Since returns at most limit retained events with an ID above after,
	// in ID order.
	Since(ctx context.Context, after int64, limit int) ([]event.Event, error)
	// Subscribe returns every event appended from now on, in ID order, on a
	// channel that is closed when ctx ends or the subscriber falls behind.
	Subscribe(ctx context.Context) (<-chan event.Event, error)
}

// Filter reports whether the viewer of one request may see the events of
// repo ("owner/name"). A nil Filter lets the viewer see every event.
type Filter func(ctx context.Context, repo string) bool

// Options configures a Hub. Zero values take the documented defaults.
type Options struct {
	// PublicURL is the bot's public URL (GCLOOP_PUBLIC_URL); browsers on its
	// host may open /ws.
	PublicURL string
	// AllowedOrigins are more origins that may open /ws
	// (GCLOOP_ALLOWED_ORIGINS): "https://host[:port]" matches that scheme
	// and host, a bare "host[:port]" matches the host under any scheme. A
	// page served by the host the request was sent to is always allowed,
	// and a request without an Origin header (not a browser) too.
	AllowedOrigins []string
	// FilterFor returns the Filter of the request's viewer (nil: every
	// event); nil lets every viewer see every event. The bot wires the
	// access guard's RepoFilter here.
	FilterFor func(r *http.Request) func(ctx context.Context, repo string) bool
	// Buffer is how many events wait for one slow subscriber before it is
	// closed with 1013; default 256.
	Buffer int
	// PingInterval is how often an idle connection is pinged; default 30s.
	PingInterval time.Duration
	// PongWait is how long a peer may stay silent (no pong, no message)
	// before it is dropped; default two ping intervals.
	PongWait time.Duration
	// WriteTimeout bounds each write to a subscriber; default 10s.
	WriteTimeout time.Duration
	// CloseWait is how long a closing connection waits for the peer's close
	// frame before dropping the TCP connection; default 2s.
	CloseWait time.Duration
	// ReadLimit is the largest message a client may send (clients send
	// nothing but control frames); default 512 bytes. A larger one closes
	// the connection with 1009.
	ReadLimit int64
	// RetryWait is the first wait before the hub subscribes again after
	// the store refused a subscription; it doubles after each refusal up to
	// 30s. Default 1s.
	RetryWait time.Duration
	// Sleep waits d or until ctx ends; default a real timer. Tests inject
	// their own.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives the hub's warnings; default slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Buffer <= 0 {
		o.Buffer = 256
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.PongWait <= 0 {
		o.PongWait = 2 * o.PingInterval
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.CloseWait <= 0 {
		o.CloseWait = 2 * time.Second
	}
	if o.ReadLimit <= 0 {
		o.ReadLimit = 512
	}
	if o.RetryWait <= 0 {
		o.RetryWait = time.Second
	}
	if o.Sleep == nil {
		o.Sleep = wait.Sleep
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// origin is one allowed origin: a host, and a scheme unless any scheme is
// allowed.
type origin struct {
	scheme, host string
}

// parseOrigins reads the public URL and the allow-list.
func parseOrigins(public string, allowed []string) ([]origin, error) {
	var out []origin
	if public != "" {
		u, err := url.Parse(public)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("feed: public URL %q: want http(s)://host[:port]", public)
		}
		out = append(out, origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Host)})
	}
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if !strings.Contains(a, "://") {
			if strings.ContainsAny(a, "/?#@ ") {
				return nil, fmt.Errorf("feed: allowed origin %q: want https://host[:port] or host[:port]", a)
			}
			out = append(out, origin{host: strings.ToLower(a)})
			continue
		}
		u, err := url.Parse(a)
		if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("feed: allowed origin %q: want https://host[:port] or host[:port]", a)
		}
		out = append(out, origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Host)})
	}
	return out, nil
}

// originAllowed reports whether a browser page at the Origin header o may
// open the feed of a request sent to host.
func originAllowed(o, host string, allowed []origin) bool {
	if o == "" {
		return true // not a browser
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	h := strings.ToLower(u.Host)
	if h == strings.ToLower(host) {
		return true
	}
	s := strings.ToLower(u.Scheme)
	for _, a := range allowed {
		if a.host == h && (a.scheme == "" || a.scheme == s) {
			return true
		}
	}
	return false
}

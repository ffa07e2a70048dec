package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcloop/gcloop/bot/access"
	"github.com/gcloop/gcloop/bot/appauth"
	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/metrics"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/google/go-github/v62/github"
)

// Defaults of Options.
const (
	DefaultShutdownTimeout = 25 * time.Second // within Kubernetes' 30 s grace
	DefaultStartTimeout    = 30 * time.Second
)

// Options are what the server takes from its process rather than its
// configuration. Zero values take the defaults.
type Options struct {
	Logger *slog.Logger // default: JSON on stderr
	// ShutdownTimeout bounds the shutdown after the context ends.
	ShutdownTimeout time.Duration
	// StartTimeout bounds the start: the store's migration and GitHub's
	// answer to the identity request.
	StartTimeout time.Duration
	// Listening, if set, is told the address once the server listens.
	Listening func(net.Addr)
	// MetricsListening, if set, is told the address of /metrics of its
	// own (GCLOOP_METRICS_LISTEN) once it listens.
	MetricsListening func(net.Addr)
	// Base is the transport under every GitHub request (tests).
	Base http.RoundTripper
}

// Server is the assembled bot.
type Server struct {
	cfg      *Config
	opts     Options
	log      *slog.Logger
	store    store.Store
	clients  *appauth.Clients
	metrics  *metrics.Metrics
	ready    *metrics.Ready
	handler  *handler
	login    string
	mux      *http.ServeMux
	draining atomic.Bool
	parts    []part
	access   string // who may look: access.ModeOAuth, ModeToken or ModeLoopback
}

// part is a component with a life of its own: started before the server
// listens, shut down after it stops accepting.
type part struct {
	name     string
	start    func(ctx context.Context) // ctx ends at shutdown
	shutdown func(ctx context.Context) error
	// handsBack: an error of shutdown says what was handed back
	// unfinished, which is part of a clean shutdown.
	handsBack bool
}

// New assembles the bot from cfg: it opens the store and asks GitHub who
// the bot is (which checks the credentials), then builds every handler.
// Nothing listens until Serve.
func New(ctx context.Context, cfg *Config, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	s := &Server{cfg: cfg, opts: o, log: o.Logger, metrics: metrics.New(), mux: http.NewServeMux()}

	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.store = st
	ok := false
	defer func() {
		if !ok {
			_ = st.Close()
		}
	}()

	base := o.Base
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	s.clients, err = appauth.New(appauth.Options{
		AppID: cfg.AppID, Key: cfg.Key, Token: cfg.Token,
		GitHub: s.github(ghclient.Options{BaseURL: cfg.APIURL, Base: s.metrics.Transport(base), Logf: s.logf}),
	})
	if err != nil {
		return nil, err
	}
	if s.login, err = s.clients.Identity(ctx); err != nil {
		return nil, fmt.Errorf("ask GitHub who the bot is (which checks its credentials): %w", err)
	}

	log := metrics.CountingLog{Log: st, Metrics: s.metrics}
	s.handler = &handler{
		next: &delivery.Handler{
			Clients: s.clients, Login: s.login, Token: cfg.Token, StateKey: cfg.StateKey,
			Plain: &http.Client{Transport: base, Timeout: 2 * time.Minute}, Log: log,
			ArtifactBudget: cfg.ArtifactBudget,
		},
		clients: s.clients, repository: cfg.Repository, log: s.log,
	}
	s.metrics.QueueDepth(st.Pending)
	s.metrics.DeadDeliveries(func(ctx context.Context) (int, error) { _, n, err := st.Dead(ctx, 0); return n, err })
	s.ready = &metrics.Ready{Logger: s.log, Checks: []metrics.Check{
		{Name: "store", Run: st.Ping},
		{Name: "github", Run: metrics.Reuse(githubCheckReuse, nil, s.githubCheck)},
	}}
	s.mux.Handle("GET /healthz", metrics.Healthz())
	s.mux.Handle("GET /readyz", http.HandlerFunc(s.readyz))
	if cfg.MetricsListen == "" {
		s.mux.Handle("GET /metrics", s.metrics.Handler())
	}
	if err := s.wire(); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// openStore opens the in-memory store, or PostgreSQL for a database URL.
func openStore(ctx context.Context, cfg *Config) (store.Store, error) {
	if cfg.DatabaseURL == "" {
		return store.NewMemory(store.Options{}), nil
	}
	return openPostgres(ctx, cfg.DatabaseURL)
}

// Login is the bot's identity on GitHub.
func (s *Server) Login() string { return s.login }

// Handler is the bot's HTTP handler: every endpoint.
func (s *Server) Handler() http.Handler { return s.mux }

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"shutting down"}` + "\n"))
		return
	}
	s.ready.ServeHTTP(w, r)
}

// githubCheckReuse is how long GitHub's acceptance of the credentials is
// taken as still true: probes every few seconds on every replica would
// otherwise cost the App thousands of requests an hour.
const githubCheckReuse = time.Minute

// githubCheck is the readiness of the bot's GitHub credentials: not ready
// when GitHub refuses them (401: a wrong key or App id, a revoked token).
// GitHub being down or slow leaves the bot ready, because it still accepts
// and queues deliveries, which is what a load balancer asks of it; the
// failure is logged.
func (s *Server) githubCheck(ctx context.Context) error {
	err := s.clients.Check(ctx)
	if err == nil {
		return nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnauthorized {
		return err
	}
	s.log.Warn("GitHub did not answer the readiness check; deliveries are still accepted and queued", "error", err.Error())
	return nil
}

func (s *Server) logf(format string, args ...any) {
	s.log.Info(fmt.Sprintf(format, args...))
}

// ListenAndServe listens on the configured address and serves until ctx
// ends (SIGTERM, SIGINT), then shuts down; nil after a clean shutdown.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		_ = s.store.Close()
		return fmt.Errorf("GCLOOP_LISTEN %s: %w", s.cfg.Listen, err)
	}
	return s.Serve(ctx, ln)
}

// MaxHeaderBytes bounds a request's headers: GitHub's deliveries send a
// dozen short ones, and a browser's cookies for the dashboard are a few
// kilobytes.
const MaxHeaderBytes = 64 << 10

// httpServer is the bot's HTTP server for h: headers within 10 s and
// MaxHeaderBytes; a body within 2 minutes (the webhook receiver paces its
// own more tightly: a minimum rate, per read).
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute, // a 25 MB delivery on a slow link
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Serve serves on ln (and /metrics on GCLOOP_METRICS_LISTEN, when set)
// until ctx ends, then shuts down in order: stop accepting and answer
// /readyz 503, let requests in flight finish, close websockets with 1001,
// let the workers finish or hand back their deliveries, close the store.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := s.httpServer(s.mux)
	var msrv *http.Server
	var mln net.Listener
	if s.cfg.MetricsListen != "" {
		var err error
		if mln, err = net.Listen("tcp", s.cfg.MetricsListen); err != nil {
			_ = ln.Close()
			_ = s.store.Close()
			return fmt.Errorf("GCLOOP_METRICS_LISTEN %s: %w", s.cfg.MetricsListen, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metrics.Handler())
		msrv = s.httpServer(mux)
	}
	work, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	for _, p := range s.parts {
		p.start(work)
	}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	if msrv != nil {
		go func() { served <- msrv.Serve(mln) }()
	}
	attrs := []any{"addr", ln.Addr().String(), "login", s.login, "app", s.cfg.App(),
		"store", storeKind(s.cfg), "workers", s.cfg.Workers, "dashboard", s.access}
	if mln != nil {
		attrs = append(attrs, "metrics", mln.Addr().String())
	}
	s.log.Info("gcloop bot listening", attrs...)
	if s.access == access.ModeLoopback {
		s.log.Warn("the dashboard, the live feed and the API have no authentication: only requests from this machine that no proxy forwarded may see them; set GCLOOP_DASHBOARD_TOKEN, or GCLOOP_OAUTH_CLIENT_ID and GCLOOP_OAUTH_CLIENT_SECRET for GitHub logins, to open them to others")
	}
	if s.opts.Listening != nil {
		s.opts.Listening(ln.Addr())
	}
	if mln != nil && s.opts.MetricsListening != nil {
		s.opts.MetricsListening(mln.Addr())
	}

	var serveErr error
	select {
	case <-ctx.Done():
		s.log.Info("shutting down", "cause", context.Cause(ctx).Error(), "timeout", s.opts.ShutdownTimeout.String())
	case serveErr = <-served:
		s.log.Error("server stopped", "error", serveErr.Error())
	}
	s.draining.Store(true)
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()

	// First the HTTP server (no new deliveries; requests in flight end)
	// and the parts that hand nothing back (the feed's websockets, which
	// the HTTP server's shutdown does not wait for); then the workers, so
	// that they may still take what was accepted meanwhile.
	errs := make([]error, len(s.parts)+1)
	stop := func(wg *sync.WaitGroup, i int, p part) {
		defer wg.Done()
		err := p.shutdown(sctx)
		switch {
		case err != nil && p.handsBack:
			s.log.Info("handed back unfinished work", "part", p.name, "detail", err.Error())
		case err != nil:
			errs[i+1] = fmt.Errorf("%s: %w", p.name, err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Shutdown(sctx); err != nil {
			errs[0] = fmt.Errorf("http: %w", err)
		}
	}()
	if msrv != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := msrv.Shutdown(sctx); err != nil {
				s.log.Warn("shutdown of the metrics listener", "error", err.Error())
			}
		}()
	}
	for i, p := range s.parts {
		if !p.handsBack {
			wg.Add(1)
			go stop(&wg, i, p)
		}
	}
	wg.Wait()
	for i, p := range s.parts {
		if p.handsBack {
			wg.Add(1)
			go stop(&wg, i, p)
		}
	}
	wg.Wait()
	stopWork()
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("store: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		s.log.Error("shutdown", "error", err.Error())
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		// The server stopped on its own: that is a failure, whatever the
		// shutdown did.
		return fmt.Errorf("serve: %w", serveErr)
	}
	s.log.Info("stopped")
	return nil
}

func storeKind(c *Config) string {
	if c.DatabaseURL != "" {
		return "postgres"
	}
	return "memory"
}

package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/access"
	"github.com/gcloop/gcloop/bot/dash"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/feed"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/metrics"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
)

// countingStore is the store whose appended events are counted in the
// metrics, whoever appends them: the receiver, the workers or a round.
type countingStore struct {
	store.Store
	m *metrics.Metrics
}

func (c countingStore) Append(ctx context.Context, e event.Event) (event.Event, error) {
	return metrics.CountingLog{Log: c.Store, Metrics: c.m}.Append(ctx, e)
}

// wire adds the webhook receiver and its workers, the live feed and its
// API, the dashboard, and the guard in front of those three.
func (s *Server) wire() error {
	st := countingStore{Store: s.store, m: s.metrics}
	pool, err := webhook.NewPool(st, s.handler, webhook.PoolOptions{
		Workers: s.cfg.Workers, Lease: s.cfg.Lease, Logger: s.log, Observe: s.metrics.Observe,
		RetryWindow: s.cfg.RetryWindow, RetryFirst: s.cfg.RetryBackoff, RetryMax: s.cfg.RetryBackoffMax,
	})
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	rc, err := webhook.NewReceiver([]byte(s.cfg.WebhookSecret), st, webhook.ReceiverOptions{
		Wake: pool.Wake, Logger: s.log, Observe: s.metrics.Observe, MaxUnverified: s.cfg.MaxUnverified,
	})
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	s.metrics.Unverified(rc.Unverified, rc.MaxUnverified())
	s.mux.Handle("/webhook", rc)
	s.parts = append(s.parts, part{
		name:      "workers",
		start:     func(context.Context) { pool.Start() },
		shutdown:  pool.Shutdown,
		handsBack: true,
	})

	guard, err := access.New(access.Config{
		PublicURL: s.cfg.PublicURL, DashboardToken: s.cfg.DashboardToken,
		OAuthClientID: s.cfg.OAuthClientID, OAuthClientSecret: s.cfg.OAuthClientSecret,
		WebURL: webURL(s.cfg.APIURL), APIURL: s.cfg.APIURL, Logger: s.log,
	})
	if err != nil {
		return err
	}
	hub, err := feed.New(s.store, feed.Options{
		PublicURL: s.cfg.PublicURL, AllowedOrigins: s.cfg.AllowedOrigins, Logger: s.log,
		FilterFor: guard.RepoFilter,
	})
	if err != nil {
		return fmt.Errorf("feed: %w", err)
	}
	s.metrics.Subscribers(hub.Subscribers, hub.Dropped)
	guard.Routes(s.mux)
	s.mux.Handle("GET /{$}", guard.Wrap(dash.Handler()))
	s.mux.Handle("GET /ws", guard.Wrap(hub))
	s.mux.Handle("GET /api/events", guard.Wrap(hub.Events()))
	s.mux.Handle("GET /api/loops", guard.Wrap(hub.Loops()))
	s.mux.Handle("GET /api/loops/{owner}/{repo}/{pr}", guard.Wrap(hub.LoopHistory()))
	dead := &deliveriesAPI{store: s.store, filter: guard.RepoFilter, wake: pool.Wake, log: s.log}
	s.mux.Handle("GET /api/deliveries", guard.Wrap(http.HandlerFunc(dead.list)))
	s.mux.Handle("POST /api/deliveries/{id}/redeliver", guard.Wrap(http.HandlerFunc(dead.redeliver)))
	s.access = guard.Mode()
	s.parts = append(s.parts, part{
		name: "feed",
		start: func(ctx context.Context) {
			go func() {
				if err := hub.Run(ctx); err != nil {
					s.log.Error("live feed stopped", "error", err.Error())
				}
			}()
		},
		shutdown: hub.Shutdown,
	})
	return nil
}

// workerPaceWait is the longest a worker waits for an installation's
// budget while it holds a delivery; a longer wait hands the delivery back
// to the queue until the budget frees up, so that one installation over
// its budget holds no worker that another installation's delivery could
// use, and a worker that dies meanwhile costs the delivery no lease.
const workerPaceWait = 10 * time.Second

// github adds to o what every GitHub client of the bot shares: the pacer
// of each installation's budget — in PostgreSQL, shared by every replica,
// or this replica's own with the in-memory store — and its metrics, and
// the cache that revalidates repository configuration files.
func (s *Server) github(o ghclient.Options) ghclient.Options {
	b := s.cfg.Budget
	if pg, ok := s.store.(*store.Postgres); ok {
		o.Pacer = pg.Pacer(b.Writes, nil)
	} else {
		o.Pacer = store.NewMemPacer(b.Writes, nil)
	}
	o.MaxPaceWait = workerPaceWait
	pacing := s.metrics.Pacing()
	o.OnWait, o.OnBlock = pacing.Wait, pacing.Block
	o.Contents = ghclient.NewContentCache(b.ConfigCache)
	s.metrics.ConfigReads(o.Contents.Stats)
	return o
}

// webURL is GitHub's web root for the REST root api: a GitHub Enterprise
// Server's https://HOST for https://HOST/api/v3; "" (github.com) otherwise.
func webURL(api string) string {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

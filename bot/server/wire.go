package server

import (
	"context"
	"fmt"

	"github.com/gcloop/gcloop/bot/event"
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

// wire adds the webhook receiver and its workers.
func (s *Server) wire() error {
	st := countingStore{Store: s.store, m: s.metrics}
	pool, err := webhook.NewPool(st, s.handler, webhook.PoolOptions{
		Workers: s.cfg.Workers, Lease: s.cfg.Lease, Logger: s.log, Observe: s.metrics.Observe,
	})
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	rc, err := webhook.NewReceiver([]byte(s.cfg.WebhookSecret), st, webhook.ReceiverOptions{
		Wake: pool.Wake, Logger: s.log, Observe: s.metrics.Observe,
	})
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	s.mux.Handle("/webhook", rc)
	s.parts = append(s.parts, part{
		name:      "workers",
		start:     func(context.Context) { pool.Start() },
		shutdown:  pool.Shutdown,
		handsBack: true,
	})
	return nil
}

package store

import (
	"context"
	"time"
)

// Forget is how long Postgres remembers a finished delivery's id to
// refuse its redelivery. GitHub redelivers deliveries of the past three
// days only.
const Forget = 7 * 24 * time.Hour

// pruneEvery is how often a replica forgets old finished deliveries.
const pruneEvery = time.Hour

// pruneLoop forgets old finished deliveries now and then until ctx ends.
func (p *Postgres) pruneLoop(ctx context.Context) {
	defer close(p.pruneDone)
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		if _, err := p.prune(ctx); err != nil && ctx.Err() == nil {
			p.opts.Log.Warn("store: forgetting old deliveries", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// prune deletes the deliveries finished (done, ignored or dead) more than
// Forget ago, and the turns of installations with nothing queued; it
// reports how many deliveries.
func (p *Postgres) prune(ctx context.Context) (int64, error) {
	tag, err := p.pool.Exec(ctx, `
DELETE FROM gcloop_deliveries
WHERE finished IS NOT NULL AND finished < now() - $1 * interval '1 microsecond'`, micros(Forget))
	if err != nil {
		return 0, p.wrap("forget old deliveries", err)
	}
	if _, err := p.pool.Exec(ctx, `
DELETE FROM gcloop_turns t WHERE NOT EXISTS (
	SELECT 1 FROM gcloop_deliveries d
	WHERE d.installation = t.installation AND d.state IN ('pending', 'claimed'))`); err != nil {
		return 0, p.wrap("forget idle installations' turns", err)
	}
	return tag.RowsAffected(), nil
}

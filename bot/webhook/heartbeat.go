package webhook

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gcloop/gcloop/bot/store"
)

// heartbeat renews j's lease every third of it until beat closes; when
// the store says the claim is lost, or no renewal succeeded for a whole
// lease, it cancels the work.
func (p *Pool) heartbeat(ctx context.Context, j *job, beat <-chan struct{}, beating chan<- struct{}) {
	defer close(beating)
	// Times are read before the store is asked: a renewal counts from
	// when it was asked for (the store's lease runs from later), and
	// whether the claim ran out is judged as of the beat.
	renewed := p.clock.Now()
	t := p.clock.NewTicker(p.o.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-beat:
			return
		case <-ctx.Done():
			return
		case <-t.C():
		}
		at := p.clock.Now()
		err := p.settle(func(ctx context.Context) error { return p.q.Extend(ctx, j.d.ID, j.worker, p.o.Lease) })
		switch {
		case err == nil:
			renewed = at
		case errors.Is(err, store.ErrLost):
			j.cancel(store.ErrLost)
			return
		default:
			p.log.LogAttrs(ctx, slog.LevelWarn, "renew a claim", slog.String("delivery", j.d.ID), slog.String("error", err.Error()))
			if at.Sub(renewed) >= p.o.Lease {
				// The claim ran out: another worker may have the delivery.
				j.cancel(store.ErrLost)
				return
			}
		}
	}
}

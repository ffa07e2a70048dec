package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gcloop/gcloop/bot/store"
)

// Shutdown stops claiming and waits for the running work until ctx ends;
// then it cancels that work and hands every delivery still unfinished back
// to the queue, to be claimed again by this or another replica. It returns
// an error saying how many it handed back, nil when all work finished.
func (p *Pool) Shutdown(ctx context.Context) error {
	p.stop.Do(func() { close(p.quit) })
	done := make(chan struct{})
	go func() {
		p.workers.Wait()
		p.poller.Wait()
		close(done)
	}()
	select {
	case <-done:
		return p.shutdownErr(ctx)
	case <-ctx.Done():
		select {
		case <-done: // finished as the deadline came: nothing to cancel
			return p.shutdownErr(ctx)
		default:
		}
	}
	p.cancel(errShutdown)
	grace := p.clock.NewTicker(p.o.Grace)
	defer grace.Stop()
	select {
	case <-done:
		return p.shutdownErr(ctx)
	case <-grace.C():
	}
	// Work that ignores its canceled context: hand it back from here; its
	// worker's Finish will be refused as lost.
	p.mu.Lock()
	var stuck []*job
	for _, j := range p.running {
		if !j.settled {
			j.settled = true
			stuck = append(stuck, j)
		}
	}
	p.mu.Unlock()
	for _, j := range stuck {
		if err := p.settle(func(ctx context.Context) error { return p.q.Release(ctx, j.d.ID, j.worker) }); err != nil && !errors.Is(err, store.ErrLost) {
			p.log.LogAttrs(context.Background(), slog.LevelError, "release a delivery", slog.String("delivery", j.d.ID), slog.String("error", err.Error()))
			continue
		}
		p.released.Add(1)
	}
	return p.shutdownErr(ctx)
}

func (p *Pool) shutdownErr(ctx context.Context) error {
	if n := p.released.Load(); n > 0 {
		return fmt.Errorf("webhook: shutdown handed %d unfinished deliveries back to the queue: %w", n, context.Cause(ctx))
	}
	return nil
}

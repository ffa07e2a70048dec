package store

import (
	"context"
	"fmt"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/jackc/pgx/v5"
)

// Subscribe implements Store. The store's one listener fans events out to
// its subscribers; Subscribe waits until it listens, so that no event
// appended after Subscribe returns is missed, and the subscriber skips the
// events that were in the log before it subscribed, which the listener may
// not have published yet.
func (p *Postgres) Subscribe(ctx context.Context) (<-chan event.Event, error) {
	if err := p.check(ctx); err != nil {
		return nil, err
	}
	select {
	case <-p.ready:
	case <-p.listenDone:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var after int64
	if err := p.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM gcloop_events`).Scan(&after); err != nil {
		return nil, fmt.Errorf("subscribe: newest event: %w", err)
	}
	return p.hub.subscribe(ctx, after)
}

// Backoff of the listener's reconnection.
const (
	backoffMin = 50 * time.Millisecond
	backoffMax = 5 * time.Second
)

// listenLoop keeps a connection listening for appends until ctx ends,
// reconnecting with backoff; after a reconnection the events appended
// meanwhile are read with Since, so none is lost.
func (p *Postgres) listenLoop(ctx context.Context) {
	defer close(p.listenDone)
	var last int64 = -1 // the last event published; -1 before the first connection
	backoff := backoffMin
	for {
		listening, err := p.listenOnce(ctx, &last)
		if ctx.Err() != nil {
			return
		}
		if listening {
			backoff = backoffMin
		}
		p.opts.Log.Warn("store: event listener reconnecting", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, backoffMax)
	}
}

// listenOnce connects, listens, publishes what it missed and then every
// append it is told of, until the connection fails; it reports whether it
// got as far as listening.
func (p *Postgres) listenOnce(ctx context.Context, last *int64) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, p.listen)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	if *last < 0 {
		// Subscribers get what is appended from now on.
		if err := conn.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM gcloop_events`).Scan(last); err != nil {
			return false, fmt.Errorf("newest event: %w", err)
		}
	}
	p.readyOnce.Do(func() { close(p.ready) })
	for {
		if err := p.catchUp(ctx, conn, last); err != nil {
			return true, err
		}
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, fmt.Errorf("wait for events: %w", err)
		}
	}
}

// catchUpBatch is how many events the listener reads at a time.
const catchUpBatch = 1000

// catchUp publishes the events after *last. Any notification calls for it:
// the payloads are not needed, since ids become visible in order.
func (p *Postgres) catchUp(ctx context.Context, conn *pgx.Conn, last *int64) error {
	for {
		es, err := since(ctx, conn, *last, catchUpBatch)
		if err != nil {
			return fmt.Errorf("events after %d: %w", *last, err)
		}
		for _, e := range es {
			p.hub.publish(e)
			*last = e.ID
		}
		if len(es) < catchUpBatch {
			return nil
		}
	}
}

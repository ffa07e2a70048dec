package store

import (
	"context"
	"sync"
)

// Group commit. Callers hand their request to a queue, and a few flushers
// each take what is queued at the moment — one request when the bot is
// quiet, hundreds under a burst — and carry it out in one statement in one
// transaction. A burst of webhooks thus costs a handful of commits (and
// WAL flushes, and round trips) instead of one per request, and no caller
// waits for a timer.

// groupReq is one request waiting for its flush.
type groupReq[In, Out any] struct {
	ctx  context.Context
	in   In
	done chan groupResult[Out] // buffered: the flusher never blocks on it
}

// answer hands the request its result.
func (r groupReq[In, Out]) answer(out Out, err error) { r.done <- groupResult[Out]{out, err} }

type groupResult[Out any] struct {
	out Out
	err error
}

// group is a group committer: batches of at most size requests, flushed
// by flush, which answers every request of the batch.
type group[In, Out any] struct {
	queue    chan groupReq[In, Out]
	size     int
	flush    func(ctx context.Context, batch []groupReq[In, Out])
	flushers sync.WaitGroup
	done     chan struct{} // closed when the flushers returned
}

// newGroup starts flushers flushers that run until ctx ends; queue
// requests may wait for them.
func newGroup[In, Out any](ctx context.Context, flushers, size, queue int, flush func(context.Context, []groupReq[In, Out])) *group[In, Out] {
	g := &group[In, Out]{queue: make(chan groupReq[In, Out], queue), size: size, flush: flush, done: make(chan struct{})}
	for range flushers {
		g.flushers.Add(1)
		go g.loop(ctx)
	}
	go func() { g.flushers.Wait(); close(g.done) }()
	return g
}

// do queues in and waits for its flush; ErrClosed once the flushers have
// stopped.
func (g *group[In, Out]) do(ctx context.Context, in In) (Out, error) {
	var zero Out
	r := groupReq[In, Out]{ctx: ctx, in: in, done: make(chan groupResult[Out], 1)}
	select {
	case g.queue <- r:
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-g.done:
		return zero, ErrClosed
	}
	select {
	case res := <-r.done:
		return res.out, res.err
	case <-g.done:
		select {
		case res := <-r.done:
			return res.out, res.err
		default:
			return zero, ErrClosed
		}
	case <-ctx.Done():
		// The flush may still carry it out: a caller that retries must
		// find it done (an Add of it is then a duplicate).
		return zero, ctx.Err()
	}
}

// loop flushes queued requests until ctx ends.
func (g *group[In, Out]) loop(ctx context.Context) {
	defer g.flushers.Done()
	batch := make([]groupReq[In, Out], 0, g.size)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-g.queue:
			batch = append(batch[:0], r)
		}
	drain:
		for len(batch) < g.size {
			select {
			case r := <-g.queue:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		g.flush(ctx, batch)
		clear(batch)
	}
}

// close waits for the flushers to stop (their context ended) and answers
// the requests none took with ErrClosed.
func (g *group[In, Out]) close() {
	<-g.done
	var zero Out
	for {
		select {
		case r := <-g.queue:
			r.answer(zero, ErrClosed)
		default:
			return
		}
	}
}

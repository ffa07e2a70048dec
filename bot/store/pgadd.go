package store

import (
	"context"
	"fmt"
	"time"
)

// Group commit of Add: every Add hands its delivery to a queue, and a few
// flushers each take what is queued at the moment — one delivery when the
// bot is quiet, hundreds under a burst — and insert it with one statement
// in one transaction. A burst of webhooks thus costs a handful of commits
// (and WAL flushes) instead of one per delivery, and no Add waits for a
// timer.
const (
	// addFlushers is how many INSERTs may be in flight at once; the rest
	// of the pool's connections stay free for claims and the log.
	addFlushers = 2
	// addBatch is the most deliveries one INSERT carries.
	addBatch = 512
	// addQueue is how many Adds may wait for a flusher.
	addQueue = 4 * addBatch
)

// addReq is one Add waiting for its flush.
type addReq struct {
	ctx  context.Context
	d    Delivery
	done chan addResult // buffered: the flusher never blocks on it
}

type addResult struct {
	added bool
	err   error
}

// addSQL inserts a batch of deliveries, skipping those whose id or digest
// is known, and returns the ids it inserted.
const addSQL = `
INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received, digest)
SELECT id, event, payload, key, installation, coalesce(received, now()), nullif(digest, '')
FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[])
	AS t(id, event, payload, key, installation, received, digest)
ON CONFLICT DO NOTHING
RETURNING id`

// Add implements Store. Adds made at once share an INSERT (group commit).
func (p *Postgres) Add(ctx context.Context, d Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("store: add: delivery without an id (event %q)", d.Event)
	}
	if err := p.check(ctx); err != nil {
		return false, err
	}
	r := addReq{ctx: ctx, d: d, done: make(chan addResult, 1)}
	select {
	case p.adds <- r:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-p.flushDone:
		return false, ErrClosed
	}
	select {
	case res := <-r.done:
		return res.added, res.err
	case <-p.flushDone:
		select {
		case res := <-r.done:
			return res.added, res.err
		default:
			return false, ErrClosed
		}
	case <-ctx.Done():
		// The flush may still insert it: a later Add of it is then a
		// duplicate, so a caller that retries loses nothing.
		return false, ctx.Err()
	}
}

// flushLoop inserts queued Adds until ctx ends, then answers those left
// with ErrClosed.
func (p *Postgres) flushLoop(ctx context.Context) {
	defer p.flushers.Done()
	batch := make([]addReq, 0, addBatch)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-p.adds:
			batch = append(batch[:0], r)
		}
	drain:
		for len(batch) < addBatch {
			select {
			case r := <-p.adds:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		p.flush(ctx, batch)
		clear(batch)
	}
}

// flush inserts batch in one statement and answers each Add. Of the Adds
// of one id or digest in the batch only the first may insert it; the
// others are duplicates.
func (p *Postgres) flush(ctx context.Context, batch []addReq) {
	n := len(batch)
	var (
		ids, events, keys, digests = make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
		payloads                   = make([][]byte, 0, n)
		insts                      = make([]int64, 0, n)
		received                   = make([]*time.Time, 0, n)
		firstID, firstDigest       = make(map[string]bool, n), make(map[string]bool, n)
		live                       = make([]bool, n) // in the statement
	)
	for i, r := range batch {
		d := r.d
		if r.ctx.Err() != nil || firstID[d.ID] || (d.Digest != "" && firstDigest[d.Digest]) {
			continue
		}
		firstID[d.ID] = true
		if d.Digest != "" {
			firstDigest[d.Digest] = true
		}
		live[i] = true
		ids, events, keys, digests = append(ids, d.ID), append(events, d.Event), append(keys, d.Key), append(digests, d.Digest)
		payloads, insts = append(payloads, d.Payload), append(insts, d.Installation)
		if d.Received.IsZero() {
			received = append(received, nil)
		} else {
			t := d.Received
			received = append(received, &t)
		}
	}
	inserted := make(map[string]bool, len(ids))
	var err error
	if len(ids) > 0 {
		// Not the first Add's context: one caller giving up must not
		// fail the others. The pool's own timeouts bound the call.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), addTimeout)
		rows, qerr := p.pool.Query(fctx, addSQL, ids, events, payloads, keys, insts, received, digests)
		if qerr == nil {
			for rows.Next() {
				var id string
				if qerr = rows.Scan(&id); qerr != nil {
					break
				}
				inserted[id] = true
			}
			rows.Close()
			if qerr == nil {
				qerr = rows.Err()
			}
		}
		cancel()
		err = qerr
	}
	for i, r := range batch {
		switch {
		case !live[i] && r.ctx.Err() != nil:
			r.done <- addResult{err: r.ctx.Err()}
		case !live[i]:
			r.done <- addResult{}
		case err != nil:
			r.done <- addResult{err: p.wrap("add "+r.d.ID, err)}
		default:
			r.done <- addResult{added: inserted[r.d.ID]}
		}
	}
}

// addTimeout bounds one group INSERT.
const addTimeout = 30 * time.Second

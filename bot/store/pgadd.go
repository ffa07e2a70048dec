package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Add is group-committed (pggroup.go).
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
type addReq = groupReq[Delivery, bool]

// addSQL inserts a batch of deliveries, skipping those whose id or digest
// is known, and returns the ids it inserted.
const addSQL = `
INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received, digest, head)
SELECT id, event, payload, key, installation, coalesce(received, now()), nullif(digest, ''), key = ''
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
	return p.adds.do(ctx, d)
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
		d := r.in
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
		err = p.insert(fctx, ids, events, payloads, keys, insts, received, digests, inserted)
		cancel()
	}
	for i, r := range batch {
		switch {
		case !live[i] && r.ctx.Err() != nil:
			r.answer(false, r.ctx.Err())
		case !live[i]:
			r.answer(false, nil)
		case err != nil:
			r.answer(false, p.wrap("add "+r.in.ID, err))
		default:
			r.answer(inserted[r.in.ID], nil)
		}
	}
}

// insert inserts a batch in one transaction and one round trip: the rows
// (not heads of their keys, unless they have none), then, under the keys'
// locks, the heads of keys without one (pgheads.go). It records the ids
// inserted.
func (p *Postgres) insert(ctx context.Context, ids, events []string, payloads [][]byte, keys []string, insts []int64, received []*time.Time, digests []string, inserted map[string]bool) error {
	locked := distinctKeys(keys)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(addSQL, ids, events, payloads, keys, insts, received, digests).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			inserted[id] = true
		}
		return rows.Err()
	})
	if len(locked) > 0 {
		b.Queue(lockKeysSQL, locked)
		b.Queue(promoteKeysSQL, locked)
	}
	b.Queue("COMMIT")
	return p.inTx(ctx, b)
}

// addTimeout bounds one group INSERT.
const addTimeout = 30 * time.Second

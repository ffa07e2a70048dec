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
// is known, and appends the arrival events of those it inserted, in the
// batch's order, under the event log's lock (as appendSQL does), with one
// notification; it returns the ids it inserted. A delivery is its key's
// head when it is the batch's first of the key and the key has no open
// head (pgheads.go): the keys' locks, taken before, make the known ids
// and digests, and the heads, final for the batch's keys.
var addSQL = `
WITH input AS (
	SELECT t.*, row_number() OVER (PARTITION BY t.key ORDER BY t.ord) AS nth
	FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[])
		WITH ORDINALITY AS t(id, event, payload, key, installation, received, digest, ord)
	WHERE NOT EXISTS (SELECT 1 FROM gcloop_deliveries x WHERE x.id = t.id)
		AND (t.digest = '' OR NOT EXISTS (SELECT 1 FROM gcloop_deliveries x WHERE x.digest = t.digest))),
added AS (
	INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received, digest, head)
	SELECT id, event, payload, key, installation, coalesce(received, now()), nullif(digest, ''),
		key = '' OR (nth = 1 AND ` + noOpenHead("input.key") + `)
	FROM input ORDER BY ord
	ON CONFLICT DO NOTHING
	RETURNING id),
arrivals AS (
	SELECT e.type, e.repo, e.pr, e.loop, e.data, e.ord
	FROM unnest($1::text[], $8::text[], $9::text[], $10::int[], $11::text[], $12::bytea[])
		WITH ORDINALITY AS e(id, type, repo, pr, loop, data, ord)
	JOIN added USING (id)
	WHERE e.type <> ''),
serial AS (SELECT pg_advisory_xact_lock($13) WHERE EXISTS (SELECT 1 FROM arrivals)),
logged AS (
	INSERT INTO gcloop_events (time, type, repo, pr, loop, data)
	SELECT clock_timestamp(), a.type, a.repo, a.pr, a.loop, a.data
	FROM arrivals a CROSS JOIN serial
	ORDER BY a.ord
	RETURNING id),
notified AS (
	SELECT pg_notify('` + notifyChannel + `', max(id)::text) FROM logged HAVING count(*) > 0)
SELECT id, (SELECT count(*) FROM notified) FROM added`

// addColumns are a batch of Adds as addSQL's arrays.
type addColumns struct {
	ids, events, keys, digests []string
	payloads                   [][]byte
	insts                      []int64
	received                   []*time.Time
	types, repos, loops        []string // of the arrival events
	prs                        []int32
	data                       [][]byte
}

func (c *addColumns) add(d Delivery) {
	c.ids, c.events, c.keys, c.digests = append(c.ids, d.ID), append(c.events, d.Event), append(c.keys, d.Key), append(c.digests, d.Digest)
	c.payloads, c.insts = append(c.payloads, d.Payload), append(c.insts, d.Installation)
	if d.Received.IsZero() {
		c.received = append(c.received, nil)
	} else {
		t := d.Received
		c.received = append(c.received, &t)
	}
	a := d.Arrival
	if len(a.Data) == 0 {
		a.Data = nil
	}
	c.types, c.repos, c.loops = append(c.types, a.Type), append(c.repos, a.Repo), append(c.loops, a.Loop)
	c.prs, c.data = append(c.prs, int32(a.PR)), append(c.data, a.Data)
}

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
	var (
		cols                 addColumns
		firstID, firstDigest = make(map[string]bool, len(batch)), make(map[string]bool, len(batch))
		live                 = make([]bool, len(batch)) // in the statement
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
		cols.add(d)
	}
	inserted := make(map[string]bool, len(cols.ids))
	var err error
	if len(cols.ids) > 0 {
		// Not the first Add's context: one caller giving up must not
		// fail the others. The pool's own timeouts bound the call.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), addTimeout)
		err = p.insert(fctx, &cols, inserted)
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

// insert inserts a batch in one transaction and one round trip: under
// the keys' locks, the rows and their arrival events. The keys are locked
// first so that the event log's lock, which every Add and Append takes,
// is never held while waiting for one. It records the ids inserted.
func (p *Postgres) insert(ctx context.Context, c *addColumns, inserted map[string]bool) error {
	locked := distinctKeys(c.keys)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	if len(locked) > 0 {
		b.Queue(lockKeysSQL, locked)
	}
	b.Queue(addSQL, c.ids, c.events, c.payloads, c.keys, c.insts, c.received, c.digests,
		c.types, c.repos, c.prs, c.loops, c.data, lockEvents).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			if err := rows.Scan(&id, nil); err != nil {
				return err
			}
			inserted[id] = true
		}
		return rows.Err()
	})
	b.Queue("COMMIT")
	return p.inTx(ctx, b)
}

// addTimeout bounds one group INSERT.
const addTimeout = 30 * time.Second

package store

import (
	"context"
	"fmt"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/jackc/pgx/v5"
)

// notifyChannel is the channel of LISTEN/NOTIFY on which an append is
// announced, its id the payload.
const notifyChannel = "gcloop_events"

// Append is group-committed (pggroup.go): one flusher, since appends are
// serialized by the log's lock anyway, appends what is queued in one
// statement and sends one notification for it.
const (
	// appendBatch is the most events one INSERT carries.
	appendBatch = 256
	// appendQueue is how many Appends may wait for the flusher.
	appendQueue = 4 * appendBatch
)

// appendSQL appends a batch of events in one statement — so one round
// trip and one transaction — under a transaction-level advisory lock that
// is held until the commit: ids are drawn, in the batch's order, and
// become visible, one batch after the other, so a reader never sees an id
// before a smaller one commits. One notification, of the last id, is
// sent at the commit: a listener reads every event after the last it
// saw, so it needs no more.
const appendSQL = `
WITH serial AS (SELECT pg_advisory_xact_lock($1)),
added AS (
	INSERT INTO gcloop_events (time, type, repo, pr, loop, data)
	SELECT clock_timestamp(), e.type, e.repo, e.pr, e.loop, e.data
	FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bytea[])
		WITH ORDINALITY AS e(type, repo, pr, loop, data, ord)
	CROSS JOIN serial
	ORDER BY e.ord
	RETURNING id, time),
notified AS (SELECT pg_notify('` + notifyChannel + `', max(id)::text) FROM added)
SELECT id, time, (SELECT count(*) FROM notified) FROM added ORDER BY id`

// Append implements Store. Appends made at once share an INSERT.
func (p *Postgres) Append(ctx context.Context, e event.Event) (event.Event, error) {
	if err := p.check(ctx); err != nil {
		return event.Event{}, err
	}
	if len(e.Data) == 0 {
		e.Data = nil
	}
	return p.appends.do(ctx, e)
}

// appendReq is one Append waiting for its flush.
type appendReq = groupReq[event.Event, event.Event]

// flushAppends appends batch in one statement and answers each Append:
// the ids come back in order, the batch's order.
func (p *Postgres) flushAppends(ctx context.Context, batch []appendReq) {
	n := len(batch)
	var (
		types, repos, loops = make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
		prs                 = make([]int32, 0, n)
		data                = make([][]byte, 0, n)
		live                = make([]appendReq, 0, n)
	)
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.answer(event.Event{}, err)
			continue
		}
		e := r.in
		types, repos, loops = append(types, e.Type), append(repos, e.Repo), append(loops, e.Loop)
		prs, data = append(prs, int32(e.PR)), append(data, e.Data)
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	// Not the first Append's context: one caller giving up must not fail
	// the others.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), addTimeout)
	defer cancel()
	rows, err := p.pool.Query(fctx, appendSQL, lockEvents, types, repos, prs, loops, data)
	i := 0
	if err == nil {
		for rows.Next() && i < len(live) {
			e := live[i].in
			if err = rows.Scan(&e.ID, &e.Time, nil); err != nil {
				break
			}
			e.Time = e.Time.UTC()
			live[i].in = e
			i++
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err == nil && i < len(live) {
			err = fmt.Errorf("%d events appended of %d", i, len(live))
		}
	}
	if err != nil {
		for _, r := range live {
			r.answer(event.Event{}, p.wrap("append "+r.in.Type+" event", err))
		}
		return
	}
	first, last := live[0].in.ID, live[len(live)-1].in.ID
	var pruneErr error
	if step := int64(max(1, p.opts.Retained/4)); last/step > (first-1)/step {
		// Now and then, the events beyond the newest Retained go.
		if _, err := p.pool.Exec(fctx, `DELETE FROM gcloop_events WHERE id <= $1`, last-int64(p.opts.Retained)); err != nil {
			pruneErr = p.wrap("drop old events", err)
		}
	}
	for _, r := range live {
		r.answer(r.in, pruneErr)
	}
}

// querier is what Since reads through: the pool, or the listener's
// connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Since implements Store.
func (p *Postgres) Since(ctx context.Context, after int64, limit int) ([]event.Event, error) {
	if err := p.check(ctx); err != nil {
		return nil, err
	}
	es, err := since(ctx, p.pool, after, limit)
	return es, p.wrap("events since", err)
}

func since(ctx context.Context, q querier, after int64, limit int) ([]event.Event, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `
SELECT id, time, type, repo, pr, loop, data FROM gcloop_events
WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var (
			e    event.Event
			data []byte
		)
		if err := rows.Scan(&e.ID, &e.Time, &e.Type, &e.Repo, &e.PR, &e.Loop, &data); err != nil {
			return nil, fmt.Errorf("event after %d: %w", after, err)
		}
		e.Time = e.Time.UTC()
		if len(data) > 0 {
			e.Data = data
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

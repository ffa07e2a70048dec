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

// appendSQL appends an event in one statement — so one round trip and one
// transaction — under a transaction-level advisory lock that is held until
// the commit: ids are drawn, and become visible, one append after the
// other, so a reader never sees an id before a smaller one commits. The
// notification is sent at the commit.
const appendSQL = `
WITH serial AS (SELECT pg_advisory_xact_lock($1)),
added AS (
	INSERT INTO gcloop_events (time, type, repo, pr, loop, data)
	SELECT clock_timestamp(), $2, $3, $4, $5, $6 FROM serial
	RETURNING id, time)
SELECT id, time, pg_notify('` + notifyChannel + `', id::text) FROM added`

// Append implements Store.
func (p *Postgres) Append(ctx context.Context, e event.Event) (event.Event, error) {
	if err := p.check(ctx); err != nil {
		return event.Event{}, err
	}
	if len(e.Data) == 0 {
		e.Data = nil
	}
	var data []byte = e.Data
	if err := p.pool.QueryRow(ctx, appendSQL, lockEvents, e.Type, e.Repo, e.PR, e.Loop, data).Scan(&e.ID, &e.Time, nil); err != nil {
		return event.Event{}, p.wrap("append "+e.Type+" event", err)
	}
	e.Time = e.Time.UTC()
	if step := int64(max(1, p.opts.Retained/4)); e.ID%step == 0 {
		// Now and then, the events beyond the newest Retained go.
		if _, err := p.pool.Exec(ctx, `DELETE FROM gcloop_events WHERE id <= $1`, e.ID-int64(p.opts.Retained)); err != nil {
			return e, p.wrap("drop old events", err)
		}
	}
	return e, nil
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

package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Rekey implements Store. Both keys' advisory locks are taken first, so
// a claimer deciding on the new key sees the delivery arrive before it or
// not at all; then the delivery joins the new key, as a head if no open
// delivery there is older, and leaves its old one, whose next delivery
// becomes the head (pgheads.go).
func (p *Postgres) Rekey(ctx context.Context, id, worker, key string) error {
	if err := p.check(ctx); err != nil {
		return err
	}
	var n int64
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var (
			old string
			seq int64
		)
		err := tx.QueryRow(ctx, `SELECT key, seq FROM gcloop_deliveries WHERE id = $1 AND worker = $2 AND state = 'claimed'`, id, worker).Scan(&old, &seq)
		if errNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		keys := distinctKeys([]string{old, key})
		b := &pgx.Batch{}
		if len(keys) > 0 {
			b.Queue(lockKeysSQL, keys)
		}
		b.Queue(`
UPDATE gcloop_deliveries d SET state = 'pending', key = $3, attempts = attempts - 1,
	worker = NULL, lease_until = NULL,
	head = $3 = '' OR NOT EXISTS (SELECT 1 FROM gcloop_deliveries h
		WHERE h.key = $3 AND h.head AND h.state IN ('pending', 'claimed') AND h.seq < d.seq)
WHERE id = $1 AND worker = $2 AND state = 'claimed' AND lease_until > now()`, id, worker, key).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
		if old != "" && old != key {
			b.Queue(promoteNextSQL, []string{old}, []int64{seq})
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return p.wrap("rekey "+id, err)
	}
	if n == 0 {
		return ErrLost
	}
	return nil
}

// Dead implements Store.
func (p *Postgres) Dead(ctx context.Context, limit int) ([]Delivery, int, error) {
	if err := p.check(ctx); err != nil {
		return nil, 0, err
	}
	var total int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM gcloop_deliveries WHERE state = 'dead'`).Scan(&total); err != nil {
		return nil, 0, p.wrap("count dead deliveries", err)
	}
	if limit <= 0 {
		return []Delivery{}, total, nil
	}
	rows, err := p.pool.Query(ctx, `
SELECT id, event, key, installation, received, attempts, coalesce(digest, ''),
	coalesce(first_claimed, received), coalesce(error, ''), finished
FROM gcloop_deliveries WHERE state = 'dead'
ORDER BY finished DESC, seq DESC LIMIT $1`, limit)
	if err != nil {
		return nil, 0, p.wrap("list dead deliveries", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := row.Scan(&d.ID, &d.Event, &d.Key, &d.Installation, &d.Received, &d.Attempts, &d.Digest, &d.First, &d.Error, &d.Finished)
		d.Received, d.First, d.Finished = d.Received.UTC(), d.First.UTC(), d.Finished.UTC()
		return d, err
	})
	if err != nil {
		return nil, 0, p.wrap("list dead deliveries", err)
	}
	return out, max(total, len(out)), nil
}

// Redeliver implements Store. The delivery goes to the back of the
// queue, as a new arrival.
func (p *Postgres) Redeliver(ctx context.Context, id string) error {
	if err := p.check(ctx); err != nil {
		return err
	}
	var (
		n       int
		state   *string
		payload bool
	)
	// Under its key's lock it goes back as its key's head only when no
	// other delivery of the key is open.
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(lockRowKeySQL, id)
	b.Queue(`
WITH u AS (
	UPDATE gcloop_deliveries SET state = 'pending', seq = DEFAULT, attempts = 0, lease_outs = 0,
		first_claimed = NULL, not_before = NULL, error = NULL, finished = NULL,
		head = key = '' OR `+noOpenHead("gcloop_deliveries.key")+`
	WHERE id = $1 AND state = 'dead' AND payload IS NOT NULL RETURNING 1)
SELECT (SELECT count(*) FROM u), d.state, d.payload IS NOT NULL
FROM (SELECT 1) one LEFT JOIN gcloop_deliveries d ON d.id = $1`, id).QueryRow(func(row pgx.Row) error {
		return row.Scan(&n, &state, &payload)
	})
	b.Queue("COMMIT")
	err := p.inTx(ctx, b)
	switch {
	case err != nil:
		return p.wrap("redeliver "+id, err)
	case n == 1:
		return nil
	case state == nil:
		return fmt.Errorf("store: redeliver %s: %w", id, ErrUnknown)
	case *state == Dead && !payload:
		return fmt.Errorf("store: redeliver %s: %w: ask GitHub to redeliver it (the App's advanced settings)", id, ErrNoPayload)
	}
	return fmt.Errorf("store: redeliver %s: %w (it is %s)", id, ErrNotDead, *state)
}

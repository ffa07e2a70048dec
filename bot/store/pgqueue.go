package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Add implements Store: one statement, so one round trip.
func (p *Postgres) Add(ctx context.Context, d Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("store: add: delivery without an id (event %q)", d.Event)
	}
	if err := p.check(ctx); err != nil {
		return false, err
	}
	var received *time.Time
	if !d.Received.IsZero() {
		received = &d.Received
	}
	tag, err := p.pool.Exec(ctx, `
INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received)
VALUES ($1, $2, $3, $4, $5, coalesce($6, now()))
ON CONFLICT (id) DO NOTHING`,
		d.ID, d.Event, d.Payload, d.Key, d.Installation, received)
	if err != nil {
		return false, p.wrap("add "+d.ID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// micros is d in whole microseconds, PostgreSQL's resolution.
func micros(d time.Duration) int64 { return d.Microseconds() }

// Claim implements Store. In one transaction: the claims whose lease ran
// out are ended (pending again, or failed after MaxAttempts); then the
// oldest pending delivery is taken that no other claimer has locked and
// whose key no claim holds and no older pending delivery waits on — the
// key checked again under the key's advisory lock, so two claimers racing
// for one key cannot both win.
func (p *Postgres) Claim(ctx context.Context, worker string, lease time.Duration) (Delivery, bool, error) {
	if err := p.check(ctx); err != nil {
		return Delivery{}, false, err
	}
	var (
		d  Delivery
		ok bool
	)
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
UPDATE gcloop_deliveries SET
	state = CASE WHEN attempts >= $1 THEN 'failed' ELSE 'pending' END,
	finished = CASE WHEN attempts >= $1 THEN now() END,
	payload = CASE WHEN attempts >= $1 THEN NULL ELSE payload END,
	worker = NULL, lease_until = NULL
WHERE id IN (
	SELECT id FROM gcloop_deliveries
	WHERE state = 'claimed' AND lease_until <= now()
	ORDER BY id FOR UPDATE SKIP LOCKED)`, MaxAttempts); err != nil {
			return fmt.Errorf("end the leases that ran out: %w", err)
		}
		skip := []string{}
		for {
			var (
				id, key string
				seq     int64
			)
			err := tx.QueryRow(ctx, `
SELECT d.id, d.key, d.seq FROM gcloop_deliveries d
WHERE d.state = 'pending' AND d.key <> ALL($1)
	AND (d.key = '' OR NOT EXISTS (
		SELECT 1 FROM gcloop_deliveries o
		WHERE o.key = d.key AND o.state IN ('pending', 'claimed')
			AND (o.state = 'claimed' OR o.seq < d.seq)))
ORDER BY d.seq LIMIT 1
FOR UPDATE OF d SKIP LOCKED`, skip).Scan(&id, &key, &seq)
			if errNoRows(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("find a pending delivery: %w", err)
			}
			if key != "" {
				// The lock first, the check in a statement of its own:
				// its snapshot then sees every claim of the key
				// committed before the lock was ours.
				if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, $2))`, key, keySeed); err != nil {
					return fmt.Errorf("lock key %s: %w", key, err)
				}
				var held bool
				if err := tx.QueryRow(ctx, `
SELECT EXISTS (
	SELECT 1 FROM gcloop_deliveries o
	WHERE o.key = $1 AND o.id <> $2 AND o.state IN ('pending', 'claimed')
		AND (o.state = 'claimed' OR o.seq < $3))`, key, id, seq).Scan(&held); err != nil {
					return fmt.Errorf("check key %s: %w", key, err)
				}
				if held {
					skip = append(skip, key)
					continue
				}
			}
			err = tx.QueryRow(ctx, `
UPDATE gcloop_deliveries SET
	state = 'claimed', worker = $2, attempts = attempts + 1,
	lease_until = now() + $3 * interval '1 microsecond'
WHERE id = $1
RETURNING id, event, payload, key, installation, received, attempts`,
				id, worker, micros(lease)).Scan(&d.ID, &d.Event, &d.Payload, &d.Key, &d.Installation, &d.Received, &d.Attempts)
			if err != nil {
				return fmt.Errorf("claim %s: %w", id, err)
			}
			if len(d.Payload) == 0 {
				d.Payload = nil
			}
			d.Received = d.Received.UTC()
			ok = true
			return nil
		}
	})
	if err != nil {
		return Delivery{}, false, p.wrap("claim", err)
	}
	return d, ok, nil
}

// claimed runs an update of worker's claim of id, in force by the
// database's clock; no row is ErrLost.
func (p *Postgres) claimed(ctx context.Context, what, id, worker, set string, args ...any) error {
	if err := p.check(ctx); err != nil {
		return err
	}
	tag, err := p.pool.Exec(ctx, `
UPDATE gcloop_deliveries SET `+set+`
WHERE id = $1 AND worker = $2 AND state = 'claimed' AND lease_until > now()`,
		append([]any{id, worker}, args...)...)
	if err != nil {
		return p.wrap(what+" "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrLost
	}
	return nil
}

// Extend implements Store.
func (p *Postgres) Extend(ctx context.Context, id, worker string, lease time.Duration) error {
	return p.claimed(ctx, "extend", id, worker,
		`lease_until = now() + $3 * interval '1 microsecond'`, micros(lease))
}

// Finish implements Store. A finished delivery keeps its id, for
// deduplication, but not its payload.
func (p *Postgres) Finish(ctx context.Context, id, worker, outcome string) error {
	if err := checkOutcome(id, outcome); err != nil {
		return err
	}
	return p.claimed(ctx, "finish", id, worker,
		`state = $3, finished = now(), payload = NULL, worker = NULL, lease_until = NULL`, outcome)
}

// Release implements Store.
func (p *Postgres) Release(ctx context.Context, id, worker string) error {
	return p.claimed(ctx, "release", id, worker,
		`state = 'pending', attempts = attempts - 1, worker = NULL, lease_until = NULL`)
}

// Pending implements Store. A claim whose lease ran out after its last
// attempt is failed, so not counted, even before a Claim ends it.
func (p *Postgres) Pending(ctx context.Context) (int, error) {
	if err := p.check(ctx); err != nil {
		return 0, err
	}
	var n int
	err := p.pool.QueryRow(ctx, `
SELECT count(*) FROM gcloop_deliveries
WHERE state = 'pending'
	OR (state = 'claimed' AND (lease_until > now() OR attempts < $1))`, MaxAttempts).Scan(&n)
	return n, p.wrap("pending", err)
}

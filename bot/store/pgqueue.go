package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// micros is d in whole microseconds, PostgreSQL's resolution.
func micros(d time.Duration) int64 { return d.Microseconds() }

// keyFree holds for delivery d, a head, when no other claim holds its key
// and no open head of its key is older — so that, by the heads' rule
// (pgheads.go), it is the oldest open delivery of its key: two probes of
// small indexes, of the claims and of the key's open heads.
var keyFree = `(d.key = '' OR (d.head
	AND NOT EXISTS (SELECT 1 FROM gcloop_deliveries c
		WHERE c.state = 'claimed' AND c.key = d.key AND c.id <> d.id)
	AND NOT EXISTS (SELECT 1 FROM gcloop_deliveries h
		WHERE h.key = d.key AND h.head AND h.state IN ('pending', 'claimed') AND h.seq < d.seq)))`

// The statements of a claim.
var (
	// expireSQL ends the claims whose lease ran out: pending again, or
	// dead once MaxAttempts ($1) leases of it ran out (attempts that ended
	// in a retry do not count: their worker lived). Rows another claimer
	// is ending are skipped rather than waited for, so claimers never
	// deadlock here. It returns the keys of the buried ones, whose next
	// deliveries become heads.
	expireSQL = `
UPDATE gcloop_deliveries SET
	lease_outs = lease_outs + 1,
	state = CASE WHEN lease_outs + 1 >= $1 THEN 'dead' ELSE 'pending' END,
	finished = CASE WHEN lease_outs + 1 >= $1 THEN now() END,
	error = CASE WHEN lease_outs + 1 >= $1 THEN 'its lease ran out ' || (lease_outs + 1) || ' times (on attempt ' || attempts || '): a delivery its workers die on' ELSE error END,
	worker = NULL, lease_until = NULL
WHERE id IN (
	SELECT id FROM gcloop_deliveries
	WHERE state = 'claimed' AND lease_until <= now()
	ORDER BY id FOR UPDATE SKIP LOCKED)
RETURNING key, seq, state = 'dead'`

	// candidateSQL locks the oldest claimable pending delivery of the
	// installation whose turn it is: a head of its key (pgheads.go) that
	// no other claimer has locked, that is due, whose key no claim holds
	// and whose key is not among $1. Installations with pending heads are
	// found by skipping along the ready index (one probe each) and take
	// turns by when they were last served; the first of them with a
	// claimable delivery wins, so the rows of the others are not locked.
	candidateSQL = `
WITH RECURSIVE inst(i) AS (
	(SELECT installation FROM gcloop_deliveries WHERE state = 'pending' AND head ORDER BY installation LIMIT 1)
	UNION ALL
	SELECT (SELECT installation FROM gcloop_deliveries
		WHERE state = 'pending' AND head AND installation > inst.i ORDER BY installation LIMIT 1)
	FROM inst WHERE inst.i IS NOT NULL
)
SELECT c.id, c.key, c.installation FROM (
	SELECT inst.i FROM inst LEFT JOIN gcloop_turns t ON t.installation = inst.i
	WHERE inst.i IS NOT NULL
	ORDER BY t.served NULLS FIRST, inst.i
) o CROSS JOIN LATERAL (
	SELECT d.id, d.key, d.installation FROM gcloop_deliveries d
	WHERE d.installation = o.i AND d.state = 'pending' AND d.head
		AND (d.not_before IS NULL OR d.not_before <= now())
		AND d.key <> ALL($1)
		AND ` + keyFree + `
	ORDER BY d.seq LIMIT 1
	FOR UPDATE OF d SKIP LOCKED
) c
LIMIT 1`

	// turnSQL records that installation $1 was served now.
	turnSQL = `
INSERT INTO gcloop_turns (installation, served) VALUES ($1, nextval('gcloop_turn_seq'))
ON CONFLICT (installation) DO UPDATE SET served = excluded.served`

	// takeSQL claims delivery $1 for worker $2 for $3 microseconds —
	// unless, seen after the key's lock was taken, another claim holds
	// its key or an older delivery of its key is pending.
	takeSQL = `
UPDATE gcloop_deliveries d SET
	state = 'claimed', worker = $2, attempts = attempts + 1,
	lease_until = now() + $3 * interval '1 microsecond',
	first_claimed = coalesce(first_claimed, now()), not_before = NULL
WHERE d.id = $1 AND ` + keyFree + `
RETURNING id, event, payload, key, installation, received, attempts,
	coalesce(digest, ''), first_claimed, coalesce(error, '')`
)

// Claim implements Store. One transaction in two round trips: the claims
// whose lease ran out are ended and a candidate is locked (FOR UPDATE SKIP
// LOCKED); then its key's advisory lock is taken and, in a statement of
// its own whose snapshot sees every claim of the key committed before the
// lock was ours, the key is checked again as the candidate is claimed —
// so two claimers racing for one key cannot both win. A candidate lost
// that way is passed over for the next.
func (p *Postgres) Claim(ctx context.Context, worker string, lease time.Duration) (Delivery, bool, error) {
	if err := p.check(ctx); err != nil {
		return Delivery{}, false, err
	}
	skip := []string{}
	for {
		d, ok, lostKey, err := p.claimOnce(ctx, worker, lease, skip)
		if err != nil {
			return Delivery{}, false, p.wrap("claim", err)
		}
		if lostKey == "" {
			return d, ok, nil
		}
		skip = append(skip, lostKey)
	}
}

// claimOnce is one claim transaction; lostKey is the candidate's key when
// another claim turned out to hold it.
func (p *Postgres) claimOnce(ctx context.Context, worker string, lease time.Duration, skip []string) (d Delivery, ok bool, lostKey string, err error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return Delivery{}, false, "", err
	}
	defer conn.Release()
	defer func() {
		// A failed transaction is rolled back; should that fail too, the
		// pool drops the connection rather than reuse it in a transaction.
		if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
			conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()

	var (
		id, key string
		inst    int64
		buried  []string // keys of the deliveries that expireSQL buried
		after   []int64  // and their arrivals
	)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(expireSQL, MaxAttempts).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var (
				k    string
				seq  int64
				dead bool
			)
			if err := rows.Scan(&k, &seq, &dead); err != nil {
				return err
			}
			if dead && k != "" {
				buried, after = append(buried, k), append(after, seq)
			}
		}
		return rows.Err()
	})
	b.Queue(candidateSQL, skip).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&id, &key, &inst)
		if errNoRows(err) {
			return nil
		}
		return err
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return Delivery{}, false, "", fmt.Errorf("find a pending delivery: %w", err)
	}
	// The locks of the candidate's key and of the keys whose claims were
	// buried, taken together (in order): the next deliveries of the
	// buried ones become heads, as when a worker finishes.
	b = &pgx.Batch{}
	if locked := distinctKeys(append(slices.Clip(buried), key)); len(locked) > 0 {
		b.Queue(lockKeysSQL, locked)
	}
	if len(buried) > 0 {
		b.Queue(promoteNextSQL, buried, after)
	}
	if id == "" {
		b.Queue("COMMIT")
		return Delivery{}, false, "", conn.SendBatch(ctx, b).Close()
	}
	b.Queue(takeSQL, id, worker, micros(lease)).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&d.ID, &d.Event, &d.Payload, &d.Key, &d.Installation, &d.Received, &d.Attempts,
			&d.Digest, &d.First, &d.Error)
		if errNoRows(err) {
			return nil
		}
		return err
	})
	b.Queue(turnSQL, inst)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return Delivery{}, false, "", fmt.Errorf("claim %s: %w", id, err)
	}
	if d.ID == "" {
		return Delivery{}, false, key, nil
	}
	if len(d.Payload) == 0 {
		d.Payload = nil
	}
	d.Received = d.Received.UTC()
	d.First = d.First.UTC()
	return d, true, "", nil
}

// claimed runs an update of worker's claim of id, in force by the
// database's clock; no row is ErrLost.
func (p *Postgres) claimed(ctx context.Context, what, id, worker, set string, args ...any) error {
	return p.claimedThen(ctx, false, what, id, worker, set, args...)
}

// leaving is claimed for an update that ends the delivery (done, ignored,
// dead): under its key's lock, the next delivery of the key becomes its
// head in the same transaction.
func (p *Postgres) leaving(ctx context.Context, what, id, worker, set string, args ...any) error {
	return p.claimedThen(ctx, true, what, id, worker, set, args...)
}

func (p *Postgres) claimedThen(ctx context.Context, leaves bool, what, id, worker, set string, args ...any) error {
	if err := p.check(ctx); err != nil {
		return err
	}
	update := `
UPDATE gcloop_deliveries SET ` + set + `
WHERE id = $1 AND worker = $2 AND state = 'claimed' AND lease_until > now()`
	args = append([]any{id, worker}, args...)
	var (
		n   int64
		err error
	)
	if !leaves {
		var tag pgconn.CommandTag
		tag, err = p.pool.Exec(ctx, update, args...)
		n = tag.RowsAffected()
	} else {
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		b.Queue(update, args...).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
		b.Queue(lockRowKeySQL, id)
		b.Queue(promoteRowNextSQL, id)
		b.Queue("COMMIT")
		err = p.inTx(ctx, b)
	}
	if err != nil {
		return p.wrap(what+" "+id, err)
	}
	if n == 0 {
		return ErrLost
	}
	return nil
}

// Extend implements Store.
func (p *Postgres) Extend(ctx context.Context, id, worker string, lease time.Duration) error {
	return p.claimed(ctx, "extend", id, worker,
		`lease_until = now() + $3 * interval '1 microsecond'`, micros(lease))
}

// Finish implements Store. A finished delivery keeps its id and digest,
// for deduplication, but not its payload — unless it is dead.
func (p *Postgres) Finish(ctx context.Context, id, worker, outcome string) error {
	if err := checkOutcome(id, outcome); err != nil {
		return err
	}
	return p.leaving(ctx, "finish", id, worker,
		`state = $3, finished = now(), worker = NULL, lease_until = NULL,
	payload = CASE WHEN $3 = 'dead' THEN payload END`, outcome)
}

// Retry implements Store.
func (p *Postgres) Retry(ctx context.Context, id, worker string, after time.Duration, reason string) error {
	return p.claimed(ctx, "retry", id, worker,
		`state = 'pending', worker = NULL, lease_until = NULL,
	not_before = now() + $3 * interval '1 microsecond', error = $4`, micros(after), reason)
}

// Bury implements Store.
func (p *Postgres) Bury(ctx context.Context, id, worker, reason string) error {
	return p.leaving(ctx, "bury", id, worker,
		`state = 'dead', finished = now(), worker = NULL, lease_until = NULL, error = $3`, reason)
}

// Release implements Store.
func (p *Postgres) Release(ctx context.Context, id, worker string) error {
	return p.claimed(ctx, "release", id, worker,
		`state = 'pending', attempts = attempts - 1, worker = NULL, lease_until = NULL`)
}

// Pending implements Store. A claim whose last lease ran out is dead, so
// not counted, even before a Claim ends it.
func (p *Postgres) Pending(ctx context.Context) (int, error) {
	if err := p.check(ctx); err != nil {
		return 0, err
	}
	var n int
	err := p.pool.QueryRow(ctx, `
SELECT count(*) FROM gcloop_deliveries
WHERE state = 'pending'
	OR (state = 'claimed' AND (lease_until > now() OR lease_outs + 1 < $1))`, MaxAttempts).Scan(&n)
	return n, p.wrap("pending", err)
}

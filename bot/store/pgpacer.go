package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// pacerSchema is the pacers' table: one row per installation, holding its
// newest bookings (as many as the larger limit looks back at) and the end
// of its block. It is self-contained, so that it may run under any
// version number of the migrations.
const pacerSchema = `
CREATE TABLE IF NOT EXISTS gcloop_pace (
	installation  bigint PRIMARY KEY,
	sent          timestamptz[] NOT NULL DEFAULT '{}',
	blocked_until timestamptz
);
`

// PgPacer is the Pacer shared by every replica of a Postgres store. An
// installation's row is locked while one replica books a request, so
// bookings never overlap; the clock is the database's. Open it with
// (*Postgres).Pacer.
type PgPacer struct {
	p      *Postgres
	limits PaceLimits
	now    func() time.Time // nil: the database's clock
}

var _ Pacer = (*PgPacer)(nil)

// Pacer returns the pacer that every replica on p's database shares, with
// limits. now replaces the database's clock when not nil (tests); replicas
// must then share it.
func (p *Postgres) Pacer(limits PaceLimits, now func() time.Time) *PgPacer {
	return &PgPacer{p: p, limits: limits.withDefaults(), now: now}
}

// clock returns now by the pacer's clock, given the database's.
func (g *PgPacer) clock(db time.Time) time.Time {
	if g.now != nil {
		return g.now()
	}
	return db
}

// Reserve implements Pacer: in one transaction it locks the
// installation's row (making it on first use) and reads no more of it than
// the lookback and the block, then appends the booking, dropping the
// oldest beyond PaceLimits.keep.
func (g *PgPacer) Reserve(ctx context.Context, installation int64, within time.Duration) (time.Duration, bool, error) {
	if err := g.p.check(ctx); err != nil {
		return 0, false, err
	}
	var (
		wait   time.Duration
		booked bool
	)
	err := pgx.BeginFunc(ctx, g.p.pool, func(tx pgx.Tx) error {
		var (
			last, minute, hour, blocked *time.Time
			db                          time.Time
		)
		// A booking lost in a crash is harmless (it only made the
		// budget stricter), so the commit does not wait for the disk.
		// The no-op update locks the row and returns it in one
		// statement; a subscript out of the array is NULL. Both go in
		// one round trip.
		b := &pgx.Batch{}
		b.Queue(`SET LOCAL synchronous_commit TO off`)
		b.Queue(`
INSERT INTO gcloop_pace AS p (installation) VALUES ($1)
ON CONFLICT (installation) DO UPDATE SET installation = p.installation
RETURNING p.sent[cardinality(p.sent)], p.sent[cardinality(p.sent) - $2 + 1], p.sent[cardinality(p.sent) - $3 + 1],
	p.blocked_until, clock_timestamp()`, installation, g.limits.PerMinute, g.limits.PerHour)
		br := tx.SendBatch(ctx, b)
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
		if err := br.QueryRow().Scan(&last, &minute, &hour, &blocked, &db); err != nil {
			br.Close()
			return err
		}
		if err := br.Close(); err != nil {
			return err
		}
		now := g.clock(db)
		at := g.limits.next(lookback{last: deref(last), minute: deref(minute), hour: deref(hour)}, deref(blocked), now)
		wait = at.Sub(now)
		if wait > within {
			return nil
		}
		booked = true
		_, err := tx.Exec(ctx, `
UPDATE gcloop_pace SET sent = sent[greatest(cardinality(sent) - $2 + 2, 1):cardinality(sent)] || $3::timestamptz
WHERE installation = $1`, installation, g.limits.keep(), at)
		return err
	})
	if err != nil {
		return 0, false, g.p.wrap("pace: reserve", err)
	}
	return wait, booked, nil
}

// deref is *t, or the zero time for nil (SQL's NULL).
func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// Blocked implements Pacer.
func (g *PgPacer) Blocked(ctx context.Context, installation int64) (time.Duration, error) {
	if err := g.p.check(ctx); err != nil {
		return 0, err
	}
	var (
		blocked *time.Time
		db      time.Time
	)
	err := g.p.pool.QueryRow(ctx, `
SELECT (SELECT blocked_until FROM gcloop_pace WHERE installation = $1), clock_timestamp()`, installation).Scan(&blocked, &db)
	if err != nil {
		return 0, g.p.wrap("pace: blocked", err)
	}
	if blocked == nil {
		return 0, nil
	}
	return max(blocked.Sub(g.clock(db)), 0), nil // a block long over is 0
}

// Block implements Pacer.
func (g *PgPacer) Block(ctx context.Context, installation int64, d time.Duration) error {
	if err := g.p.check(ctx); err != nil {
		return err
	}
	var at *time.Time // nil: the database's clock
	if g.now != nil {
		t := g.now()
		at = &t
	}
	_, err := g.p.pool.Exec(ctx, `
INSERT INTO gcloop_pace AS p (installation, blocked_until)
VALUES ($1, coalesce($2::timestamptz, clock_timestamp()) + $3 * interval '1 microsecond')
ON CONFLICT (installation) DO UPDATE SET blocked_until = greatest(p.blocked_until, EXCLUDED.blocked_until)`,
		installation, at, d.Microseconds())
	return g.p.wrap("pace: block", err)
}

package store

import (
	"context"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Heads of keys. Deliveries of one key are worked one at a time in
// arrival order, so of a key's open (pending or claimed) deliveries only
// the oldest may be claimed: its head. Each row says whether it is one
// (head), and the claim's candidate search walks an index of pending
// heads only — one probe, however deep a single pull request's backlog
// is, where checking every pending row against its key's older ones
// costs a claim time in proportion to the backlog.
//
// A delivery without a key is always a head. A new delivery of a key with
// open ones is not; when a head leaves the open states (done, ignored,
// dead) or its key, the oldest open delivery of the key becomes the head
// (promoteFrom). An Add and a head's Finish both promote under the key's
// advisory lock, in a statement after the lock was taken, and then
// commit: whichever takes the lock second sees what the first committed,
// so a key never has open deliveries without a head. (A Finish changes
// its row before it takes the lock, so that the lock is held only for the
// promotion and the commit.)
//
// The flag is a guide, not the rule: a claim still checks, under the
// key's lock, that no claim holds the key and no older delivery of it is
// open. A head too many (a replica of an older schema inserts every row
// as one; a re-keyed delivery older than its new key's head) costs a
// claim one probe; a head too few would strand a key, which the locking
// above rules out.

// lockKeysSQL takes the advisory locks of the keys in $1 until the
// commit, in sorted order, so that two transactions locking several keys
// never wait for each other in a cycle; lockRowKeySQL takes the lock of
// delivery $1's key.
var (
	lockKeysSQL   = lockFrom(`SELECT unnest($1::text[])`)
	lockRowKeySQL = lockFrom(`SELECT key FROM gcloop_deliveries WHERE id = $1`)
)

// promoteKeysSQL makes the oldest open delivery of each key in $1 its
// head; promoteRowKeySQL does it for delivery $1's key.
var (
	promoteKeysSQL   = promoteFrom(`SELECT unnest($1::text[])`)
	promoteRowKeySQL = promoteFrom(`SELECT key FROM gcloop_deliveries WHERE id = $1`)
)

// lockFrom is the statement that locks the keys that keys selects.
func lockFrom(keys string) string {
	return `
SELECT pg_advisory_xact_lock(hashtextextended(k, ` + strconv.FormatInt(keySeed, 10) + `))
FROM (SELECT DISTINCT k FROM (` + keys + `) AS src(k) WHERE k <> '' ORDER BY k) locked`
}

// promoteFrom is the statement that promotes the heads of the keys that
// keys selects.
func promoteFrom(keys string) string {
	return `
UPDATE gcloop_deliveries SET head = true
WHERE NOT head AND id IN (
	SELECT (SELECT o.id FROM gcloop_deliveries o
		WHERE o.key = src.k AND o.state IN ('pending', 'claimed')
		ORDER BY o.seq LIMIT 1)
	FROM (` + keys + `) AS src(k) WHERE src.k <> '')`
}

// distinctKeys is the keys other than "" among keys, sorted, once each.
func distinctKeys(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inTx sends b, a transaction from BEGIN to COMMIT, on one connection in
// one round trip; a failed transaction is rolled back.
func (p *Postgres) inTx(ctx context.Context, b *pgx.Batch) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = conn.SendBatch(ctx, b).Close()
	// Should the rollback fail too, the pool drops the connection rather
	// than reuse it in a transaction.
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return err
}

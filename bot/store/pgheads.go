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
// (head), and a claim looks at heads only — the ready index of pending
// heads, and the heads index of each key's open heads — where checking
// every pending row against its key's older ones costs a claim time in
// proportion to the backlog.
//
// The rule every writer keeps, under the key's advisory lock: the oldest
// open delivery of a key is a head. A delivery without a key is always
// one. An Add makes a new delivery its key's head when the key has no
// open head; a delivery that leaves the open states (done, ignored, dead)
// or its key makes the next open delivery of the key, after it in
// arrival order, the head (promoteNextFrom). Each does so in a statement
// after it took the lock, so whichever of two comes second sees what the
// first committed.
//
// A head too many is harmless: a replica of an older schema inserts every
// row as one, and a re-keyed delivery older than its new key's head is
// one beside it. A claim takes a head only when no claim holds its key
// and no open head of its key is older (keyFree) — which, by the rule,
// makes it the oldest open delivery of its key.

// lockKeysSQL takes the advisory locks of the keys in $1 until the
// commit, in sorted order, so that two transactions locking several keys
// never wait for each other in a cycle; lockRowKeySQL takes the lock of
// delivery $1's key.
var (
	lockKeysSQL   = lockFrom(`SELECT unnest($1::text[])`)
	lockRowKeySQL = lockFrom(`SELECT key FROM gcloop_deliveries WHERE id = $1`)
)

// promoteNextSQL makes the next open delivery of key $1[i] after arrival
// $2[i] its head; promoteRowNextSQL does it for delivery $1's key after
// it.
var (
	promoteNextSQL    = promoteNextFrom(`SELECT * FROM unnest($1::text[], $2::bigint[])`)
	promoteRowNextSQL = promoteNextFrom(`SELECT key, seq FROM gcloop_deliveries WHERE id = $1`)
)

// noOpenHead holds when key k (an expression) has no open head, that is,
// by the rule, no open delivery: one probe of the heads index.
func noOpenHead(k string) string {
	return `NOT EXISTS (SELECT 1 FROM gcloop_deliveries h
	WHERE h.key = ` + k + ` AND h.head AND h.state IN ('pending', 'claimed'))`
}

// lockFrom is the statement that locks the keys that keys selects.
func lockFrom(keys string) string {
	return `
SELECT pg_advisory_xact_lock(hashtextextended(k, ` + strconv.FormatInt(keySeed, 10) + `))
FROM (SELECT DISTINCT k FROM (` + keys + `) AS src(k) WHERE k <> '' ORDER BY k) locked`
}

// promoteNextFrom is the statement that promotes, for each key and
// arrival that src selects, the next open delivery of the key: one probe
// of the key's open deliveries from that arrival on.
func promoteNextFrom(src string) string {
	return `
UPDATE gcloop_deliveries SET head = true
WHERE NOT head AND id IN (
	SELECT (SELECT o.id FROM gcloop_deliveries o
		WHERE o.key = src.k AND o.state IN ('pending', 'claimed') AND o.seq > src.after
		ORDER BY o.seq LIMIT 1)
	FROM (` + src + `) AS src(k, after) WHERE src.k <> '')`
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

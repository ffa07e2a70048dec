package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestPostgresClaimRechecksTheKeyUnderItsLock stages the race the key's
// advisory lock is there for: delivery d of a key commits after the later
// e (their adds raced), and e's claim is still uncommitted when another
// claimer looks — so that claimer sees d pending, first of its key, and e
// not yet claimed. It must wait for the key's lock, then find e claimed and
// pass d over: two claims in force on one key are never allowed.
func TestPostgresClaimRechecksTheKeyUnderItsLock(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	s := openPostgres(t, url, store.Options{})
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	exec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	const key = "o/r#1"

	// d's add, slow: its sequence number is drawn, its commit comes later.
	slowAdd := connect()
	exec(slowAdd, "BEGIN")
	exec(slowAdd, `INSERT INTO gcloop_deliveries (id, event, key, received) VALUES ('d', 'ping', $1, now())`, key)
	if added, err := s.Add(ctx, store.Delivery{ID: "e", Event: "ping", Key: key}); err != nil || !added {
		t.Fatalf("Add(e) = %v, %v", added, err)
	}

	// A claimer takes e, the only delivery of the key it can see, and has
	// not committed yet: it holds the key's lock.
	claimer := connect()
	exec(claimer, "BEGIN")
	exec(claimer, `SELECT pg_advisory_xact_lock(hashtextextended($1, $2))`, key, store.KeySeed)
	exec(claimer, `UPDATE gcloop_deliveries SET state = 'claimed', worker = 'a', attempts = 1,
		lease_until = now() + interval '1 hour' WHERE id = 'e'`)
	exec(slowAdd, "COMMIT")

	type result struct {
		d   store.Delivery
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, ok, err := s.Claim(ctx, "b", time.Hour)
		done <- result{d, ok, err}
	}()
	// The other claimer waits for the key's lock.
	watcher := connect()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var waiting int
		if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("Claim returned %q, %v, %v without waiting for the key's lock", r.d.ID, r.ok, r.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim never waited for the key's lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	exec(claimer, "COMMIT")
	r := <-done
	if r.err != nil || r.ok {
		t.Fatalf("Claim while e holds the key = %q, %v, %v; want none", r.d.ID, r.ok, r.err)
	}
}

package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// A database a bot of schema version 2 left — a failed delivery, a
// pending one — is migrated: the failed one is dead and listed, the
// pending one is claimed, and replays are refused by digest from then on.
func TestPostgresMigratesAVersion2Database(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	ctx := context.Background()
	oldDatabase(t, url, 2,
		`INSERT INTO gcloop_deliveries (id, event, key, installation, received, state, attempts, finished)
		 VALUES ('old', 'issue_comment', 'o/r#1', 42, now(), 'failed', 5, now())`,
		`INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received)
		 VALUES ('waiting', 'issue_comment', '{}', 'o/r#2', 42, now())`)

	s := openPostgres(t, url, store.Options{})
	if n := query[int](t, url, `SELECT max(version) FROM gcloop_schema_migrations`); n != store.SchemaVersion {
		t.Fatalf("schema version %d; want %d", n, store.SchemaVersion)
	}
	dead, total, err := s.Dead(ctx, 10)
	if err != nil || total != 1 || len(dead) != 1 || dead[0].ID != "old" || dead[0].Attempts != 5 {
		t.Fatalf("Dead = %+v, %d, %v; want the failed delivery", dead, total, err)
	}
	if err := s.Redeliver(ctx, "old"); !errors.Is(err, store.ErrNoPayload) {
		t.Errorf("Redeliver(old) = %v; want ErrNoPayload: it died without its payload", err)
	}
	d, ok, err := s.Claim(ctx, "w", time.Minute)
	if err != nil || !ok || d.ID != "waiting" {
		t.Fatalf("Claim = %s, %v, %v; want waiting", d.ID, ok, err)
	}
	for _, tt := range []struct {
		id, digest string
		added      bool
	}{{"a", "body", true}, {"b", "body", false}, {"old", "", false}} {
		if added, err := s.Add(ctx, store.Delivery{ID: tt.id, Event: "ping", Digest: tt.digest}); err != nil || added != tt.added {
			t.Errorf("Add(%s, digest %q) = %v, %v; want %v", tt.id, tt.digest, added, err, tt.added)
		}
	}
}

// A queue a bot of schema version 5 left — a pull request's delivery in
// work and two behind it, another's waiting alone, one without a key — is
// migrated to heads: the first open delivery of each key, and every
// delivery without one, is a head; the rest follow in order.
func TestPostgresMigratesAVersion5QueueToHeads(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	ctx := context.Background()
	oldDatabase(t, url, 5,
		`INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received, state, worker, lease_until, attempts)
		 VALUES ('busy', 'issue_comment', '{}', 'o/r#1', 42, now(), 'claimed', 'w-old', now() + interval '1 hour', 1)`,
		`INSERT INTO gcloop_deliveries (id, event, payload, key, installation, received) VALUES
		 ('next', 'issue_comment', '{}', 'o/r#1', 42, now()),
		 ('last', 'issue_comment', '{}', 'o/r#1', 42, now()),
		 ('alone', 'issue_comment', '{}', 'o/r#2', 42, now()),
		 ('keyless', 'ping', '{}', '', 42, now())`)

	s := openPostgres(t, url, store.Options{})
	if heads := query[string](t, url, `SELECT string_agg(id, ' ' ORDER BY seq) FROM gcloop_deliveries WHERE head`); heads != "busy alone keyless" {
		t.Errorf("heads after the migration: %s; want busy alone keyless", heads)
	}
	var got []string
	for {
		d, ok, err := s.Claim(ctx, "w", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, d.ID)
		if err := s.Finish(ctx, d.ID, "w", store.Done); err != nil {
			t.Fatal(err)
		}
		if d.ID == "keyless" {
			// The delivery in work ends as its old worker finishes it.
			if err := s.Finish(ctx, "busy", "w-old", store.Done); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fmt.Sprint(got) != "[alone keyless next last]" {
		t.Errorf("claimed %v; want [alone keyless next last]", got)
	}
}

// oldDatabase makes the database at url what a bot of schema version left:
// the schema's versions up to it, recorded, and then rows.
func oldDatabase(t *testing.T, url string, version int, rows ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for v := 1; v <= version; v++ {
		if _, err := conn.Exec(ctx, store.Migrations[v]); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
	}
	stmts := []string{`CREATE TABLE gcloop_schema_migrations (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`,
		`INSERT INTO gcloop_schema_migrations (version) SELECT generate_series(1, ` + strconv.Itoa(version) + `)`}
	for _, sql := range append(stmts, rows...) {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

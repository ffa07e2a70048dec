package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// replicas opens n stores on one new database at once, as replicas that
// start together.
func replicas(t *testing.T, n int, opts store.Options) (string, []*store.Postgres) {
	t.Helper()
	url := pgtest.URL(t)
	out := make([]*store.Postgres, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.OpenPostgres(context.Background(), url+"&pool_max_conns=4", opts)
			out[i], errs[i] = s, err
			if err == nil {
				t.Cleanup(func() { s.Close() })
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	return url, out
}

func query[T any](t *testing.T, url, sql string, args ...any) T {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v T
	if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func TestPostgresReplicasStartingTogetherMigrateOnce(t *testing.T) {
	t.Parallel()
	url, rs := replicas(t, 4, store.Options{})
	if n := query[int](t, url, `SELECT count(*) FROM gcloop_schema_migrations`); n != store.SchemaVersion {
		t.Fatalf("gcloop_schema_migrations has %d rows; want %d", n, store.SchemaVersion)
	}
	rs[0].Close()
	again := openPostgres(t, url, store.Options{}) // migrated: nothing to do
	if err := again.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestPostgresReplicasAddADeliveryOnce(t *testing.T) {
	t.Parallel()
	_, rs := replicas(t, 2, store.Options{})
	ctx := context.Background()
	d := store.Delivery{ID: "d1", Event: "ping", Payload: []byte(`{}`)}
	tests := []struct {
		replica int
		added   bool
	}{{0, true}, {1, false}, {0, false}}
	for _, tt := range tests {
		added, err := rs[tt.replica].Add(ctx, d)
		if err != nil || added != tt.added {
			t.Fatalf("Add on replica %d = %v, %v; want %v", tt.replica, added, err, tt.added)
		}
	}
}

func TestPostgresAKilledReplicasClaimIsTakenOver(t *testing.T) {
	t.Parallel()
	_, rs := replicas(t, 2, store.Options{})
	ctx := context.Background()
	dead, alive := rs[0], rs[1]
	for _, id := range []string{"a", "b"} {
		if _, err := alive.Add(ctx, store.Delivery{ID: id, Event: "issue_comment", Key: "o/r#1"}); err != nil {
			t.Fatal(err)
		}
	}
	if d, ok, err := dead.Claim(ctx, "dead", 50*time.Millisecond); err != nil || !ok || d.ID != "a" {
		t.Fatalf("Claim on the doomed replica = %s, %v, %v; want a", d.ID, ok, err)
	}
	dead.Close() // killed: no Finish, no Release

	deadline := time.Now().Add(20 * time.Second)
	var d store.Delivery
	for {
		var ok bool
		var err error
		d, ok, err = alive.Claim(ctx, "alive", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dead replica's claim was not taken over")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d.ID != "a" || d.Attempts != 2 {
		t.Fatalf("taken over: %s attempt %d; want a attempt 2", d.ID, d.Attempts)
	}
	if err := alive.Finish(ctx, "a", "alive", store.Done); err != nil {
		t.Fatal(err)
	}
	if d, ok, err := alive.Claim(ctx, "alive", time.Minute); err != nil || !ok || d.ID != "b" {
		t.Fatalf("next Claim = %s, %v, %v; want b", d.ID, ok, err)
	}
}

func TestPostgresEventsReachEveryReplicasSubscribers(t *testing.T) {
	t.Parallel()
	_, rs := replicas(t, 3, store.Options{})
	ctx := context.Background()
	var subs []<-chan event.Event
	for _, r := range rs {
		for range 2 {
			ch, err := r.Subscribe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, ch)
		}
	}
	var want []int64
	for i := range 30 {
		e, err := rs[i%len(rs)].Append(ctx, event.Event{Type: event.Round, PR: i})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e.ID)
	}
	for i, ch := range subs {
		got := receiveN(t, ch, len(want))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("subscriber %d (replica %d) got ids %v; want %v", i, i/2, got, want)
		}
	}
}

func TestPostgresListenerCatchesUpAfterItsConnectionDies(t *testing.T) {
	t.Parallel()
	url, rs := replicas(t, 2, store.Options{})
	ctx := context.Background()
	writer, reader := rs[0], rs[1]
	ch, err := reader.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Subscribe returns once the store's listener listens: the writer's
	// too, so that both are there to be killed.
	if _, err := writer.Subscribe(ctx); err != nil {
		t.Fatal(err)
	}
	var want []int64
	appendSome := func(n int) {
		for range n {
			e, err := writer.Append(ctx, event.Event{Type: event.Decision})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, e.ID)
		}
	}
	appendSome(3)
	// Both listeners' connections die; events appended meanwhile must
	// still arrive once the reader's listener is back.
	killed := query[int](t, url, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, store.ListenerName)
	if killed != 2 {
		t.Fatalf("terminated %d listeners; want 2", killed)
	}
	appendSome(10)
	got := receiveN(t, ch, len(want))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got ids %v; want %v", got, want)
	}
}

func receiveN(t *testing.T, ch <-chan event.Event, n int) []int64 {
	t.Helper()
	var got []int64
	timeout := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("subscription closed after %v", got)
			}
			got = append(got, e.ID)
		case <-timeout:
			t.Fatalf("got %v in 20s; want %d events", got, n)
		}
	}
	return got
}

package pgtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestEachTestGetsItsOwnEmptyDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct{ name string }{{"first"}, {"second"}, {"third"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var tables int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
				t.Fatal(err)
			}
			if tables != 0 {
				t.Fatalf("a new database has %d tables; want 0", tables)
			}
			if _, err := conn.Exec(ctx, `CREATE TABLE mine (name text PRIMARY KEY)`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `INSERT INTO mine VALUES ($1)`, tt.name); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func BenchmarkURL(b *testing.B) {
	pgtest.URL(b) // the cluster's start is not measured
	b.ResetTimer()
	for b.Loop() {
		pgtest.URL(b)
	}
}

func TestStartWithoutTheServerProgramsSaysWhichFailed(t *testing.T) {
	t.Parallel()
	_, err := pgtest.Start(context.Background(), pgtest.Config{BinDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "initdb") {
		t.Fatalf("Start without programs = %v; want an error naming initdb", err)
	}
}

package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/internal/testkit/pgtest"
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

// TestWithoutAServerTestsSkipOrFailUnderCI runs this binary again with no
// server programs to find, once as on a laptop and once under CI=true.
func TestWithoutAServerTestsSkipOrFailUnderCI(t *testing.T) {
	t.Parallel()
	if os.Getenv("PGTEST_HELPER") == "1" {
		t.Skip("the helper's own run")
	}
	tests := []struct {
		name   string
		ci     string
		fails  bool
		output string
	}{
		{"skipped outside CI", "", false, "--- SKIP: TestHelperAsksForADatabase"},
		{"failed under CI=true", "true", true, "CI=true, so this fails rather than skips"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAsksForADatabase$", "-test.v")
			cmd.Env = append(os.Environ(), "PGTEST_HELPER=1", pgtest.BinDirEnv+"="+t.TempDir(), "CI="+tt.ci)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tt.fails {
				t.Fatalf("helper failed: %v; want %v\n%s", err, tt.fails, out)
			}
			if !strings.Contains(string(out), tt.output) {
				t.Fatalf("helper's output lacks %q:\n%s", tt.output, out)
			}
		})
	}
}

// TestHelperAsksForADatabase is run by the test above.
func TestHelperAsksForADatabase(t *testing.T) {
	if os.Getenv("PGTEST_HELPER") != "1" {
		t.Skip("run by TestWithoutAServerTestsSkipOrFailUnderCI")
	}
	pgtest.URL(t)
	t.Fatal("URL returned without a server")
}

// Package pgtest runs a private PostgreSQL cluster for a test binary:
// found on the machine, initialized in a temporary directory, listening on
// loopback and a socket of its own, shared by the binary's parallel tests,
// each of which gets a new database; stopped when the tests end.
//
// A package that uses it calls Main from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// When no server can be started, tests that ask for a database are
// skipped, with the reason — unless CI=true, where they fail. PGTEST_BIN_DIR
// picks the server's programs when the machine has several versions.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	mainCalled atomic.Bool
	once       sync.Once
	shared     *Cluster
	startErr   error
	databases  atomic.Int64
)

// Main runs the tests of m and stops the cluster, if one was started, before
// the binary exits with the tests' code.
func Main(m *testing.M) {
	mainCalled.Store(true)
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// URL returns the address of a new, empty database on the binary's cluster,
// started at the first call; the database is dropped when t ends (after the
// cleanups t registers later, such as closing a pool). Without a server,
// t is skipped, or failed under CI=true.
func URL(t testing.TB) string {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("pgtest: the package's TestMain must call pgtest.Main(m), which stops the cluster")
	}
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		shared, startErr = Start(ctx, Config{BinDir: os.Getenv(BinDirEnv)})
	})
	if startErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: no PostgreSQL for the tests (CI=true, so this fails rather than skips): %v", startErr)
		}
		t.Skipf("pgtest: no PostgreSQL for the tests, skipped: %v", startErr)
	}
	name := fmt.Sprintf("test_%d", databases.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, err := shared.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := shared.DropDatabase(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return url
}

// BinDirEnv names the environment variable that, when set, is the
// directory of the server's programs (initdb, postgres) instead of the
// ones found on the machine.
const BinDirEnv = "PGTEST_BIN_DIR"

// startTimeout bounds initdb and the server's start.
const startTimeout = 2 * time.Minute

// admin is a pool on the cluster's postgres database, for creating and
// dropping databases.
func (c *Cluster) admin(ctx context.Context) (*pgxpool.Pool, error) {
	c.adminOnce.Do(func() {
		c.adminPool, c.adminErr = pgxpool.New(ctx, c.URL("postgres")+"&pool_max_conns=4")
	})
	return c.adminPool, c.adminErr
}

// CreateDatabase creates database name, a copy of template0, and returns
// its address.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	pool, err := c.admin(ctx)
	if err != nil {
		return "", fmt.Errorf("connect to the cluster at %s: %w", c.dir, err)
	}
	if _, err := pool.Exec(ctx, `CREATE DATABASE "`+name+`" TEMPLATE template0`); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// DropDatabase drops database name, ending its connections.
func (c *Cluster) DropDatabase(ctx context.Context, name string) error {
	pool, err := c.admin(ctx)
	if err != nil {
		return fmt.Errorf("connect to the cluster at %s: %w", c.dir, err)
	}
	if _, err := pool.Exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// errNotFound is a machine without PostgreSQL's server programs.
var errNotFound = errors.New("initdb and postgres not found in PATH, /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin or /usr/local/bin (Debian: apt-get install postgresql)")

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the store shared by any number of replicas through one
// PostgreSQL database: deliveries deduplicated by a unique id, a queue
// claimed with FOR UPDATE SKIP LOCKED and serialized per key with advisory
// locks, leases on the database's clock, and an event log fanned out to
// every replica with LISTEN/NOTIFY. A finished delivery keeps its id, for
// Forget, but not its payload. Open it with OpenPostgres.
type Postgres struct {
	opts   Options
	pool   *pgxpool.Pool
	listen *pgx.ConnConfig // the listener's own connection
	hub    *hub
	closed atomic.Bool

	stop       context.CancelFunc               // ends the listener
	listenDone chan struct{}                    // closed when the listener returned
	adds       *group[Delivery, bool]           // Adds, group-committed
	appends    *group[event.Event, event.Event] // Appends, group-committed
	pruneDone  chan struct{}                    // closed when pruneLoop returned
	ready      chan struct{}                    // closed once the listener listens
	readyOnce  sync.Once
	closeOnce  sync.Once
}

var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the database at url (a postgres:// URL or a
// key=value string, as libpq takes), migrates its schema — once, however
// many replicas start together — and starts listening for other replicas'
// events.
func OpenPostgres(ctx context.Context, url string, opts Options) (*Postgres, error) {
	opts = opts.withDefaults()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The URL may hold a password: pgx's error does not repeat it.
		return nil, fmt.Errorf("store: database url: %w", err)
	}
	for name, value := range planSettings {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = value
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect to %s: %w", describe(cfg.ConnConfig), err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, oneLine(fmt.Errorf("store: migrate %s: %w", describe(cfg.ConnConfig), err))
	}
	listen := cfg.ConnConfig.Copy()
	listen.RuntimeParams["application_name"] = ListenerName
	lctx, stop := context.WithCancel(context.Background())
	p := &Postgres{
		opts:       opts,
		pool:       pool,
		listen:     listen,
		hub:        newHub(opts.Buffer),
		stop:       stop,
		listenDone: make(chan struct{}),
		pruneDone:  make(chan struct{}),
		ready:      make(chan struct{}),
	}
	p.adds = newGroup(lctx, addFlushers, addBatch, addQueue, p.flush)
	p.appends = newGroup(lctx, 1, appendBatch, appendQueue, p.flushAppends)
	go p.listenLoop(lctx)
	go p.pruneLoop(lctx)
	return p, nil
}

// planSettings are the store's connections' planner settings, unless the
// database URL sets them. The store's statements are prepared once per
// connection and run thousands of times a second, on a queue table that
// is empty when the bot starts and churns all day: a plan made for each
// call embeds a batch's payloads and probes the ends of indexes full of
// dead entries (several milliseconds of planning), while the generic plan
// PostgreSQL builds at the start, on an empty table, scans the whole
// table. So: generic plans, built once, on the indexes the statements are
// written for.
var planSettings = map[string]string{
	"plan_cache_mode": "force_generic_plan",
	"enable_seqscan":  "off",
}

// ListenerName is the application_name of a store's listening connection,
// as pg_stat_activity shows it.
const ListenerName = "gcloop store listener"

// describe names a database without its password.
func describe(c *pgx.ConnConfig) string {
	return fmt.Sprintf("database %s on %s:%d", c.Database, c.Host, c.Port)
}

// check refuses work once p is closed or ctx is done.
func (p *Postgres) check(ctx context.Context) error {
	if p.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

// wrap gives err the store's context, or ErrClosed when p was closed
// meanwhile.
func (p *Postgres) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	if p.closed.Load() {
		return ErrClosed
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

// Ping implements Store.
func (p *Postgres) Ping(ctx context.Context) error {
	if err := p.check(ctx); err != nil {
		return err
	}
	return p.wrap("ping", p.pool.Ping(ctx))
}

// Close implements Store. It ends every subscription and closes the
// connections; claims in force stay as they are, their leases running out.
func (p *Postgres) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.stop()
		p.adds.close()
		p.appends.close()
		<-p.listenDone
		<-p.pruneDone
		p.hub.close()
		p.pool.Close()
	})
	return nil
}

// oneLine keeps err, but says it on one line: pgx lists each address it
// tried on a line of its own.
func oneLine(err error) error { return lineError{err} }

type lineError struct{ err error }

func (e lineError) Error() string {
	return strings.NewReplacer(":\n\t", ": ", "\n\t", "; ", "\n", "; ").Replace(e.err.Error())
}

func (e lineError) Unwrap() error { return e.err }

// errNoRows reports pgx's no-rows error.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// Handler does the work of one delivery: event is the X-GitHub-Event
// header, payload the JSON body. An error wrapping delivery.ErrIgnored
// means there was nothing to do. *delivery.Handler is one.
type Handler interface {
	Handle(ctx context.Context, id, event string, payload []byte) error
}

// Queue is the part of the store the workers use.
type Queue interface {
	Claim(ctx context.Context, worker string, lease time.Duration) (store.Delivery, bool, error)
	Extend(ctx context.Context, id, worker string, lease time.Duration) error
	Finish(ctx context.Context, id, worker, outcome string) error
	Release(ctx context.Context, id, worker string) error
	Retry(ctx context.Context, id, worker string, after time.Duration, reason string) error
	Bury(ctx context.Context, id, worker, reason string) error
	Rekey(ctx context.Context, id, worker, key string) error
	Append(ctx context.Context, e event.Event) (event.Event, error)
}

// Results of a delivery's work besides the store's outcomes (store.Done,
// store.Ignored, store.Dead), as logged and observed.
const (
	Released = "released" // handed back unfinished at shutdown
	Lost     = "lost"     // the lease ran out; another worker may have it
	Retried  = "retried"  // a transient failure: queued again after a backoff
	Rekeyed  = "rekeyed"  // queued again under its pull request's key
)

// Defaults of PoolOptions.
const (
	DefaultWorkers      = 4
	DefaultLease        = 60 * time.Second
	DefaultPoll         = time.Second
	DefaultGrace        = 2 * time.Second
	DefaultStoreTimeout = 10 * time.Second
)

// emptyClaimGap is the least time between two claims of one worker that
// find nothing. Every queued delivery wakes a worker, but under a burst
// for one pull request (whose deliveries are worked one at a time) most
// wake-ups find nothing claimable: without the gap each would cost the
// store a claim, and a database the planning and a transaction, at the
// rate deliveries arrive. A claimable delivery waits at most this long
// for a worker that just looked.
const emptyClaimGap = 5 * time.Millisecond

// PoolOptions are the pool's optional settings; zero values take the
// defaults.
type PoolOptions struct {
	// Workers is how many deliveries run at once (DefaultWorkers).
	Workers int
	// Lease is how long a claim lasts without a heartbeat (DefaultLease);
	// the heartbeat renews it every third of it.
	Lease time.Duration
	// Poll is how often idle workers look for work added by other
	// replicas (DefaultPoll); Wake finds this replica's at once.
	Poll time.Duration
	// Grace is how long work canceled at Shutdown's deadline has to hand
	// itself back before Shutdown hands it back (DefaultGrace).
	Grace time.Duration
	// StoreTimeout bounds each call to the store (DefaultStoreTimeout).
	StoreTimeout time.Duration
	// RetryFirst is the longest wait before a delivery's first retry
	// after a transient failure (DefaultRetryFirst); each later retry may
	// wait twice as long, up to RetryMax (DefaultRetryMax). The wait is
	// drawn at random up to that (full jitter), unless GitHub named one.
	RetryFirst, RetryMax time.Duration
	// RetryWindow is how long after its first attempt a delivery that
	// keeps failing transiently is retried (DefaultRetryWindow); a retry
	// that would start later, or a permanent failure, makes it dead.
	RetryWindow time.Duration
	// Jitter is a random duration in [0, d] (default: math/rand/v2).
	Jitter func(d time.Duration) time.Duration
	// Name names this replica's workers in the store ("<Name>/<n>");
	// default: host name, process id and a random suffix.
	Name   string
	Logger *slog.Logger
	// Observe, if set, is told of every delivery's result.
	Observe Observer
	Clock   Clock
}

// Pool is the bounded pool of workers that carries out queued deliveries.
type Pool struct {
	q       Queue
	h       Handler
	o       PoolOptions
	log     *slog.Logger
	clock   Clock
	wake    chan struct{}
	quit    chan struct{}
	work    context.Context // parent of every delivery's context
	cancel  context.CancelCauseFunc
	workers sync.WaitGroup
	poller  sync.WaitGroup
	start   sync.Once
	stop    sync.Once

	mu       sync.Mutex
	running  map[string]*job // by worker name
	released atomic.Int64    // deliveries handed back at shutdown
}

// job is a delivery being worked on.
type job struct {
	d       store.Delivery
	worker  string
	cancel  context.CancelCauseFunc
	settled bool // Finish or Release was called, or is being called, for it
}

// errShutdown cancels the work still running at Shutdown's deadline.
var errShutdown = errors.New("the bot is shutting down")

// NewPool is a pool that claims deliveries from q and hands them to h.
// Start starts it.
func NewPool(q Queue, h Handler, o PoolOptions) (*Pool, error) {
	if q == nil || h == nil {
		return nil, errors.New("webhook: a pool needs a store and a handler")
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.StoreTimeout <= 0 {
		o.StoreTimeout = DefaultStoreTimeout
	}
	if o.RetryFirst <= 0 {
		o.RetryFirst = DefaultRetryFirst
	}
	if o.RetryMax <= 0 {
		o.RetryMax = DefaultRetryMax
	}
	o.RetryMax = max(o.RetryMax, o.RetryFirst)
	if o.RetryWindow <= 0 {
		o.RetryWindow = DefaultRetryWindow
	}
	if o.Jitter == nil {
		o.Jitter = fullJitter
	}
	if o.Name == "" {
		o.Name = defaultName()
	}
	p := &Pool{q: q, h: h, o: o, log: o.Logger, clock: o.Clock, wake: make(chan struct{}, 1), quit: make(chan struct{}), running: map[string]*job{}}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.clock == nil {
		p.clock = realClock{}
	}
	p.work, p.cancel = context.WithCancelCause(context.Background())
	return p, nil
}

// defaultName names a replica: host, process and a random suffix, so two
// processes never share worker names.
func defaultName() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", or(host, "bot"), os.Getpid(), hex.EncodeToString(b[:]))
}

// Start starts the workers and the poll; a second call does nothing.
func (p *Pool) Start() {
	p.start.Do(func() {
		p.poller.Add(1)
		go p.poll()
		for n := range p.o.Workers {
			p.workers.Add(1)
			go p.worker(p.o.Name + "/" + strconv.Itoa(n))
		}
	})
}

// Wake tells an idle worker that work was queued. It never blocks.
func (p *Pool) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// poll wakes a worker every Poll, for work other replicas queued.
func (p *Pool) poll() {
	defer p.poller.Done()
	t := p.clock.NewTicker(p.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C():
			p.Wake()
		}
	}
}

// idle waits for a wake-up, and then until emptyClaimGap has passed
// since the claim that found nothing (at), so that a stream of wake-ups
// costs a stream of claims at most that often; false when the pool stops.
func (p *Pool) idle(at time.Time) bool {
	select {
	case <-p.quit:
		return false
	case <-p.wake:
	}
	wait := emptyClaimGap - time.Since(at)
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.quit:
		return false
	case <-t.C:
		return true
	}
}

// worker claims and carries out deliveries until the pool stops.
func (p *Pool) worker(name string) {
	defer p.workers.Done()
	for {
		if p.stopping() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.o.StoreTimeout)
		at := time.Now()
		d, ok, err := p.q.Claim(ctx, name, p.o.Lease)
		cancel()
		if err != nil {
			p.log.LogAttrs(context.Background(), slog.LevelError, "claim a delivery", slog.String("worker", name), slog.String("error", err.Error()))
		}
		if err != nil || !ok {
			if !p.idle(at) {
				return
			}
			continue
		}
		if p.stopping() {
			// Shutdown began while the claim was in flight: the delivery
			// may be one another worker just handed back. Hand it back
			// unrun, costing it no attempt.
			p.handBackUnrun(name, d)
			return
		}
		// There may be more: let another idle worker look too.
		p.Wake()
		p.run(name, d)
	}
}

// stopping reports whether Shutdown has begun.
func (p *Pool) stopping() bool {
	select {
	case <-p.quit:
		return true
	default:
		return false
	}
}

// handBackUnrun releases a delivery claimed after Shutdown began, without
// running it (it is not one of the unfinished deliveries Shutdown counts).
func (p *Pool) handBackUnrun(name string, d store.Delivery) {
	if err := p.settle(func(ctx context.Context) error { return p.q.Release(ctx, d.ID, name) }); err != nil {
		p.log.LogAttrs(context.Background(), slog.LevelError, "hand back a delivery claimed at shutdown", slog.String("delivery", d.ID), slog.String("error", err.Error()))
	}
}

// run carries out one claimed delivery and settles its claim.
func (p *Pool) run(name string, d store.Delivery) {
	ctx, cancel := context.WithCancelCause(p.work)
	defer cancel(nil)
	j := &job{d: d, worker: name, cancel: cancel}
	p.mu.Lock()
	p.running[name] = j
	p.mu.Unlock()

	start := p.clock.Now()
	beat := make(chan struct{})
	beating := make(chan struct{})
	go p.heartbeat(ctx, j, beat, beating)
	err := p.handle(ctx, d)
	close(beat)
	<-beating
	elapsed := p.clock.Now().Sub(start)

	p.mu.Lock()
	handedBack := j.settled
	j.settled = true
	delete(p.running, name)
	p.mu.Unlock()

	cause := context.Cause(ctx)
	var result string
	switch {
	case handedBack:
		// Shutdown released it after its grace.
		result = Released
	case errors.Is(cause, store.ErrLost):
		result = Lost
	case err != nil && errors.Is(cause, errShutdown):
		result = Released
		if rerr := p.settle(func(ctx context.Context) error { return p.q.Release(ctx, d.ID, name) }); rerr != nil {
			result = p.settleFailed(d, "release", rerr)
		} else {
			p.released.Add(1)
		}
	default:
		var settle func(ctx context.Context) error
		result, settle = p.conclude(d, name, err)
		if serr := p.settle(settle); serr != nil {
			result = p.settleFailed(d, "settle", serr)
		}
	}
	p.finished(d, name, result, err, elapsed)
}

// settle calls the store, bounded by StoreTimeout and not canceled by
// shutdown.
func (p *Pool) settle(call func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.o.StoreTimeout)
	defer cancel()
	return call(ctx)
}

// settleFailed is the result of a delivery whose Finish or Release the
// store refused: lost when the claim was no longer ours; otherwise the
// claim runs out and the delivery is tried again.
func (p *Pool) settleFailed(d store.Delivery, what string, err error) string {
	if errors.Is(err, store.ErrLost) {
		return Lost
	}
	p.log.LogAttrs(context.Background(), slog.LevelError, what+" a delivery", slog.String("delivery", d.ID), slog.String("error", err.Error()))
	return Lost
}

// handle runs the handler; a panic is a failure of this delivery, not of
// the bot.
func (p *Pool) handle(ctx context.Context, d store.Delivery) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p.log.LogAttrs(ctx, slog.LevelError, "delivery handler panicked", slog.String("delivery", d.ID),
				slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
			err = fmt.Errorf("delivery %s: the handler panicked: %v", d.ID, v)
		}
	}()
	return p.h.Handle(delivery.WithKey(ctx, d.Key), d.ID, d.Event, d.Payload)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

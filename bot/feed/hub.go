package feed

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/event"
)

// page is how many events one Since call reads.
const page = 500

// maxRetryWait is the longest wait between two refused subscriptions.
const maxRetryWait = 30 * time.Second

// message is one event as every subscriber sends it: encoded and framed
// once for all of them.
type message struct {
	id    int64
	repo  string
	frame *websocket.PreparedMessage
}

// Hub fans the store's events out to websocket subscribers. Run holds its
// one subscription to the store; ServeHTTP serves GET /ws; Shutdown closes
// every subscriber with 1001.
type Hub struct {
	log      Log
	opts     Options
	origins  []origin
	upgrader websocket.Upgrader

	mu      sync.Mutex
	subs    map[*conn]struct{} // connections that receive live events
	all     map[*conn]struct{} // every open connection, dropped ones too
	closing bool
	last    int64 // the newest id broadcast
	conns   sync.WaitGroup

	ready    chan struct{} // closed once Run holds a subscription
	readyOne sync.Once
	shutdown chan struct{} // closed by Shutdown
	stopOne  sync.Once
	dropped  atomic.Int64
}

// New returns a hub over log. It reads nothing until Run.
func New(log Log, opts Options) (*Hub, error) {
	if log == nil {
		return nil, errors.New("feed: no event log")
	}
	opts = opts.withDefaults()
	origins, err := parseOrigins(opts.PublicURL, opts.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	h := &Hub{
		log:      log,
		opts:     opts,
		origins:  origins,
		subs:     map[*conn]struct{}{},
		all:      map[*conn]struct{}{},
		ready:    make(chan struct{}),
		shutdown: make(chan struct{}),
	}
	h.upgrader = websocket.Upgrader{
		HandshakeTimeout: opts.WriteTimeout,
		WriteBufferPool:  &sync.Pool{},
		CheckOrigin: func(r *http.Request) bool {
			return originAllowed(r.Header.Get("Origin"), r.Host, h.origins)
		},
	}
	return h, nil
}

// Ready is closed once Run holds its subscription to the store: from then
// on every appended event reaches the subscribers.
func (h *Hub) Ready() <-chan struct{} { return h.ready }

// Subscribers is the number of websocket subscribers now connected.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Dropped is the number of subscribers closed with 1013 because their
// buffer filled.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

// Run holds the hub's subscription to the store until ctx ends or Shutdown
// is called, and fans every event out. When the store closes the
// subscription early (the hub fell behind, or a connection to the
// database broke), Run subscribes again and fills the gap from Since, so
// no subscriber misses an event. Run returns nil when stopped.
func (h *Hub) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-h.shutdown:
			cancel()
		case <-ctx.Done():
		}
	}()
	first := true
	wait := h.opts.RetryWait
	for ctx.Err() == nil {
		subCtx, stop := context.WithCancel(ctx)
		ch, err := h.log.Subscribe(subCtx)
		if err == nil {
			// Subscribed first, then read what came before: an event
			// appended in between arrives twice and is sent once.
			if first {
				err = h.head(subCtx)
			} else {
				err = h.fill(subCtx)
			}
		}
		if err != nil {
			stop()
			if ctx.Err() != nil {
				break
			}
			h.opts.Logger.Warn("feed: subscribing to the event log failed; retrying", "err", err, "wait", wait)
			if h.opts.Sleep(ctx, wait) != nil {
				break
			}
			wait = min(2*wait, maxRetryWait)
			continue
		}
		first = false
		wait = h.opts.RetryWait
		h.readyOne.Do(func() { close(h.ready) })
		for e := range ch {
			h.broadcast(e)
		}
		stop()
		if ctx.Err() == nil {
			h.opts.Logger.Warn("feed: the event log ended the subscription; subscribing again")
		}
	}
	return nil
}

// head finds the newest retained event at start: the hub broadcasts only
// what comes after it.
func (h *Hub) head(ctx context.Context) error {
	after := int64(0)
	for {
		es, err := h.log.Since(ctx, after, page)
		if err != nil {
			return err
		}
		if len(es) > 0 {
			after = es[len(es)-1].ID
		}
		if len(es) < page {
			break
		}
	}
	h.mu.Lock()
	if after > h.last {
		h.last = after
	}
	h.mu.Unlock()
	return nil
}

// fill broadcasts the events appended while the hub had no subscription.
func (h *Hub) fill(ctx context.Context) error {
	for {
		h.mu.Lock()
		after := h.last
		h.mu.Unlock()
		es, err := h.log.Since(ctx, after, page)
		if err != nil {
			return err
		}
		for _, e := range es {
			h.broadcast(e)
		}
		if len(es) < page {
			return nil
		}
	}
}

// broadcast hands e to every subscriber without waiting for any: a
// subscriber whose buffer is full is dropped, to be closed with 1013.
func (h *Hub) broadcast(e event.Event) {
	m, err := encode(e)
	if err != nil {
		h.opts.Logger.Warn("feed: event cannot be encoded", "id", e.ID, "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.ID <= h.last {
		return
	}
	h.last = e.ID
	for c := range h.subs {
		select {
		case c.send <- m:
		default:
			delete(h.subs, c)
			close(c.full)
			h.dropped.Add(1)
		}
	}
}

// encode turns e into the message every subscriber sends.
func encode(e event.Event) (*message, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	frame, err := websocket.NewPreparedMessage(websocket.TextMessage, data)
	if err != nil {
		return nil, err
	}
	return &message{id: e.ID, repo: e.Repo, frame: frame}, nil
}

// add registers c for live events; false when the hub is shutting down.
func (h *Hub) add(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.subs[c] = struct{}{}
	h.all[c] = struct{}{}
	h.conns.Add(1)
	return true
}

// remove forgets c; its goroutines are done.
func (h *Hub) remove(c *conn) {
	h.mu.Lock()
	delete(h.subs, c)
	delete(h.all, c)
	h.mu.Unlock()
	h.conns.Done()
}

// Shutdown stops accepting subscribers, closes every connection with 1001
// (going away) and waits for their close handshakes until ctx ends; then it
// drops the connections that are left and returns ctx's error. It also
// ends Run.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	h.stopOne.Do(func() { close(h.shutdown) })
	done := make(chan struct{})
	go func() {
		h.conns.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		h.mu.Lock()
		for c := range h.all {
			_ = c.ws.Close()
		}
		h.mu.Unlock()
		return ctx.Err()
	}
}

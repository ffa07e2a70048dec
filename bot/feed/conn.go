package feed

import (
	"context"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Close reasons (at most 123 bytes each).
const (
	reasonSlow     = "subscriber too slow: reconnect with ?since=<last id>"
	reasonShutdown = "server shutting down"
	reasonFailed   = "event log unavailable: reconnect with ?since=<last id>"
)

// conn is one websocket subscriber: a read pump that answers pings and
// close frames and extends the read deadline on every pong, and a write
// pump (run) that replays, then sends live events, pings, and closes.
type conn struct {
	hub    *Hub
	ws     *websocket.Conn
	filter Filter
	repo   string // only this repository's events; "" for all
	since  int64  // replay after this id; -1 for live only

	send     chan *message // live events, filled by the hub
	full     chan struct{} // closed by the hub when send overflowed
	readDone chan struct{} // closed when the read pump ends
	last     int64         // the newest id sent or skipped
}

func (h *Hub) newConn(ws *websocket.Conn, since int64, repo string, filter Filter) *conn {
	return &conn{
		hub:      h,
		ws:       ws,
		filter:   filter,
		repo:     repo,
		since:    since,
		send:     make(chan *message, h.opts.Buffer),
		full:     make(chan struct{}),
		readDone: make(chan struct{}),
	}
}

// pongWait is how long a connection may stay silent.
func (c *conn) pongWait() time.Duration { return c.hub.opts.PongWait }

// readPump reads until the peer closes or breaks the connection. Clients
// send nothing but control frames; gorilla's handlers answer a ping with a
// pong and a close frame with a close frame, and a message over the read
// limit with 1009.
func (c *conn) readPump() {
	defer close(c.readDone)
	c.ws.SetReadLimit(c.hub.opts.ReadLimit)
	_ = c.ws.SetReadDeadline(time.Now().Add(c.pongWait()))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(c.pongWait()))
	})
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(c.pongWait()))
	}
}

// run is the write pump: it owns every data write to the connection.
func (c *conn) run(ctx context.Context) {
	defer c.hub.remove(c)
	defer c.ws.Close()
	go c.readPump()

	c.last = c.since
	if c.since >= 0 {
		code, reason := c.replay(ctx)
		if code != 0 {
			c.close(code, reason)
			return
		}
	} else {
		c.last = 0
	}
	ping := time.NewTicker(c.hub.opts.PingInterval)
	defer ping.Stop()
	for {
		// A full buffer and a shutdown go before the events still queued.
		select {
		case <-c.full:
			c.close(websocket.CloseTryAgainLater, reasonSlow)
			return
		case <-c.hub.shutdown:
			c.close(websocket.CloseGoingAway, reasonShutdown)
			return
		default:
		}
		select {
		case m := <-c.send:
			if !c.write(ctx, m) {
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.hub.opts.WriteTimeout)); err != nil {
				return
			}
		case <-c.full:
			c.close(websocket.CloseTryAgainLater, reasonSlow)
			return
		case <-c.hub.shutdown:
			c.close(websocket.CloseGoingAway, reasonShutdown)
			return
		case <-c.readDone:
			return
		}
	}
}

// replay sends the retained events after since, page by page, then hands
// over to the live events, which it has been collecting since before the
// first page was read. It returns a close code when the connection must end.
func (c *conn) replay(ctx context.Context) (int, string) {
	for {
		select {
		case <-c.full:
			return websocket.CloseTryAgainLater, reasonSlow
		case <-c.hub.shutdown:
			return websocket.CloseGoingAway, reasonShutdown
		case <-c.readDone:
			return websocket.CloseNormalClosure, ""
		default:
		}
		es, err := c.hub.log.Since(ctx, c.last, page)
		if err != nil {
			c.hub.opts.Logger.Warn("feed: replay failed", "after", c.last, "err", err)
			return websocket.CloseTryAgainLater, reasonFailed
		}
		for _, e := range es {
			m, err := encode(e)
			if err != nil {
				c.last = e.ID
				continue
			}
			if !c.write(ctx, m) {
				return websocket.CloseNormalClosure, ""
			}
		}
		if len(es) < page {
			return 0, ""
		}
	}
}

// write sends m unless it was sent already or is not for this viewer;
// false when the connection broke.
func (c *conn) write(ctx context.Context, m *message) bool {
	if m.id <= c.last {
		return true
	}
	c.last = m.id
	if c.repo != "" && !strings.EqualFold(m.repo, c.repo) {
		return true
	}
	if c.filter != nil && (m.repo == "" || !c.filter(ctx, m.repo)) {
		return true
	}
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.hub.opts.WriteTimeout))
	return c.ws.WritePreparedMessage(m.frame) == nil
}

// close sends a close frame with code and waits a moment for the peer's
// answer (the close handshake), so that proxies see a clean close.
func (c *conn) close(code int, reason string) {
	msg := websocket.FormatCloseMessage(code, reason)
	if err := c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.hub.opts.WriteTimeout)); err != nil {
		return
	}
	t := time.NewTimer(c.hub.opts.CloseWait)
	defer t.Stop()
	select {
	case <-c.readDone:
	case <-t.C:
	}
}

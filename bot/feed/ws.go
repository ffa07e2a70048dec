package feed

import (
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// ServeHTTP serves GET /ws: it upgrades the request to a websocket (403
// for a browser page of a foreign origin; 503 until Run has subscribed to
// the log and after Shutdown), replays the retained events
// after ?since=N when given, then sends every new event as one JSON text
// message, only of ?repo=owner/name when given and only of repositories the
// viewer may read.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed: GET /ws", http.StatusMethodNotAllowed)
		return
	}
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if h.stopping() {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	select {
	case <-h.ready:
	default:
		// Before Run holds its subscription, a live subscriber could miss
		// events: come back in a moment.
		w.Header().Set("Retry-After", "1")
		http.Error(w, "feed starting", http.StatusServiceUnavailable)
		return
	}
	var filter Filter
	if h.opts.FilterFor != nil {
		filter = h.opts.FilterFor(r)
	}
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered (403 for a foreign origin, 400 otherwise)
	}
	c := h.newConn(ws, q.since, q.repo, filter)
	if !h.add(c) {
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, reasonShutdown), time.Now().Add(h.opts.WriteTimeout))
		_ = ws.Close()
		return
	}
	// The request's context ends when the handler returns; the
	// connection's lifetime is run's.
	c.run(r.Context())
}

// stopping reports whether Shutdown was called.
func (h *Hub) stopping() bool {
	select {
	case <-h.shutdown:
		return true
	default:
		return false
	}
}

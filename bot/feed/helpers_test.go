package feed

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/event"
)

// testHub serves a hub over l on an httptest server: /ws, /api/events,
// /api/loops and /api/loops/{owner}/{repo}/{pr}. The hub runs until the test ends.
func testHub(t testing.TB, l Log, opts Options) (*Hub, *httptest.Server) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = discard()
	}
	if opts.CloseWait == 0 {
		opts.CloseWait = 500 * time.Millisecond
	}
	h, err := New(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws", h)
	mux.Handle("/api/events", h.Events())
	mux.Handle("/api/loops", h.Loops())
	mux.Handle("GET /api/loops/{owner}/{repo}/{pr}", h.LoopHistory())
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.Run(ctx)
	}()
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = h.Shutdown(sctx)
		cancel()
		<-done
		srv.Close()
	})
	select {
	case <-h.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("hub did not subscribe within 5s")
	}
	return h, srv
}

// dial opens /ws<query> on srv with header.
func dial(t testing.TB, srv *httptest.Server, query string, header http.Header) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws"+query, header)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial /ws%s: %v (status %d)", query, err, status)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readEvent reads one event within d.
func readEvent(c *websocket.Conn, d time.Duration) (event.Event, error) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, b, err := c.ReadMessage()
	if err != nil {
		return event.Event{}, err
	}
	var e event.Event
	if err := json.Unmarshal(b, &e); err != nil {
		return e, err
	}
	return e, nil
}

// readUntil reads events until one with id ≥ last, and returns their ids.
func readUntil(c *websocket.Conn, last int64) ([]int64, error) {
	var ids []int64
	for {
		e, err := readEvent(c, 5*time.Second)
		if err != nil {
			return ids, err
		}
		ids = append(ids, e.ID)
		if e.ID >= last {
			return ids, nil
		}
	}
}

// closeCode reads until the connection ends and returns the close code
// the server sent, or -1 when it ended without one.
func closeCode(c *websocket.Conn, d time.Duration) int {
	_ = c.SetReadDeadline(time.Now().Add(d))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			return -1
		}
	}
}

// consecutive reports the first id of ids that is not the one after the
// id before it (from), or 0 when none.
func consecutive(from int64, ids []int64) int64 {
	want := from + 1
	for _, id := range ids {
		if id != want {
			return id
		}
		want++
	}
	return 0
}

// waitFor polls cond every millisecond for up to 5s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

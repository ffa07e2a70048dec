package feed

import (
	"bufio"
	"encoding/json"
	"net/http"

	"github.com/gcloop/gcloop/bot/event"
)

// flushEvery is how many lines a stream writes between flushes.
const flushEvery = 256

// streamEvents answers GET /api/events?format=ndjson: the audit log as
// newline-delimited JSON (Content-Type application/x-ndjson), one event
// per line in ID order — every retained event after ?since= (0 when
// absent) that the viewer may see, of ?repo= when given, or only the first
// ?limit= of them when given. The log is read a page at a time and each
// event written as it is read, so memory stays bounded however long the
// log; a client that goes away ends the stream. A store that fails before
// the first line is a 503; after it, the response is cut off after the
// last whole line (the client reads an unexpected EOF, never a clean end)
// and the client resumes with since= the last id it read.
func (h *Hub) streamEvents(w http.ResponseWriter, r *http.Request, q query) {
	since := max(q.since, 0)
	limit := -1
	if _, given := r.URL.Query()["limit"]; given {
		limit = q.limit
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw) // Encode ends each event with '\n'
	flusher, _ := w.(http.Flusher)
	n := 0
	var werr error
	started := false
	start := func() {
		if started {
			return
		}
		started = true
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
	}
	err := h.scanShown(r, q.repo, since, func(e event.Event) bool {
		if r.Context().Err() != nil {
			return false
		}
		start()
		if werr = enc.Encode(e); werr != nil {
			return false
		}
		n++
		if n%flushEvery == 0 {
			if werr = bw.Flush(); werr != nil {
				return false
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		return limit < 0 || n < limit
	})
	if err != nil && !started {
		h.unavailable(w, err)
		return
	}
	if err != nil {
		// The lines written stand, each whole; the response is then cut
		// off, not ended, so that the client sees an error (an unexpected
		// EOF), not a log that ends here.
		h.opts.Logger.Warn("feed: the event log failed mid-stream", "err", err, "events", n)
		if bw.Flush() == nil && flusher != nil {
			flusher.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	start() // an empty log is an empty 200
	if werr == nil {
		_ = bw.Flush()
	}
}

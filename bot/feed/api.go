package feed

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gcloop/gcloop/bot/event"
)

// Events serves GET /api/events: a JSON array of events in ID order. With
// ?since=N, the first ?limit= (default 100, at most 1000) retained events
// after N; without it, the newest limit events. ?repo=owner/name keeps one
// repository's. Only repositories the viewer may read are shown. With
// ?format=ndjson the whole retained log after since (0 when absent), or
// its first ?limit= events, streams as one JSON event per line (see
// streamEvents).
func (h *Hub) Events() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.apiQuery(w, r)
		if !ok {
			return
		}
		if q.ndjson {
			h.streamEvents(w, r, q)
			return
		}
		var out []event.Event
		if q.since >= 0 {
			out = make([]event.Event, 0, min(q.limit, page))
			err := h.scanShown(r, q.repo, q.since, func(e event.Event) bool {
				out = append(out, e)
				return len(out) < q.limit
			})
			if err != nil {
				h.unavailable(w, err)
				return
			}
		} else {
			// The newest limit events: a ring over the retained log.
			ring := make([]event.Event, q.limit)
			n := 0
			err := h.scanShown(r, q.repo, 0, func(e event.Event) bool {
				ring[n%q.limit] = e
				n++
				return true
			})
			if err != nil {
				h.unavailable(w, err)
				return
			}
			out = make([]event.Event, 0, min(n, q.limit))
			for i := max(0, n-q.limit); i < n; i++ {
				out = append(out, ring[i%q.limit])
			}
		}
		writeJSON(w, out)
	})
}

// Loops serves GET /api/loops: a JSON array of Loop rows folded from the
// retained events, the most recently active first; ?repo=owner/name keeps
// one repository's. Only repositories the viewer may read are shown.
func (h *Hub) Loops() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.apiQuery(w, r)
		if !ok {
			return
		}
		f := newFolder()
		err := h.scanShown(r, q.repo, 0, func(e event.Event) bool {
			f.add(e)
			return true
		})
		if err != nil {
			h.unavailable(w, err)
			return
		}
		writeJSON(w, f.loops())
	})
}

// apiQuery checks the method and reads the query; false when it answered.
func (h *Hub) apiQuery(w http.ResponseWriter, r *http.Request) (query, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: GET "+r.URL.Path, http.StatusMethodNotAllowed)
		return query{}, false
	}
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return q, false
	}
	return q, true
}

// keeper returns what decides, for one request, whether an event is shown:
// the ?repo= parameter and the viewer's filter, asked once per repository.
func (h *Hub) keeper(r *http.Request, repo string) func(context.Context, event.Event) bool {
	var filter Filter
	if h.opts.FilterFor != nil {
		filter = h.opts.FilterFor(r)
	}
	seen := map[string]bool{}
	return func(ctx context.Context, e event.Event) bool {
		if repo != "" && !strings.EqualFold(e.Repo, repo) {
			return false
		}
		if filter == nil {
			return true
		}
		if e.Repo == "" {
			return false
		}
		ok, asked := seen[e.Repo]
		if !asked {
			ok = filter(ctx, e.Repo)
			seen[e.Repo] = ok
		}
		return ok
	}
}

// scanShown is scan over the events r may be shown (keeper): those of
// repo, if set, and of repositories the viewer may read.
func (h *Hub) scanShown(r *http.Request, repo string, after int64, fn func(event.Event) bool) error {
	keep := h.keeper(r, repo)
	return h.scan(r.Context(), after, func(e event.Event) bool {
		return !keep(r.Context(), e) || fn(e)
	})
}

// scan calls fn on every retained event after after, in ID order, until fn
// returns false.
func (h *Hub) scan(ctx context.Context, after int64, fn func(event.Event) bool) error {
	for {
		es, err := h.log.Since(ctx, after, page)
		if err != nil {
			return err
		}
		for _, e := range es {
			if !fn(e) {
				return nil
			}
			after = e.ID
		}
		if len(es) < page {
			return nil
		}
	}
}

func (h *Hub) unavailable(w http.ResponseWriter, err error) {
	h.opts.Logger.Warn("feed: reading the event log failed", "err", err)
	http.Error(w, "event log unavailable", http.StatusServiceUnavailable)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_ = json.NewEncoder(w).Encode(v)
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// deadStore is the part of the store the deliveries API uses.
type deadStore interface {
	Dead(ctx context.Context, limit int) ([]store.Delivery, int, error)
	Redeliver(ctx context.Context, id string) error
}

// deliveriesAPI serves GET /api/deliveries?state=dead and POST
// /api/deliveries/{id}/redeliver, behind the dashboard's guard.
type deliveriesAPI struct {
	store deadStore
	// filter is the guard's: which repositories the request's viewer may
	// see; nil for every one (the dashboard token, loopback).
	filter func(r *http.Request) func(ctx context.Context, repo string) bool
	wake   func() // the workers look for work at once
	log    *slog.Logger
}

// Limits of the deliveries API.
const (
	deadPage    = 100  // deliveries listed without ?limit=
	deadPageMax = 1000 // the most ?limit= may ask for
)

// OperatorHeader must be sent, with any value, on a redelivery: a page of
// another site cannot send it without CORS approval, which the bot never
// gives, so a browser with the dashboard's cookie, or on the bot's
// loopback address, cannot be made to redeliver by another site.
const OperatorHeader = "X-Gcloop-Operator"

// deadJSON is a dead delivery as the API shows it.
type deadJSON struct {
	ID           string    `json:"id"`
	Event        string    `json:"event"`
	Key          string    `json:"key"`
	Repo         string    `json:"repo"`
	PR           int       `json:"pr"`
	Installation int64     `json:"installation"`
	Received     time.Time `json:"received"`
	First        time.Time `json:"first_attempt"`
	Died         time.Time `json:"died"`
	Attempts     int       `json:"attempts"`
	Error        string    `json:"error"`
}

// deadPageJSON is the answer of the list.
type deadPageJSON struct {
	State      string     `json:"state"`
	Total      int        `json:"total"`
	Deliveries []deadJSON `json:"deliveries"`
}

// list serves GET /api/deliveries?state=dead[&limit=N]: the dead
// deliveries of the repositories the viewer may see, the latest to die
// first, and how many there are in all.
func (a *deliveriesAPI) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if s := q.Get("state"); s != store.Dead {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("state %q: only state=dead is listed", s))
		return
	}
	limit := deadPage
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > deadPageMax {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("limit %q: want a number from 1 to %d", l, deadPageMax))
			return
		}
		limit = n
	}
	dead, total, err := a.store.Dead(r.Context(), limit)
	if err != nil {
		a.log.Warn("list dead deliveries", "error", err.Error())
		apiError(w, http.StatusServiceUnavailable, "the store did not answer; try again")
		return
	}
	show := a.filter(r)
	out := make([]deadJSON, 0, len(dead))
	for _, d := range dead {
		repo, pr := repoOfKey(d.Key)
		if show != nil && (repo == "" || !show(r.Context(), repo)) {
			total--
			continue
		}
		out = append(out, deadJSON{ID: d.ID, Event: d.Event, Key: d.Key, Repo: repo, PR: pr, Installation: d.Installation,
			Received: d.Received, First: d.First, Died: d.Finished, Attempts: d.Attempts, Error: d.Error})
	}
	if show != nil {
		// A viewer limited to some repositories learns nothing of the
		// others, not even how many of theirs died.
		total = len(out)
	}
	writeAPI(w, http.StatusOK, deadPageJSON{State: store.Dead, Total: total, Deliveries: out})
}

// redeliver serves POST /api/deliveries/{id}/redeliver: an operator (the
// dashboard token, or loopback access) queues a dead delivery again.
func (a *deliveriesAPI) redeliver(w http.ResponseWriter, r *http.Request) {
	if a.filter(r) != nil {
		apiError(w, http.StatusForbidden, "only an operator (the dashboard token, or loopback access) may redeliver")
		return
	}
	if r.Header.Get(OperatorHeader) == "" {
		apiError(w, http.StatusForbidden, "send the "+OperatorHeader+" header to redeliver")
		return
	}
	id := r.PathValue("id")
	err := a.store.Redeliver(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrUnknown):
		apiError(w, http.StatusNotFound, fmt.Sprintf("no delivery %q", id))
		return
	case errors.Is(err, store.ErrNotDead):
		apiError(w, http.StatusConflict, fmt.Sprintf("delivery %q is not dead", id))
		return
	case errors.Is(err, store.ErrNoPayload):
		apiError(w, http.StatusGone, fmt.Sprintf("delivery %q died before its payload was kept: ask GitHub to redeliver it", id))
		return
	case err != nil:
		a.log.Warn("redeliver", "delivery", id, "error", err.Error())
		apiError(w, http.StatusServiceUnavailable, "the store did not answer; try again")
		return
	}
	a.log.Info("delivery redelivered", "delivery", id, "remote", r.RemoteAddr)
	if a.wake != nil {
		a.wake()
	}
	writeAPI(w, http.StatusOK, map[string]string{"redelivered": id})
}

// repoOfKey is the repository and pull request of a queue key
// ("owner/name#N", "owner/name@sha"); "" and 0 for none.
func repoOfKey(key string) (string, int) {
	i := strings.LastIndexAny(key, "#@")
	if i <= 0 {
		return "", 0
	}
	pr := 0
	if key[i] == '#' {
		pr, _ = strconv.Atoi(key[i+1:])
	}
	return key[:i], pr
}

func writeAPI(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeAPI(w, status, map[string]string{"error": msg})
}

package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// outcome is the store's outcome of a handler's error.
func outcome(err error) string {
	switch {
	case err == nil:
		return store.Done
	case errors.Is(err, delivery.ErrIgnored):
		return store.Ignored
	}
	return store.Failed
}

// finished logs, observes and records a delivery's result.
func (p *Pool) finished(d store.Delivery, worker, result string, err error, elapsed time.Duration) {
	attrs := []slog.Attr{slog.String("delivery", d.ID), slog.String("event", d.Event), slog.String("result", result),
		slog.String("worker", worker), slog.Int("attempt", d.Attempts), slog.Duration("elapsed", elapsed)}
	if d.Key != "" {
		attrs = append(attrs, slog.String("key", d.Key))
	}
	level := slog.LevelInfo
	if result == store.Failed {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", oneLine(err)))
	} else if result == Lost || result == Released {
		level = slog.LevelWarn
	}
	p.log.LogAttrs(context.Background(), level, "delivery worked", attrs...)
	if p.o.Observe != nil {
		p.o.Observe(d.Event, result, elapsed)
	}
	rt := routeOfKey(d)
	data, _ := json.Marshal(deliveryData{Delivery: d.ID, Event: d.Event, Result: result, Attempt: d.Attempts, ElapsedMS: elapsed.Milliseconds()})
	p.append(event.Event{Type: event.Delivery, Repo: rt.Repo, PR: rt.PR, Data: data})
	if result == store.Failed {
		data, _ := json.Marshal(deliveryData{Delivery: d.ID, Event: d.Event, Result: result, Error: oneLine(err)})
		p.append(event.Event{Type: event.Error, Repo: rt.Repo, PR: rt.PR, Data: data})
	}
}

// append adds e to the log; a log that fails loses the event, never the
// work.
func (p *Pool) append(e event.Event) {
	if err := p.settle(func(ctx context.Context) error { _, err := p.q.Append(ctx, e); return err }); err != nil {
		p.log.LogAttrs(context.Background(), slog.LevelWarn, "event log", slog.String("error", err.Error()))
	}
}

// oneLine is an error's first line, bounded.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// routeOfKey is the repository and pull request of a delivery, from its
// key when it has one ("owner/name#pr", "owner/name@sha"), else from its
// payload.
func routeOfKey(d store.Delivery) route {
	if i := strings.LastIndexAny(d.Key, "#@"); i > 0 {
		r := route{Key: d.Key, Repo: d.Key[:i]}
		if d.Key[i] == '#' {
			r.PR, _ = strconv.Atoi(d.Key[i+1:])
		}
		return r
	}
	r, _ := routeOf(d.Event, d.Payload)
	return r
}

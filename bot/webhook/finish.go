package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// conclude is the result of a delivery's work that ended with err, and
// the store call that records it: done or ignored; queued again under
// its pull request's key; retried after a backoff when the failure may
// pass and the retry window is still open; dead otherwise.
func (p *Pool) conclude(d store.Delivery, worker string, err error) (string, func(ctx context.Context) error) {
	var rk *delivery.RekeyError
	switch {
	case err == nil:
		return store.Done, func(ctx context.Context) error { return p.q.Finish(ctx, d.ID, worker, store.Done) }
	case errors.Is(err, delivery.ErrIgnored):
		return store.Ignored, func(ctx context.Context) error { return p.q.Finish(ctx, d.ID, worker, store.Ignored) }
	case errors.As(err, &rk) && rk.Key != d.Key:
		return Rekeyed, func(ctx context.Context) error { return p.q.Rekey(ctx, d.ID, worker, rk.Key) }
	}
	reason := oneLine(err)
	now := p.clock.Now()
	if server, ok := transient(err, now); ok {
		first := d.First
		if first.IsZero() || first.After(now) {
			first = now
		}
		wait := p.backoff(d.Attempts, server)
		if !now.Add(wait).After(first.Add(p.o.RetryWindow)) {
			return Retried, func(ctx context.Context) error { return p.q.Retry(ctx, d.ID, worker, wait, reason) }
		}
		reason = fmt.Sprintf("%s (given up after %d attempts in %s)", reason, d.Attempts, now.Sub(first).Round(time.Second))
	}
	return store.Dead, func(ctx context.Context) error { return p.q.Bury(ctx, d.ID, worker, reason) }
}

// finished logs, observes and records a delivery's result.
func (p *Pool) finished(d store.Delivery, worker, result string, err error, elapsed time.Duration) {
	attrs := []slog.Attr{slog.String("delivery", d.ID), slog.String("event", d.Event), slog.String("result", result),
		slog.String("worker", worker), slog.Int("attempt", d.Attempts), slog.Duration("elapsed", elapsed)}
	if d.Key != "" {
		attrs = append(attrs, slog.String("key", d.Key))
	}
	level := slog.LevelInfo
	switch result {
	case store.Dead:
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", oneLine(err)))
	case Retried:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", oneLine(err)))
	case Lost, Released:
		level = slog.LevelWarn
	}
	p.log.LogAttrs(context.Background(), level, "delivery worked", attrs...)
	if p.o.Observe != nil {
		p.o.Observe(d.Event, result, elapsed)
	}
	// A dead or retried delivery's event carries its error; an error event
	// of its own only when the handler did not log one (with its loop)
	// already, else the feed shows every failure twice.
	rt := routeOfKey(d)
	dd := deliveryData{Delivery: d.ID, Event: d.Event, Result: result, Attempt: d.Attempts, ElapsedMS: elapsed.Milliseconds()}
	if result == store.Dead || result == Retried {
		dd.Error = oneLine(err)
	}
	data, _ := json.Marshal(dd)
	p.append(event.Event{Type: event.Delivery, Repo: rt.Repo, PR: rt.PR, Data: data})
	if result == store.Dead && !delivery.WasLogged(err) {
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

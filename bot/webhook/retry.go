package webhook

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// Defaults of the retries (PoolOptions).
const (
	DefaultRetryFirst  = 10 * time.Second
	DefaultRetryMax    = 5 * time.Minute
	DefaultRetryWindow = 30 * time.Minute
)

// transient reports whether err is a failure that may pass by itself —
// GitHub's 5xx, a rate limit (403 or 429), a timeout, a network error —
// and the wait GitHub asked for, if it named one (Retry-After, the
// rate limit's reset).
func transient(err error, now time.Time) (wait time.Duration, ok bool) {
	var (
		we    *ghclient.WaitError
		pe    *ghclient.PaceError
		abuse *github.AbuseRateLimitError
		rl    *github.RateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &we):
		return we.Wait, true
	case errors.As(err, &pe):
		// The installation's budget frees up then: the delivery waits
		// for it in the queue, not in a worker.
		return pe.Wait, true
	case errors.As(err, &abuse):
		return abuse.GetRetryAfter(), true
	case errors.As(err, &rl):
		return max(rl.Rate.Reset.Sub(now), 0), true
	}
	if !ghclient.Transient(err) {
		return 0, false
	}
	if errors.As(err, &er) && er.Response != nil {
		return serverWait(er.Response.Header, now), true
	}
	return 0, true
}

// maxServerWait bounds a wait read from GitHub's headers: a day, far past
// any retry window, so a delivery told to wait longer is dead at once.
const maxServerWait = 24 * time.Hour

// serverWait is the wait a response's headers ask for: Retry-After in
// seconds or as a date, else X-RateLimit-Reset when no requests remain;
// 0 for none.
func serverWait(h http.Header, now time.Time) time.Duration {
	if ra := h.Get("Retry-After"); ra != "" {
		if s, err := strconv.ParseInt(ra, 10, 64); err == nil && s >= 0 {
			return time.Duration(min(s, int64(maxServerWait/time.Second))) * time.Second
		}
		if t, err := http.ParseTime(ra); err == nil {
			return min(max(t.Sub(now), 0), maxServerWait)
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return min(max(time.Unix(reset, 0).Sub(now), 0), maxServerWait)
		}
	}
	return 0
}

// backoff is the wait before attempt+1 of a delivery: GitHub's own when
// it named one, else exponential from first, doubling per attempt up to
// most, with full jitter (a random wait up to that ceiling).
func (p *Pool) backoff(attempt int, server time.Duration) time.Duration {
	if server > 0 {
		return server
	}
	ceiling := p.o.RetryFirst
	for i := 1; i < attempt && ceiling < p.o.RetryMax; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.o.RetryMax)
	return p.o.Jitter(ceiling)
}

// fullJitter is a random duration in [0, d].
func fullJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

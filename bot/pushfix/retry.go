package pushfix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// Secondary rate limits: a call refused with 403 (go-github's
// *AbuseRateLimitError) or 429 (a plain *ErrorResponse in v62) is tried
// again after the Retry-After the response names — one minute when it
// names none, as GitHub's documentation asks — at most maxAttempts times
// in all, and not at all when the wait exceeds maxWait or the context's
// deadline. Every call pushfix makes is safe to repeat: Git objects are
// content-addressed, and a ref update to the same commit is a fast forward.
const (
	maxAttempts = 3
	maxWait     = time.Minute
)

// call runs f, retrying it on secondary rate limits.
func call[T any](ctx context.Context, f func() (T, *github.Response, error)) (T, *github.Response, error) {
	for attempt := 1; ; attempt++ {
		v, resp, err := f()
		if err == nil || attempt == maxAttempts {
			return v, resp, err
		}
		wait, ok := secondaryLimit(err)
		if !ok || wait > maxWait {
			return v, resp, err
		}
		if dl, has := ctx.Deadline(); has && time.Until(dl) < wait {
			return v, resp, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, resp, fmt.Errorf("%w (waiting %s for a secondary rate limit: %v)", err, wait, ctx.Err())
		case <-t.C:
		}
	}
}

// secondaryLimit reports whether err is a secondary rate limit and how long
// GitHub asks to wait.
func secondaryLimit(err error) (time.Duration, bool) {
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		if abuse.RetryAfter != nil && *abuse.RetryAfter >= 0 {
			return *abuse.RetryAfter, true
		}
		return time.Minute, true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusTooManyRequests {
		if s := strings.TrimSpace(er.Response.Header.Get("Retry-After")); s != "" {
			if n, perr := strconv.Atoi(s); perr == nil && n >= 0 {
				return time.Duration(n) * time.Second, true
			}
			if t, perr := http.ParseTime(s); perr == nil {
				return max(time.Until(t), 0), true
			}
		}
		return time.Minute, true
	}
	return 0, false
}

// statusOf returns the HTTP status of a go-github error, 0 when it has none.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

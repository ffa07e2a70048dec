package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

func ghErr(status int, header http.Header, msg string) error {
	if header == nil {
		header = http.Header{}
	}
	return &github.ErrorResponse{Response: &http.Response{StatusCode: status, Header: header,
		Request: &http.Request{Method: http.MethodGet}}, Message: msg}
}

func TestTransientTellsFailuresThatPassFromOthers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	minute := time.Minute
	tests := []struct {
		name      string
		err       error
		transient bool
		wait      time.Duration
	}{
		{"a 502", fmt.Errorf("read the comment: %w", ghErr(502, nil, "Bad Gateway")), true, 0},
		{"a 503 with Retry-After", ghErr(503, http.Header{"Retry-After": {"42"}}, ""), true, 42 * time.Second},
		{"a 429 with Retry-After", ghErr(429, http.Header{"Retry-After": {"7"}}, ""), true, 7 * time.Second},
		{"a 429 with Retry-After as a date", ghErr(429, http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, ""), true, 90 * time.Second},
		{"a 403 rate limit with its reset", ghErr(403, http.Header{"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(3*time.Minute).Unix(), 10)}}, "API rate limit exceeded"), true, 3 * time.Minute},
		{"a primary rate limit", &github.RateLimitError{Rate: github.Rate{Reset: github.Timestamp{Time: now.Add(2 * time.Minute)}}}, true, 2 * time.Minute},
		{"a secondary rate limit", &github.AbuseRateLimitError{RetryAfter: &minute}, true, time.Minute},
		{"a wait the client refused", fmt.Errorf("x: %w", &ghclient.WaitError{Status: 429, Wait: 10 * time.Minute}), true, 10 * time.Minute},
		{"the installation's budget holding a request back", fmt.Errorf("x: %w", &ghclient.PaceError{Method: "POST", Path: "/repos/o/r/issues", Installation: 7, Wait: 48 * time.Second, Left: 10 * time.Second}), true, 48 * time.Second},
		{"a timeout", context.DeadlineExceeded, true, 0},
		{"a network error", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, true, 0},
		{"one loop's 502 among others' errors", errors.Join(errors.New("loop a: bad config"), ghErr(502, nil, "")), true, 0},
		{"a 404", ghErr(404, nil, "Not Found"), false, 0},
		{"a 403 that is no rate limit", ghErr(403, nil, "Resource not accessible by integration"), false, 0},
		{"a 422", ghErr(422, nil, "Validation Failed"), false, 0},
		{"a bad configuration", errors.New("config: unknown key foo on line 3"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wait, ok := transient(tt.err, now)
			if ok != tt.transient || wait != tt.wait {
				t.Errorf("transient(%v) = %v, %v; want %v, %v", tt.err, wait, ok, tt.wait, tt.transient)
			}
		})
	}
}

func TestBackoffDoublesUpToItsCapWithFullJitter(t *testing.T) {
	t.Parallel()
	var asked []time.Duration
	p, err := NewPool(nopQueue{}, nil2{}, PoolOptions{Jitter: func(d time.Duration) time.Duration { asked = append(asked, d); return d / 2 }})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}
	for i, w := range want {
		if got := p.backoff(i+1, 0); got != w/2 {
			t.Errorf("backoff(attempt %d) = %v; want %v (half of %v)", i+1, got, w/2, w)
		}
	}
	if got := p.backoff(3, 17*time.Second); got != 17*time.Second {
		t.Errorf("backoff with GitHub's wait = %v; want GitHub's 17s", got)
	}
	if len(asked) != len(want) {
		t.Errorf("jitter asked %d times; want %d", len(asked), len(want))
	}
	for range 1000 {
		if d := fullJitter(time.Second); d < 0 || d > time.Second {
			t.Fatalf("fullJitter(1s) = %v", d)
		}
	}
}

type nopQueue struct{ Queue }
type nil2 struct{ Handler }

// FuzzServerWait reads GitHub's Retry-After and rate-limit headers, which
// come from outside: never a panic, never a wait below 0 or above a day.
func FuzzServerWait(f *testing.F) {
	f.Add("42", "", "")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "", "")
	f.Add("", "0", "1700000000")
	f.Add("-5", "0", "99999999999999999999")
	f.Add("9999999999999999", "1", "x")
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfter, remaining, reset string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Reset", reset)
		if w := serverWait(h, now); w < 0 || w > 24*time.Hour {
			t.Fatalf("serverWait(%q, %q, %q) = %v", retryAfter, remaining, reset, w)
		}
	})
}

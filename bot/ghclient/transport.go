package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Transport is the http.RoundTripper under the GitHub client. It applies a
// deadline to every attempt, retries what is safe to retry, waits out rate
// limits within bounds, and sends mutating requests one at a time.
//
// Mutations are not paced while GitHub shows no sign of a secondary rate
// limit. From the first secondary-limit answer on (429, or 403 with
// Retry-After or GitHub's secondary-limit message; not a primary limit, which
// says X-RateLimit-Remaining: 0 and nothing else), every mutation waits until
// MutationPause has passed since the previous one ended, for the rest of the
// Transport's life.
//
// With a Pacer (Options.Pacer), the installation's budget is shared by
// every client of it, on every replica that shares the pacer's store:
// before each attempt, a content-creating request (POST, PATCH, PUT,
// DELETE) waits for its booking — at most 80 a minute and 500 an hour by
// default — and any other request waits out a block in force. Every rate
// limit GitHub answers (its Retry-After, X-RateLimit-Reset or backoff) is
// recorded with the pacer as such a block, and the retry's admission waits
// it out. A wait that would end past the request context's deadline is not
// started: RoundTrip returns a *PaceError at once.
//
// The retry rule:
//   - GET, HEAD and OPTIONS are retried on 500, 502, 503 and 504, on transport
//     errors and on per-attempt timeouts.
//   - PUT, PATCH and DELETE are retried on 502, 503 and 504, on transport errors
//     and on per-attempt timeouts: GitHub applies the same body to the same
//     resource with the same result, so a replay cannot duplicate anything.
//     A 500 is not retried: it may mean a half-applied change.
//   - POST is never retried on a 5xx, a transport error or a timeout: a POST
//     whose answer was lost may have created the comment, issue or commit.
//   - Every method is retried on a rate limit (429, or 403 that says it is a
//     primary or secondary rate limit): GitHub refused the request before doing
//     anything.
//
// A 5xx that is retried waits its Retry-After (as GitHub may send with a
// 503), capped at MaxWait, instead of the backoff.
//
// Rate-limit waits follow GitHub's guidance: Retry-After (seconds) if sent, else
// X-RateLimit-Reset (epoch seconds) if sent, else an exponential backoff of at
// least one minute for secondary limits. A wait demanded by a header that is
// longer than MaxWait, or longer than the time left before the request
// context's deadline, is not attempted: RoundTrip returns a *WaitError at once.
// Likewise a backoff after a 5xx or transport error that would end past the
// deadline is not slept: RoundTrip returns that answer or error at once.
type Transport struct {
	base          http.RoundTripper
	callTimeout   time.Duration
	mutationPause time.Duration
	maxRetries    int
	maxWait       time.Duration
	sleep         func(ctx context.Context, d time.Duration) error
	now           func() time.Time
	rand          func() float64
	logf          func(format string, args ...any)
	pacer         Pacer // nil: no budget shared with other clients
	maxPaceWait   time.Duration
	installation  int64
	onWait        func(installation int64, write bool, d time.Duration)
	onBlock       func(installation int64, d time.Duration)
	contents      *ContentCache // nil: nothing is revalidated

	// mutation holds one token: whoever holds it may send a mutating request.
	mutation     chan struct{}
	mu           sync.Mutex
	lastMutation time.Time // when the last mutating request finished (now())
	paced        bool      // GitHub has answered with a secondary rate limit
}

// serverBackoff is the first wait before retrying a 5xx or transport error;
// it doubles on every further attempt and is capped by MaxWait.
const serverBackoff = time.Second

// secondaryBackoff is the least wait for a secondary rate limit that names no
// time of its own (GitHub: "wait for at least one minute").
const secondaryBackoff = time.Minute

// maxErrorBody caps how much of a 403 or 429 body is read to classify it.
const maxErrorBody = 64 << 10

// NewTransport returns the Transport that New puts under the client, with the
// defaults of Options applied.
func NewTransport(o Options) *Transport {
	return newTransport(o.withDefaults())
}

// newTransport builds a Transport from options whose defaults are applied.
func newTransport(o Options) *Transport {
	t := &Transport{
		base:          o.Base,
		callTimeout:   o.CallTimeout,
		mutationPause: o.MutationPause,
		maxRetries:    o.MaxRetries,
		maxWait:       o.MaxWait,
		sleep:         o.Sleep,
		now:           o.Now,
		rand:          o.Rand,
		logf:          o.Logf,
		pacer:         o.Pacer,
		maxPaceWait:   o.MaxPaceWait,
		installation:  o.Installation,
		onWait:        o.OnWait,
		onBlock:       o.OnBlock,
		contents:      o.Contents,
		mutation:      make(chan struct{}, 1),
	}
	return t
}

// WaitError reports a rate limit whose wait gcloop does not accept: longer than
// MaxWait, or past the deadline of the request's context.
type WaitError struct {
	Method string
	Path   string
	Status int           // 403 or 429
	Wait   time.Duration // what GitHub asked for
	Limit  time.Duration // what was acceptable
	Reason string        // "the longest wait allowed" or "the time left before the deadline"
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("%s %s: rate limited (HTTP %d): GitHub asks to wait %s, more than %s (%s)",
		e.Method, e.Path, e.Status, e.Wait.Round(time.Second), e.Limit.Round(time.Second), e.Reason)
}

// TimeoutError reports an attempt that got no response within CallTimeout.
type TimeoutError struct {
	Method string
	Path   string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s %s: no response within %s", e.Method, e.Path, e.After)
}

// Unwrap lets errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Timeout reports true, like net.Error.
func (e *TimeoutError) Timeout() bool { return true }

func isRead(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// replayable reports whether the method may be sent again after a 5xx,
// transport error or timeout (see the rule on Transport).
func replayable(method string, status int) bool {
	switch {
	case isRead(method):
		return status == 0 || status == 500 || status == 502 || status == 503 || status == 504
	case method == http.MethodPut || method == http.MethodPatch || method == http.MethodDelete:
		return status == 0 || status == 502 || status == 503 || status == 504
	}
	return false
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if req.Method == http.MethodGet && t.contents != nil {
		if r, ok := ctx.Value(revalidationKey{}).(*Revalidation); ok && r != nil {
			return t.revalidate(req, r)
		}
	}
	if !isRead(req.Method) {
		select {
		case t.mutation <- struct{}{}:
		case <-ctx.Done():
			closeBody(req)
			return nil, ctx.Err()
		}
		defer func() {
			t.mu.Lock()
			t.lastMutation = t.now()
			t.mu.Unlock()
			<-t.mutation
		}()
		if err := t.pause(ctx); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	return t.roundTrip(req)
}

// pause waits until MutationPause has passed since the last mutation ended,
// once GitHub has answered with a secondary rate limit; before that, never.
func (t *Transport) pause(ctx context.Context) error {
	if t.mutationPause <= 0 {
		return nil
	}
	t.mu.Lock()
	last, paced := t.lastMutation, t.paced
	t.mu.Unlock()
	if !paced || last.IsZero() {
		return nil
	}
	if d := t.mutationPause - t.now().Sub(last); d > 0 {
		return t.sleep(ctx, d)
	}
	return nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

func (t *Transport) roundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	path := req.URL.Path
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, fmt.Errorf("%s %s: cannot retry: the request body cannot be replayed", req.Method, path)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("%s %s: replay request body: %w", req.Method, path, err)
			}
			req = req.Clone(ctx)
			req.Body = body
		}
		if err := t.admit(req); err != nil {
			closeBody(req)
			return nil, err
		}
		resp, err := t.attempt(req)
		last := attempt >= t.maxRetries
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if last || !replayable(req.Method, 0) {
				return nil, err
			}
			d := t.backoff(serverBackoff, attempt)
			if !t.fits(ctx, d) {
				return nil, err
			}
			t.logf("ghclient: %s %s: %v; retry %d/%d in %s", req.Method, path, err, attempt+1, t.maxRetries, d)
			if err := t.sleep(ctx, d); err != nil {
				return nil, err
			}
			continue
		}

		wait, limited, werr := t.rateLimitWait(req, resp, attempt)
		var blocked bool
		if limited {
			// Every client of the installation is to honour the wait,
			// also one this request does not accept.
			d := wait
			var we *WaitError
			if errors.As(werr, &we) {
				d = we.Wait
			}
			var err error
			if blocked, err = t.block(req, resp, d); err != nil {
				drain(resp)
				return nil, err
			}
		}
		switch {
		case werr != nil:
			drain(resp)
			return nil, werr
		case limited:
			if last {
				return resp, nil
			}
			drain(resp)
			t.logf("ghclient: %s %s: rate limited (HTTP %d); retry %d/%d in %s", req.Method, path, resp.StatusCode, attempt+1, t.maxRetries, wait)
			if blocked {
				continue // the retry's admit waits the block out
			}
			if err := t.sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		case resp.StatusCode >= 500 && !last && replayable(req.Method, resp.StatusCode):
			d := t.backoff(serverBackoff, attempt)
			if ra, ok := t.retryAfter(resp.Header.Get("Retry-After")); ok {
				d = min(ra, t.maxWait)
			}
			if !t.fits(ctx, d) {
				return resp, nil
			}
			drain(resp)
			t.logf("ghclient: %s %s: HTTP %d; retry %d/%d in %s", req.Method, path, resp.StatusCode, attempt+1, t.maxRetries, d)
			if err := t.sleep(ctx, d); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

// attempt sends req once under CallTimeout. The attempt's context is cancelled
// when the returned body is closed, so the body stays readable until then.
func (t *Transport) attempt(req *http.Request) (*http.Response, error) {
	if t.callTimeout <= 0 {
		return t.base.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.callTimeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil
		cancel()
		if timedOut {
			return nil, &TimeoutError{Method: req.Method, Path: req.URL.Path, After: t.callTimeout}
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// drain reads a little of an unwanted body so the connection can be reused,
// then closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// fits reports whether a backoff of d ends before ctx's deadline. A backoff
// that does not is not slept: the request fails at once with what it got,
// in GitHub's words, rather than with a deadline after a useless wait.
func (t *Transport) fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || d < time.Until(dl)
}

// backoff returns base·2^attempt with equal jitter (half fixed, half random),
// capped by MaxWait.
func (t *Transport) backoff(base time.Duration, attempt int) time.Duration {
	d := base << min(attempt, 20)
	if t.maxWait > 0 && d > t.maxWait {
		d = t.maxWait
	}
	half := d / 2
	return half + time.Duration(float64(half)*t.rand())
}

// rateLimitWait decides whether resp is a rate limit and how long to wait
// before the next attempt. It returns a *WaitError when the wait is not
// acceptable. A 403 that is not a rate limit gets its body restored.
func (t *Transport) rateLimitWait(req *http.Request, resp *http.Response, attempt int) (time.Duration, bool, error) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false, nil
	}
	retryAfter := resp.Header.Get("Retry-After")
	remaining := resp.Header.Get("X-RateLimit-Remaining")
	reset := resp.Header.Get("X-RateLimit-Reset")
	limited := resp.StatusCode == http.StatusTooManyRequests || retryAfter != "" || remaining == "0"
	if !limited {
		// Read the body to see whether this 403 is a secondary rate limit,
		// then put it back for go-github to decode.
		body := resp.Body
		data, err := io.ReadAll(io.LimitReader(body, maxErrorBody))
		// What was read goes back in front of the rest, so a body longer
		// than maxErrorBody reaches go-github whole.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(data), body), body}
		if err != nil || !secondaryMessage(data) {
			return 0, false, nil
		}
		limited = true
	}
	if retryAfter != "" || remaining != "0" {
		// Not a primary limit (which says only X-RateLimit-Remaining: 0):
		// a secondary one. Pace mutations from now on.
		t.mu.Lock()
		t.paced = true
		t.mu.Unlock()
	}

	var wait time.Duration
	fromHeader := true
	switch {
	case retryAfter != "":
		wait, fromHeader = t.retryAfter(retryAfter)
	case reset != "":
		if s, err := strconv.ParseInt(strings.TrimSpace(reset), 10, 64); err == nil {
			wait = untilReset(s, t.now())
		} else {
			fromHeader = false
		}
	default:
		fromHeader = false
	}
	if !fromHeader {
		wait = secondaryBackoff << min(attempt, 20)
		if wait > t.maxWait {
			wait = max(t.maxWait, 0)
		}
	}

	if t.maxWait > 0 && wait > t.maxWait {
		return 0, true, &WaitError{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode,
			Wait: wait, Limit: t.maxWait, Reason: "the longest wait allowed"}
	}
	if dl, ok := req.Context().Deadline(); ok {
		if left := time.Until(dl); wait >= left {
			return 0, true, &WaitError{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode,
				Wait: wait, Limit: max(left, 0), Reason: "the time left before the deadline"}
		}
	}
	return wait, limited, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date. ok is
// false when it is absent or unreadable.
func (t *Transport) retryAfter(h string) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(1<<31))) * time.Second, true
	}
	if at, err := http.ParseTime(h); err == nil {
		return max(at.Sub(t.now()), 0), true
	}
	return 0, false
}

// untilReset returns the wait until the epoch second reset, plus one second
// so as not to arrive just before it. A reset in the past waits the one
// second; one too far off for a time.Duration waits the longest Duration
// (which no MaxWait accepts) instead of overflowing into a short wait.
func untilReset(reset int64, now time.Time) time.Duration {
	const maxSecs = int64(math.MaxInt64/time.Second) - 2
	nowSecs := now.Unix()
	if reset <= nowSecs {
		return time.Second
	}
	secs := reset - nowSecs
	if secs < 0 || secs > maxSecs { // overflowed, or beyond a Duration
		return math.MaxInt64
	}
	return max(time.Duration(secs)*time.Second-time.Duration(now.Nanosecond()), 0) + time.Second
}

// secondaryMessage reports whether a 403 body is GitHub's secondary (or abuse)
// rate-limit answer.
func secondaryMessage(body []byte) bool {
	var e struct {
		Message          string `json:"message"`
		DocumentationURL string `json:"documentation_url"`
	}
	_ = json.Unmarshal(body, &e)
	text := strings.ToLower(e.Message)
	if e.Message == "" {
		text = strings.ToLower(string(body))
	}
	return strings.Contains(text, "secondary rate limit") ||
		strings.Contains(text, "abuse") ||
		strings.Contains(text, "rate limit exceeded") ||
		strings.HasSuffix(e.DocumentationURL, "secondary-rate-limits") ||
		strings.HasSuffix(e.DocumentationURL, "#abuse-rate-limits")
}

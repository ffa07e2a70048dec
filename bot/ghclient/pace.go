package ghclient

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// Pacer is the budget an installation's clients share — on every replica,
// when it lives in a shared store (bot/store's PgPacer; MemPacer for one
// replica). Waits are durations from now on the pacer's clock.
type Pacer interface {
	// Reserve books the earliest moment at which installation may send
	// one content-creating request and returns the wait until then; when
	// the wait would be longer than within it books nothing and returns
	// booked false.
	Reserve(ctx context.Context, installation int64, within time.Duration) (wait time.Duration, booked bool, err error)
	// Blocked returns how long installation must still send nothing.
	Blocked(ctx context.Context, installation int64) (time.Duration, error)
	// Block records that GitHub asked installation to send nothing for d.
	Block(ctx context.Context, installation int64, d time.Duration) error
}

// PaceError is a request held back longer than its context (or
// MaxPaceWait) allows: by its installation's budget of content-creating
// requests, or by a block that a rate limit (seen by any replica) set.
// Nothing was sent and, for a content-creating request, nothing was
// booked.
type PaceError struct {
	Method       string
	Path         string
	Installation int64
	Wait         time.Duration // how long the request would have had to wait
	Left         time.Duration // the time left before the context's deadline
}

func (e *PaceError) Error() string {
	return fmt.Sprintf("%s %s: rate limited: installation %d's GitHub budget holds the request back %s, more than the %s left before the deadline",
		e.Method, e.Path, e.Installation, e.Wait.Round(time.Second), e.Left.Round(time.Second))
}

// isWrite reports whether method creates, changes or deletes content: what
// GitHub's secondary limits on content creation count.
func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// admit holds req back as long as the pacer says: a content-creating
// request until its booking, any other until a block in force ends. A wait
// that would end past the context's deadline, or last longer than
// MaxPaceWait, is not started: admit returns a *PaceError at once.
func (t *Transport) admit(req *http.Request) error {
	if t.pacer == nil {
		return nil
	}
	ctx := req.Context()
	left := time.Duration(math.MaxInt64)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	if t.maxPaceWait > 0 {
		left = min(left, t.maxPaceWait)
	}
	write := isWrite(req.Method)
	var (
		wait time.Duration
		ok   = true
		err  error
	)
	if write {
		wait, ok, err = t.pacer.Reserve(ctx, t.installation, left)
	} else {
		wait, err = t.pacer.Blocked(ctx, t.installation)
		ok = wait <= left
	}
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: pace installation %d: %w", req.Method, req.URL.Path, t.installation, err)
	case !ok:
		return &PaceError{Method: req.Method, Path: req.URL.Path, Installation: t.installation, Wait: wait, Left: max(left, 0)}
	case wait <= 0:
		return nil
	}
	t.onWait(t.installation, write, wait)
	t.logf("ghclient: %s %s: installation %d's budget: waiting %s", req.Method, req.URL.Path, t.installation, wait)
	return t.sleep(ctx, wait)
}

// block records a rate limit's wait with the pacer, so that every client
// of the installation honours it, and reports whether it did: the retry's
// admit then waits it out. A primary limit of another resource than the
// REST API's core (search, GraphQL) blocks nothing here.
func (t *Transport) block(req *http.Request, resp *http.Response, wait time.Duration) (bool, error) {
	if t.pacer == nil || wait <= 0 {
		return false, nil
	}
	if r := resp.Header.Get("X-RateLimit-Resource"); r != "" && !strings.EqualFold(r, "core") {
		return false, nil
	}
	if err := t.pacer.Block(req.Context(), t.installation, wait); err != nil {
		return false, fmt.Errorf("%s %s: record installation %d's rate limit: %w", req.Method, req.URL.Path, t.installation, err)
	}
	t.onBlock(t.installation, wait)
	return true, nil
}

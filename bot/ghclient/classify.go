package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
)

// Kind names a class of failure in words a PR comment or a log can show.
type Kind string

// The kinds Classify returns.
const (
	KindNone         Kind = ""                  // no error
	KindRateLimited  Kind = "rate limited"      // 429, 403 rate limit, a wait we refused, or the installation's budget
	KindNotFound     Kind = "not found"         // 404 (also what GitHub answers for a private repo the token cannot see), 410
	KindPermission   Kind = "permission denied" // 403 that is not a rate limit
	KindUnauthorized Kind = "unauthorized"      // 401: missing, expired or revoked token
	KindValidation   Kind = "validation failed" // 422
	KindConflict     Kind = "conflict"          // 409
	KindServer       Kind = "server error"      // 5xx
	KindTimeout      Kind = "timeout"           // per-call or overall deadline
	KindCanceled     Kind = "canceled"          // context canceled
	KindNetwork      Kind = "network error"     // DNS, connection refused, TLS…
	KindOther        Kind = "error"             // anything else
)

// Classify maps an error from the client (or anything wrapping one) to a Kind.
// It handles go-github v62's three rate-limit shapes: *github.RateLimitError
// (403 with X-RateLimit-Remaining: 0), *github.AbuseRateLimitError (403
// secondary limit) and a plain *github.ErrorResponse with status 429.
func Classify(err error) Kind {
	if err == nil {
		return KindNone
	}
	var (
		wait  *WaitError
		pace  *PaceError
		rl    *github.RateLimitError
		abuse *github.AbuseRateLimitError
		tfa   *github.TwoFactorAuthError
		er    *github.ErrorResponse
		to    *TimeoutError
		ne    net.Error
	)
	switch {
	case errors.As(err, &wait), errors.As(err, &pace), errors.As(err, &rl), errors.As(err, &abuse):
		return KindRateLimited
	case errors.As(err, &tfa):
		return KindUnauthorized
	case errors.As(err, &er):
		return classifyStatus(er)
	case errors.As(err, &to), errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.As(err, &ne):
		if ne.Timeout() {
			return KindTimeout
		}
		return KindNetwork
	}
	return KindOther
}

func classifyStatus(er *github.ErrorResponse) Kind {
	status := 0
	if er.Response != nil {
		status = er.Response.StatusCode
	}
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusForbidden && strings.Contains(strings.ToLower(er.Message), "rate limit"):
		return KindRateLimited
	case status == http.StatusUnauthorized:
		return KindUnauthorized
	case status == http.StatusForbidden:
		return KindPermission
	case status == http.StatusNotFound, status == http.StatusGone:
		return KindNotFound
	case status == http.StatusConflict:
		return KindConflict
	case status == http.StatusUnprocessableEntity:
		return KindValidation
	case status >= 500:
		return KindServer
	}
	return KindOther
}

// Describe returns one line for a PR comment or log: the Kind followed by
// what GitHub said, e.g. `validation failed: Validation Failed (body: too long)`.
// It names no URL and no token.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	k := Classify(err)
	var (
		wait *WaitError
		pace *PaceError
		er   *github.ErrorResponse
	)
	switch {
	case errors.As(err, &wait):
		return fmt.Sprintf("%s: GitHub asked to wait %s, more than %s", k, wait.Wait.Round(1e9), wait.Limit.Round(1e9))
	case errors.As(err, &pace):
		return fmt.Sprintf("%s: the installation's GitHub budget asks to wait %s, more than the %s left", k, pace.Wait.Round(1e9), pace.Left.Round(1e9))
	case errors.As(err, &er):
		msg := oneLine(er.Message)
		var details []string
		for _, e := range er.Errors {
			d := oneLine(e.Message)
			if d == "" {
				d = strings.TrimSpace(strings.Join(nonEmpty(e.Resource, e.Field, e.Code), " "))
			}
			if d != "" {
				details = append(details, d)
			}
		}
		if len(details) > 0 {
			msg += " (" + strings.Join(details, "; ") + ")"
		}
		if msg == "" {
			return string(k)
		}
		return string(k) + ": " + msg
	}
	var (
		to  *TimeoutError
		dns *net.DNSError
		op  *net.OpError
	)
	switch {
	case errors.As(err, &to):
		return fmt.Sprintf("%s: no response within %s", k, to.After)
	case k == KindNetwork && errors.As(err, &dns):
		return fmt.Sprintf("%s: lookup %s: %s", k, oneLine(dns.Name), oneLine(dns.Err))
	case k == KindNetwork && errors.As(err, &op) && op.Err != nil:
		return fmt.Sprintf("%s: %s: %s", k, op.Op, oneLine(op.Err.Error()))
	}
	return string(k)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// oneLine collapses whitespace and caps the length, so a message cannot
// break a log line or a table cell.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// Transient reports whether err is a failure that may pass by itself: a
// rate limit, a 5xx, a timeout or a network error. Trying the same work
// again later may succeed; anything else will fail the same way.
func Transient(err error) bool {
	switch Classify(err) {
	case KindRateLimited, KindServer, KindTimeout, KindNetwork:
		return true
	}
	return false
}

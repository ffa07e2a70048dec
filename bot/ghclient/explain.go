package ghclient

import (
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/internal/lazyre"
)

// Explain returns err as one line a person reads in a PR comment, a note, a
// reply or a log: the context its callers wrapped around it, with each
// GitHub failure in it replaced by Describe's words. So
//
//	write the report comment: PATCH https://api.github.com/repos/o/r/issues/comments/7: 422 Validation Failed [...]
//
// reads "write the report comment: validation failed: Validation Failed
// (body is too long)". Whatever URL or token-looking string is left is
// redacted. Explain(nil) is "".
func Explain(err error) string {
	if err == nil {
		return ""
	}
	s := explain(err)
	s = urlPattern().ReplaceAllString(s, "[url]")
	s = tokenPattern().ReplaceAllString(s, "[redacted]")
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxExplain {
		s = string(r[:maxExplain]) + "…"
	}
	return s
}

// Explained wraps err so that its Error() is Explain(err); errors.Is and
// errors.As still see err. Use it where an error is kept to be shown later.
func Explained(err error) error {
	if err == nil {
		return nil
	}
	return &explained{err: err}
}

type explained struct{ err error }

func (e *explained) Error() string { return Explain(e.err) }
func (e *explained) Unwrap() error { return e.err }

// maxExplain caps an explanation, so one error cannot flood a comment.
const maxExplain = 1000

var (
	// urlPattern matches an absolute URL (go-github names the request's).
	urlPattern = lazyre.New(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>]*[^\s"'<>.,:;)]`)
	// tokenPattern matches GitHub token formats and bearer credentials.
	tokenPattern = lazyre.New(`\b(gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,})\b|(?i)\b(bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}`)
)

// explain rewrites err's text: a GitHub failure becomes Describe's words;
// a wrapper keeps its own words and has the text of each error it wraps
// rewritten in place.
func explain(err error) string {
	if gitHubFailure(err) {
		if ue, ok := err.(*url.Error); ok && Classify(ue.Err) == KindOther {
			// A transport error that is not GitHub's: say what it is.
			return explain(ue.Err)
		}
		return Describe(err)
	}
	text := err.Error()
	var inner []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			inner = []error{e}
		}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	for _, e := range inner {
		if e == nil {
			continue
		}
		if t := e.Error(); t != "" && strings.Contains(text, t) {
			text = strings.Replace(text, t, explain(e), 1)
		}
	}
	return text
}

// gitHubFailure reports whether err itself (not what it wraps) is an
// answer of GitHub or of the transport to it, whose text names the request.
func gitHubFailure(err error) bool {
	switch err.(type) {
	case *github.ErrorResponse, *github.RateLimitError, *github.AbuseRateLimitError,
		*github.TwoFactorAuthError, *WaitError, *PaceError, *TimeoutError, *url.Error:
		return true
	}
	return false
}

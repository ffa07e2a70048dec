package publish

import (
	"errors"
	"strings"

	"github.com/google/go-github/v62/github"
)

// statusOf returns the HTTP status of a GitHub error response, 0 when err
// is not one.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// alreadyExists reports whether err is GitHub's 422 for a resource that
// exists already (a label created by a concurrent run).
func alreadyExists(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != 422 {
		return false
	}
	for _, e := range er.Errors {
		if e.Code == "already_exists" {
			return true
		}
	}
	return false
}

// safeLogin makes a GitHub login safe to quote in a note: logins hold
// letters, digits and '-' (and a bot's "[bot]" suffix); anything else
// becomes '?', and it is capped at 64 bytes. The caller puts it in a code
// span, without '@', so quoting it never pings anyone.
func safeLogin(s string) string {
	if s == "" {
		return "(unknown)"
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '[', c == ']':
			b.WriteByte(c)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

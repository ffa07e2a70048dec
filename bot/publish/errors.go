package publish

import (
	"errors"

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

package ghfake

import (
	"net/http"
	"net/url"

	"github.com/google/go-github/v62/github"
)

// ErrorResponse is the error go-github returns when GitHub answers method
// path with status, errs being a 422's error objects: what a small
// recording fake of a logic test returns to fail the way GitHub fails.
func ErrorResponse(status int, method, path string, errs ...github.Error) error {
	u := &url.URL{Scheme: "https", Host: "api.github.com", Path: path}
	return &github.ErrorResponse{
		Response: &http.Response{StatusCode: status, Status: http.StatusText(status), Request: &http.Request{Method: method, URL: u}},
		Message:  http.StatusText(status),
		Errors:   errs,
	}
}

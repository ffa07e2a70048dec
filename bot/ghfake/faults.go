package ghfake

// Fault injection: failing and delaying the requests that match a pattern.

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// FailRule makes matching requests fail. Pattern is "METHOD /path", where
// the path is either an operation's template from the description
// ("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}") or a
// concrete path in which "{...}" segments match any one segment. Method
// "*" matches any method. A path of the artifact storage the download
// redirects to ("/artifacts/{id}") or of the raw file host (a
// download_url, "/raw/{owner}/{repo}/{ref}/{path}") makes that download
// fail.
type FailRule struct {
	Pattern string
	// Status is 401, 403, 429, a 5xx, a redirect (3xx, see Location), or
	// an answer GitHub gives about the resource: 404 (gone meanwhile), 409,
	// 410 or 422 (refused). Off the API (the artifact storage, the raw
	// file host) any status is sent as is. A 403
	// without RateLimitReset is a secondary rate limit (go-github's
	// *AbuseRateLimitError); with it, a primary one (X-RateLimit-Remaining:
	// 0, *RateLimitError). The answers about the resource are validated
	// against the operation's description like any other response.
	Status int
	// Times is how many matching requests fail; 0 means every one.
	Times int
	// RetryAfter, if positive, is sent as the Retry-After header (seconds).
	// A 5xx rule with RetryAfter 0 sends "Retry-After: 0", so that a client
	// retries at once: backoff is tested with an injected clock, and a test
	// of the built binary must not sleep through it. Negative sends none.
	RetryAfter int
	// RetryNow sends "Retry-After: 0" with a rate limit (403, 429) too, so
	// that a test of the built binary sees the retry without a real wait.
	RetryNow bool
	// RateLimitReset marks a 403 as a primary rate limit resetting then.
	RateLimitReset time.Time
	// Message overrides the error body's message.
	Message string
	// Errors are the error objects of a 422 (GitHub's validation-error).
	Errors []FieldError
	// NotPermitted makes a 403 a refusal of the token ("Resource not
	// accessible by integration"), not a rate limit.
	NotPermitted bool
	// Location is where a 3xx rule redirects; empty redirects to the
	// request's own URL (its next request then meets the next rule, or
	// none).
	Location string
}

// FieldError is one entry of a 422's errors: what GitHub refused.
type FieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// resourceAnswer reports whether an injected status is an answer about
// the resource, one the description may declare for the operation.
func resourceAnswer(status int) bool {
	switch status {
	case http.StatusNotFound, http.StatusConflict, http.StatusGone, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

type failState struct {
	rule FailRule
	left int // -1: unlimited
}

type delayRule struct {
	pattern string
	d       time.Duration
}

// reporter is what the fake needs of its user to report a misuse of the
// Fail adds a fault-injection rule; rules are tried in the order added.
func (s *Server) Fail(rule FailRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := rule.Times
	if left <= 0 {
		left = -1
	}
	s.fails = append(s.fails, &failState{rule: rule, left: left})
}

// Delay makes every request matching pattern (as in FailRule) wait d
// before it is handled.
func (s *Server) Delay(pattern string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays = append(s.delays, delayRule{pattern: pattern, d: d})
}

// matchPattern reports whether "METHOD /path" pattern matches a request
// whose operation template is tmpl and escaped path is path.
func matchPattern(pattern, method, tmpl, path string) bool {
	pm, pp, ok := strings.Cut(strings.TrimSpace(pattern), " ")
	if !ok {
		return false
	}
	if pm != "*" && !strings.EqualFold(pm, method) {
		return false
	}
	pp = strings.TrimSpace(pp)
	if tmpl != "" && pp == tmpl {
		return true
	}
	want := strings.Split(strings.Trim(pp, "/"), "/")
	got := strings.Split(strings.Trim(path, "/"), "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if strings.HasPrefix(want[i], "{") && strings.HasSuffix(want[i], "}") {
			continue
		}
		if u, err := url.PathUnescape(got[i]); err == nil && u == want[i] {
			continue
		}
		if want[i] != got[i] {
			return false
		}
	}
	return true
}

// injectFault answers req with the first matching FailRule, if any; tmpl
// is the operation's template ("" off the API) and path req's escaped path.
func (s *Server) injectFault(w http.ResponseWriter, req *http.Request, tmpl, path string) bool {
	s.mu.Lock()
	var rule *FailRule
	for _, f := range s.fails {
		if f.left == 0 || !matchPattern(f.rule.Pattern, req.Method, tmpl, path) {
			continue
		}
		if f.left > 0 {
			f.left--
		}
		r := f.rule
		rule = &r
		break
	}
	s.mu.Unlock()
	if rule == nil {
		return false
	}
	if rule.Status >= 300 && rule.Status < 400 {
		loc := rule.Location
		if loc == "" {
			loc = req.URL.RequestURI()
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(rule.Status)
		return true
	}
	msg, doc := rule.Message, "https://docs.github.com/rest"
	switch {
	case rule.Status == http.StatusForbidden && rule.NotPermitted:
		if msg == "" {
			msg = "Resource not accessible by integration"
		}
	case rule.Status == http.StatusForbidden && !rule.RateLimitReset.IsZero():
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(rule.RateLimitReset.Unix(), 10))
		if msg == "" {
			msg = "API rate limit exceeded for installation."
		}
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
	case rule.Status == http.StatusForbidden || rule.Status == http.StatusTooManyRequests:
		if msg == "" {
			msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		}
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	case rule.Status == http.StatusUnauthorized:
		if msg == "" {
			msg = "Bad credentials"
		}
	case rule.Status == http.StatusUnprocessableEntity:
		if msg == "" {
			msg = "Validation Failed"
		}
	default:
		if msg == "" {
			msg = http.StatusText(rule.Status)
		}
	}
	switch {
	case rule.RetryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(rule.RetryAfter))
	case rule.RetryAfter == 0 && (rule.RetryNow || rule.Status >= 500):
		w.Header().Set("Retry-After", "0")
	}
	if len(rule.Errors) > 0 {
		writeJSON(w, rule.Status, obj{"message": msg, "documentation_url": doc, "errors": rule.Errors})
		return true
	}
	writeError(w, rule.Status, msg, doc)
	return true
}

// Package ghfake is an in-process fake of the GitHub REST API for tests.
//
// A Server is a real HTTP server (httptest) that implements the operations
// of GitHub's own REST description trimmed to what gcloop uses
// (a copy of ../shared/github-openapi/openapi-subset.json, embedded from openapi/). Tests
// build the world (repositories, tokens, pulls, comments, runs, artifacts,
// git objects), point go-github or the gcloop binary at URL (for example
// through GITHUB_API_URL), and inspect what was done afterwards. Every
// request the fake receives and every response it sends is validated against
// the description; violations fail the test at cleanup, so a test fails
// where GitHub would refuse the request.
//
// The fake answers like GitHub: Link pagination, X-RateLimit headers,
// 401/404/422 error bodies, secondary rate limits on request (Fail), and an
// artifact download that redirects to a second, token-refusing blob server.
//
// Outside tests, Start runs the same fake on loopback: `gcloop bot --demo`
// plays its sample world against it.
package ghfake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/go-github/v62/github"
)

// Server is a fake GitHub REST API. All methods are safe for concurrent use.
type Server struct {
	t    reporter
	spec *spec
	api  *httptest.Server
	blob *httptest.Server

	mu          sync.Mutex
	now         func() time.Time
	repos       map[string]*repoState // by lower-case "owner/name"
	tokens      map[string]string     // token → login
	users       map[string]*userState // by lower-case login
	nextID      int64
	requests    []Request
	violations  []string
	fails       []*failState
	delays      []delayRule
	perPage     int
	artifactTTL time.Duration
	used        map[string]int // requests per login, for X-RateLimit-*
	artifacts   map[int64]*artifactState
	forbidden   map[string]bool // "login scope" → refused (Forbid)
	start       time.Time

	apps     map[int64]*appState  // GitHub Apps by id (app.go)
	expires  map[string]time.Time // installation token → expiry
	issued   []IssuedToken
	tokenTTL time.Duration
}

// Request is one request the fake received, in arrival order.
type Request struct {
	Method    string
	Path      string // escaped path, e.g. /repos/o/r/git/ref/heads/feature%2Fx
	RawQuery  string
	Header    http.Header
	Body      []byte
	Status    int    // status the fake answered
	Operation string // operationId matched in the description, "" if none
	// Arrived is when the request reached the fake, by the real clock
	// (not SetClock's): the spacing of a client's requests.
	Arrived time.Time
}

// FailRule makes matching requests fail. Pattern is "METHOD /path", where
// the path is either an operation's template from the description
// ("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}") or a
// concrete path in which "{...}" segments match any one segment. Method
// "*" matches any method.
type FailRule struct {
	Pattern string
	// Status is 401, 403, 429, or a 5xx. A 403 without RateLimitReset is a
	// secondary rate limit (go-github's *AbuseRateLimitError); with it, a
	// primary one (X-RateLimit-Remaining: 0, *RateLimitError).
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
// methods that build the world (a repository not added): testing.TB in
// tests, a stand-in that panics outside them (Start).
type reporter interface {
	Helper()
	Fatalf(format string, args ...any)
}

// New starts a fake GitHub and registers its shutdown with t.Cleanup; at
// cleanup every recorded violation of the description is reported with
// t.Errorf. New fails the test if the description cannot be loaded.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := start(t)
	if err != nil {
		t.Fatalf("ghfake: %v", err)
	}
	t.Cleanup(func() {
		s.api.Close()
		s.blob.Close()
		for _, v := range s.Violations() {
			t.Errorf("ghfake: GitHub would refuse this: %s", v)
		}
	})
	return s
}

// Start starts a fake GitHub outside a test, on loopback: `gcloop bot
// --demo` serves one. It is New's fake with two differences: a misuse of
// the methods that build the world panics where a test would fail, and
// the violations of the description are returned by Close rather than
// reported at a test's cleanup.
func Start() (*Server, error) {
	return start(panicker{})
}

// Close shuts the fake down (a Server from Start) and returns every
// violation of the description it recorded, joined, or nil.
func (s *Server) Close() error {
	s.api.Close()
	s.blob.Close()
	var errs []error
	for _, v := range s.Violations() {
		errs = append(errs, fmt.Errorf("ghfake: GitHub would refuse this: %s", v))
	}
	return errors.Join(errs...)
}

// panicker is the reporter outside tests: a misuse is a programming error.
type panicker struct{}

func (panicker) Helper() {}
func (panicker) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

func start(r reporter) (*Server, error) {
	sp, err := loadSpec()
	if err != nil {
		return nil, err
	}
	s := &Server{
		t:           r,
		spec:        sp,
		now:         func() time.Time { return time.Now().UTC().Truncate(time.Second) },
		repos:       map[string]*repoState{},
		tokens:      map[string]string{},
		users:       map[string]*userState{},
		nextID:      1000,
		artifactTTL: time.Minute,
		used:        map[string]int{},
		artifacts:   map[int64]*artifactState{},
		apps:        map[int64]*appState{},
		expires:     map[string]time.Time{},
	}
	s.start = s.now()
	s.api = httptest.NewServer(http.HandlerFunc(s.serveAPI))
	s.blob = httptest.NewServer(http.HandlerFunc(s.serveBlob))
	return s, nil
}

// URL is the API base URL with a trailing slash: what GITHUB_API_URL is set
// to and what go-github's BaseURL must be.
func (s *Server) URL() string { return s.api.URL + "/" }

// Client returns a go-github client that sends token and talks to the fake.
func (s *Server) Client(token string) *github.Client {
	c := github.NewClient(s.api.Client()).WithAuthToken(token)
	base, err := url.Parse(s.URL())
	if err != nil {
		s.t.Fatalf("ghfake: parse own URL %q: %v", s.URL(), err)
	}
	c.BaseURL = base
	c.UploadURL = base
	return c
}

// SetClock replaces the clock used for timestamps (created_at, since
// filters, artifact link expiry). The default is the wall clock in UTC,
// truncated to seconds.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// SetPerPage forces every list to pages of at most n items, whatever
// per_page the client asks for. 0 restores GitHub's rule (default 30,
// maximum 100).
func (s *Server) SetPerPage(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perPage = n
}

// SetArtifactURLExpiry sets how long an artifact download Location stays
// valid (GitHub: about one minute); after that the blob server answers 410.
func (s *Server) SetArtifactURLExpiry(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.artifactTTL = d
}

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

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = bytes.Clone(r.Body)
		out[i] = r
	}
	return out
}

// Violations returns every request or response found not to conform to
// the description, in order.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

func (s *Server) violation(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = append(s.violations, fmt.Sprintf(format, args...))
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

// serveAPI is the API server's handler: record, authenticate, inject
// faults, validate, dispatch, validate the response, answer.
func (s *Server) serveAPI(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))

	path := req.URL.EscapedPath()
	rt, params, pathKnown := s.spec.match(req.Method, path)
	tmpl, opID := "", ""
	if rt != nil {
		tmpl, opID = rt.template, rt.opID
	}

	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, Request{
		Method: req.Method, Path: path, RawQuery: req.URL.RawQuery,
		Header: req.Header.Clone(), Body: bytes.Clone(body), Operation: opID,
		Arrived: time.Now(),
	})
	var delay time.Duration
	for _, d := range s.delays {
		if matchPattern(d.pattern, req.Method, tmpl, path) {
			delay += d.d
		}
	}
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
		}
	}

	rec := httptest.NewRecorder()
	login, authed := s.authenticate(req)
	s.rateHeaders(rec.Header(), req)
	injected := true
	switch {
	case !authed:
		writeError(rec, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
	case s.injectFault(rec, req.Method, tmpl, path):
	case rt == nil && pathKnown:
		s.violation("%s %s: method not allowed by the description", req.Method, path)
		writeError(rec, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	case rt == nil:
		s.violation("%s %s: no operation of the description matches", req.Method, path)
		writeError(rec, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	default:
		injected = false
	}

	var vin *openapi3filter.RequestValidationInput
	if rt != nil {
		in, err := s.spec.validateRequest(rt, params, req, body)
		if err != nil {
			s.violation("request %s %s (%s): %v", req.Method, path, opID, err)
		}
		vin = in
		if !injected {
			c := &call{s: s, w: rec, req: req, body: body, params: params, login: login, op: opID}
			s.dispatch(c)
		}
	}

	status := rec.Code
	if rt != nil && !injected {
		raw := isRawAccept(req.Header.Get("Accept")) && status == http.StatusOK
		if err := s.spec.validateResponse(vin, status, rec.Header(), rec.Body.Bytes(), raw); err != nil {
			s.violation("response %d to %s %s (%s): %v", status, req.Method, path, opID, err)
		}
	}

	s.mu.Lock()
	s.requests[idx].Status = status
	s.mu.Unlock()

	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(rec.Body.Bytes())
}

// authenticate maps the Authorization header to a known login.
func (s *Server) authenticate(req *http.Request) (string, bool) {
	h := req.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || (!strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token")) {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok = strings.TrimSpace(tok)
	login, ok := s.tokenLogin(tok)
	if ok {
		s.used[login]++
		return login, true
	}
	if id, err := s.appOfJWT(tok); err == nil {
		return jwtLogin + strconv.FormatInt(id, 10), true
	}
	return "", false
}

const rateLimit = 5000

// rateHeaders sets GitHub's X-RateLimit-* headers for the caller.
func (s *Server) rateHeaders(h http.Header, req *http.Request) {
	_, tok, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	s.mu.Lock()
	used := s.used[s.tokens[strings.TrimSpace(tok)]]
	reset := s.start.Add(time.Hour).Unix()
	s.mu.Unlock()
	remaining := rateLimit - used
	if remaining < 0 {
		remaining = 0
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

// injectFault answers with the first matching FailRule, if any.
func (s *Server) injectFault(w http.ResponseWriter, method, tmpl, path string) bool {
	s.mu.Lock()
	var rule *FailRule
	for _, f := range s.fails {
		if f.left == 0 || !matchPattern(f.rule.Pattern, method, tmpl, path) {
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
	msg, doc := rule.Message, "https://docs.github.com/rest"
	switch {
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
	writeError(w, rule.Status, msg, doc)
	return true
}

// serveBlob is the artifact storage server the download redirects to. Like
// GitHub's storage it refuses requests that carry an Authorization header
// and links past their expiry.
func (s *Server) serveBlob(w http.ResponseWriter, req *http.Request) {
	if req.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>InvalidAuthenticationInfo</Code><Message>Authentication information is not given in the correct format.</Message></Error>`)
		return
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	exp, err := strconv.ParseInt(req.URL.Query().Get("se"), 10, 64)
	var id int64
	if err == nil && len(parts) == 2 && parts[0] == "artifacts" {
		id, err = strconv.ParseInt(parts[1], 10, 64)
	} else if err == nil {
		err = fmt.Errorf("bad blob path %q", req.URL.Path)
	}
	s.mu.Lock()
	now := s.now()
	var data []byte
	found := false
	if a, ok := s.artifacts[id]; ok && err == nil && a.token == req.URL.Query().Get("sig") {
		data, found = a.zip, true
	}
	s.mu.Unlock()
	switch {
	case !found:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>`)
	case now.Unix() > exp:
		http.Error(w, "download link expired", http.StatusGone)
	default:
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data)
	}
}

func isRawAccept(accept string) bool {
	return strings.Contains(accept, "application/vnd.github.raw") || strings.Contains(accept, "application/vnd.github.v3.raw")
}

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
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// Server is a fake GitHub REST API. All methods are safe for concurrent use.
type Server struct {
	t    reporter
	spec *spec
	api  *httptest.Server
	blob *httptest.Server

	mu       sync.Mutex
	now      func() time.Time
	repos    map[string]*repoState // by lower-case "owner/name"
	tokens   map[string]string     // token → login
	users    map[string]*userState // by lower-case login
	nextID   int64
	requests []Request
	// blobRequests are the requests to the hosts outside the API.
	blobRequests    []Request
	streamArtifacts bool
	oauthApps       map[string]string    // OAuth client id → secret
	oauthCodes      map[string]oauthCode // web flow code → what it gives
	violations      []string
	fails           []*failState
	delays          []delayRule
	perPage         int
	artifactTTL     time.Duration
	used            map[string]int // requests per login, for X-RateLimit-*
	artifacts       map[int64]*artifactState
	forbidden       map[string]bool // "login scope" → refused (Forbid)
	start           time.Time

	apps     map[int64]*appState  // GitHub Apps by id (app.go)
	expires  map[string]time.Time // installation token → expiry
	issued   []IssuedToken
	tokenTTL time.Duration

	associated map[string][]int // "owner/name@sha" → pull requests (AssociatePulls)
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

// RequestLines returns every request received so far as "METHOD /path",
// with "?query" when it had one, in order: what a test compares with the
// requests it expects.
func (s *Server) RequestLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.Method + " " + r.Path
		if r.RawQuery != "" {
			out[i] += "?" + r.RawQuery
		}
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

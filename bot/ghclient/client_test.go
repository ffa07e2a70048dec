package ghclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// now is the fixed clock of the tests.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sleeps records the waits the transport asks for instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// setup returns a client talking to a fresh httptest server, its mux, and the
// recorder of sleeps. o's zero fields get test values: no pause, fixed clock,
// jitter 0, recorded sleeps.
//
// The tests of the transport itself use this bare server, not the fake
// GitHub: they need what no fake of GitHub's API gives — raw status
// sequences with any header ("Retry-After: soon"), requests held in flight
// to see how many overlap, a body sent in halves, paths of no operation,
// and a GHES root. Tests of what the client sends GitHub use the fake.
func setup(t *testing.T, o Options) (*github.Client, *http.ServeMux, *sleeps) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := &sleeps{}
	if o.Token == "" {
		o.Token = "t0ken"
	}
	o.BaseURL = srv.URL
	if o.MutationPause == 0 {
		o.MutationPause = -1
	}
	if o.Sleep == nil {
		o.Sleep = s.sleep
	}
	if o.Now == nil {
		o.Now = func() time.Time { return now }
	}
	if o.Rand == nil {
		o.Rand = func() float64 { return 0 }
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, mux, s
}

// reply is one canned answer of the test server.
type reply struct {
	status  int
	headers map[string]string
	body    string
}

func secondaryBody() string {
	return `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
}

func TestTransportRetries(t *testing.T) {
	t.Parallel()
	ok := reply{status: 200, body: `{"id":1}`}
	bad := func(status int) reply { return reply{status: status, body: `{"message":"Server Error"}`} }
	reset := strconv.FormatInt(now.Add(10*time.Second).Unix(), 10)
	tests := []struct {
		name       string
		method     string
		replies    []reply // the last one repeats
		maxRetries int
		wantCalls  int
		wantSleeps []time.Duration
		wantKind   Kind
	}{
		{name: "a GET that fails with 502 twice is retried and succeeds on the third attempt",
			method: "GET", replies: []reply{bad(502), bad(502), ok}, wantCalls: 3,
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "a GET is retried on 500 until the retries run out",
			method: "GET", replies: []reply{bad(500)}, wantCalls: 5, wantKind: KindServer,
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "a GET that fails with 503 and Retry-After 0 is retried at once",
			method: "GET", replies: []reply{{status: 503, headers: map[string]string{"Retry-After": "0"}}, ok}, wantCalls: 2,
			wantSleeps: []time.Duration{0}},
		{name: "a PATCH that fails with 502 and Retry-After 3 waits three seconds, not the backoff",
			method: "PATCH", replies: []reply{{status: 502, headers: map[string]string{"Retry-After": "3"}}, ok}, wantCalls: 2,
			wantSleeps: []time.Duration{3 * time.Second}},
		{name: "a 5xx Retry-After past MaxWait waits MaxWait",
			method: "GET", replies: []reply{{status: 503, headers: map[string]string{"Retry-After": "3600"}}, ok}, wantCalls: 2,
			wantSleeps: []time.Duration{time.Minute}},
		{name: "an unreadable 5xx Retry-After falls back to the backoff",
			method: "GET", replies: []reply{{status: 503, headers: map[string]string{"Retry-After": "soon"}}, ok}, wantCalls: 2,
			wantSleeps: []time.Duration{500 * time.Millisecond}},
		{name: "a POST that fails with 503 and Retry-After 0 is still not retried",
			method: "POST", replies: []reply{{status: 503, headers: map[string]string{"Retry-After": "0"}}, ok}, wantCalls: 1, wantKind: KindServer},
		{name: "a POST that fails with 502 is not retried",
			method: "POST", replies: []reply{bad(502), ok}, wantCalls: 1, wantKind: KindServer},
		{name: "a POST that fails with 503 is not retried",
			method: "POST", replies: []reply{bad(503), ok}, wantCalls: 1, wantKind: KindServer},
		{name: "a PATCH that fails with 503 is retried",
			method: "PATCH", replies: []reply{bad(503), ok}, wantCalls: 2,
			wantSleeps: []time.Duration{500 * time.Millisecond}},
		{name: "a DELETE that fails with 504 is retried",
			method: "DELETE", replies: []reply{bad(504), {status: 204}}, wantCalls: 2,
			wantSleeps: []time.Duration{500 * time.Millisecond}},
		{name: "a PATCH that fails with 500 is not retried because the change may be half applied",
			method: "PATCH", replies: []reply{bad(500), ok}, wantCalls: 1, wantKind: KindServer},
		{name: "a 429 with Retry-After 2 waits two seconds then succeeds, even for a POST",
			method: "POST", replies: []reply{{status: 429, headers: map[string]string{"Retry-After": "2"}, body: `{"message":"too many"}`}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{2 * time.Second}},
		{name: "a 403 secondary limit with X-RateLimit-Reset waits until the reset plus a second",
			method: "POST", replies: []reply{{status: 403, headers: map[string]string{"X-RateLimit-Reset": reset}, body: secondaryBody()}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{11 * time.Second}},
		{name: "a 403 primary limit with remaining 0 waits until the reset",
			method: "GET", replies: []reply{{status: 403, headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, body: `{"message":"API rate limit exceeded for installation ID 1."}`}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{11 * time.Second}},
		{name: "a 403 secondary limit without headers waits a minute",
			method: "PUT", replies: []reply{{status: 403, body: secondaryBody()}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{time.Minute}},
		{name: "a 403 that mentions abuse is a secondary limit",
			method: "GET", replies: []reply{{status: 403, headers: map[string]string{"Retry-After": "1"}, body: `{"message":"You have triggered an abuse detection mechanism."}`}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "a 429 without headers waits a minute",
			method: "GET", replies: []reply{{status: 429, body: `{}`}, ok},
			wantCalls: 2, wantSleeps: []time.Duration{time.Minute}},
		{name: "a 429 Retry-After beyond MaxWait fails at once without sleeping",
			method: "GET", replies: []reply{{status: 429, headers: map[string]string{"Retry-After": "120"}}, ok},
			wantCalls: 1, wantKind: KindRateLimited},
		{name: "a 429 that never ends is retried then reported as rate limited",
			method: "POST", replies: []reply{{status: 429, headers: map[string]string{"Retry-After": "1"}, body: `{"message":"slow down"}`}},
			maxRetries: 2, wantCalls: 3, wantKind: KindRateLimited,
			wantSleeps: []time.Duration{time.Second, time.Second}},
		{name: "a 403 secondary limit that never ends is reported as rate limited",
			method: "GET", replies: []reply{{status: 403, headers: map[string]string{"Retry-After": "3"}, body: secondaryBody()}},
			maxRetries: 1, wantCalls: 2, wantKind: KindRateLimited,
			wantSleeps: []time.Duration{3 * time.Second}},
		{name: "a 403 that is not a rate limit is permission denied and not retried",
			method: "GET", replies: []reply{{status: 403, body: `{"message":"Resource not accessible by integration"}`}, ok},
			wantCalls: 1, wantKind: KindPermission},
		{name: "a 404 is not found and not retried",
			method: "GET", replies: []reply{{status: 404, body: `{"message":"Not Found"}`}, ok},
			wantCalls: 1, wantKind: KindNotFound},
		{name: "a 422 is a validation failure and not retried",
			method: "POST", replies: []reply{{status: 422, body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}]}`}, ok},
			wantCalls: 1, wantKind: KindValidation},
		{name: "no retries at all when MaxRetries is negative",
			method: "GET", replies: []reply{bad(502), ok}, maxRetries: -1, wantCalls: 1, wantKind: KindServer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux, s := setup(t, Options{MaxRetries: tc.maxRetries})
			var calls atomic.Int32
			mux.HandleFunc("/repos/o/r/thing", func(w http.ResponseWriter, r *http.Request) {
				if r.Method != tc.method {
					t.Errorf("method = %s, want %s", r.Method, tc.method)
				}
				n := int(calls.Add(1))
				rep := tc.replies[min(n, len(tc.replies))-1]
				for k, v := range rep.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(rep.status)
				io.WriteString(w, rep.body)
			})
			req, err := client.NewRequest(tc.method, "repos/o/r/thing", map[string]string{"body": "x"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Do(context.Background(), req, nil)
			if got := Classify(err); got != tc.wantKind {
				t.Errorf("Classify(%v) = %q, want %q", err, got, tc.wantKind)
			}
			if got := int(calls.Load()); got != tc.wantCalls {
				t.Errorf("server saw %d attempts, want %d", got, tc.wantCalls)
			}
			if diff := cmp.Diff(tc.wantSleeps, s.got()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransportErrorShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply reply
		check func(t *testing.T, err error)
	}{
		{name: "a 403 permission error keeps GitHub's message for go-github to decode",
			reply: reply{status: 403, body: `{"message":"Resource not accessible by integration"}`},
			check: func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Message != "Resource not accessible by integration" {
					t.Errorf("err = %#v, want *github.ErrorResponse with GitHub's message", err)
				}
			}},
		{name: "a 403 secondary limit that outlasts the retries reaches the caller as *github.AbuseRateLimitError",
			reply: reply{status: 403, headers: map[string]string{"Retry-After": "1"}, body: secondaryBody()},
			check: func(t *testing.T, err error) {
				var ae *github.AbuseRateLimitError
				if !errors.As(err, &ae) {
					t.Errorf("err = %#v, want *github.AbuseRateLimitError", err)
				}
			}},
		{name: "a 429 that outlasts the retries reaches the caller as a 429 *github.ErrorResponse",
			reply: reply{status: 429, headers: map[string]string{"Retry-After": "1"}, body: `{"message":"slow"}`},
			check: func(t *testing.T, err error) {
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 429 {
					t.Errorf("err = %#v, want a 429 *github.ErrorResponse", err)
				}
			}},
		{name: "a wait beyond MaxWait is a *WaitError that says how long GitHub asked for",
			reply: reply{status: 429, headers: map[string]string{"Retry-After": "3600"}},
			check: func(t *testing.T, err error) {
				var we *WaitError
				if !errors.As(err, &we) {
					t.Fatalf("err = %#v, want *WaitError", err)
				}
				want := &WaitError{Method: "GET", Path: "/x", Status: 429, Wait: time.Hour, Limit: time.Minute, Reason: "the longest wait allowed"}
				if diff := cmp.Diff(want, we); diff != "" {
					t.Errorf("WaitError (-want +got):\n%s", diff)
				}
				if got, want := Describe(err), "rate limited: GitHub asked to wait 1h0m0s, more than 1m0s"; got != want {
					t.Errorf("Describe = %q, want %q", got, want)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux, _ := setup(t, Options{MaxRetries: 1})
			mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.reply.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.reply.status)
				io.WriteString(w, tc.reply.body)
			})
			req, _ := client.NewRequest("GET", "x", nil)
			_, err := client.Do(context.Background(), req, nil)
			if err == nil {
				t.Fatal("no error")
			}
			tc.check(t, err)
		})
	}
}

func TestTransportRefusesWaitPastTheDeadline(t *testing.T) {
	t.Parallel()
	client, mux, s := setup(t, Options{})
	var calls atomic.Int32
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := client.NewRequest("GET", "x", nil)
	_, err := client.Do(ctx, req, nil)
	var we *WaitError
	if !errors.As(err, &we) || we.Reason != "the time left before the deadline" {
		t.Fatalf("err = %v, want a *WaitError about the deadline", err)
	}
	if we.Limit > 5*time.Second || we.Wait != 30*time.Second {
		t.Errorf("WaitError = %+v, want Wait 30s and Limit ≤ 5s", we)
	}
	if got := s.got(); len(got) != 0 {
		t.Errorf("slept %v, want no sleep", got)
	}
	if calls.Load() != 1 {
		t.Errorf("attempts = %d, want 1", calls.Load())
	}
}

func TestTransportReplaysTheRequestBody(t *testing.T) {
	t.Parallel()
	gh, _, _ := contentsWorld(t, 0)
	gh.AddIssue(fakeOwner, fakeRepo, ghfake.IssueSpec{Title: "t", Author: "alice"})
	id := gh.AddComment(fakeOwner, fakeRepo, 1, "gcloop[bot]", "before")
	gh.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: 502, Times: 1})
	s := &sleeps{}
	client, err := New(Options{Token: fakeToken, BaseURL: gh.URL(), MutationPause: -1, Sleep: s.sleep, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := client.Issues.EditComment(context.Background(), fakeOwner, fakeRepo, id, &github.IssueComment{Body: github.String("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if c.GetBody() != "hello" {
		t.Errorf("comment body = %q", c.GetBody())
	}
	var bodies []string
	for _, r := range gh.Requests() {
		bodies = append(bodies, r.Method+" "+string(r.Body))
	}
	want := []string{`PATCH {"body":"hello"}` + "\n", `PATCH {"body":"hello"}` + "\n"}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("request bodies (-want +got):\n%s", diff)
	}
}

func TestTransportSerializesMutations(t *testing.T) {
	t.Parallel()
	client, mux, s := setup(t, Options{MutationPause: time.Second})
	var inflight, most, posts atomic.Int32
	mux.HandleFunc("/repos/o/r/issues/1/comments", func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if r.Method == "POST" {
			posts.Add(1)
		}
		time.Sleep(5 * time.Millisecond)
		fmt.Fprint(w, `{"id":1}`)
	})
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := client.Issues.CreateComment(context.Background(), "o", "r", 1, &github.IssueComment{Body: github.String(strconv.Itoa(i))})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("at most %d mutations were in flight at once, want 1", most.Load())
	}
	if posts.Load() != n {
		t.Errorf("server saw %d POSTs, want %d", posts.Load(), n)
	}
	// GitHub showed no sign of a secondary limit: one at a time, no pause
	// (TestMutationsArePacedOnlyAfterASecondaryLimit covers the pacing).
	if got := s.got(); len(got) != 0 {
		t.Errorf("mutations paused %v, want no pause", got)
	}
}

func TestTransportReadsAreNotSerialized(t *testing.T) {
	t.Parallel()
	client, mux, s := setup(t, Options{MutationPause: time.Second})
	release := make(chan struct{})
	var inflight atomic.Int32
	mux.HandleFunc("/repos/o/r/issues/1", func(w http.ResponseWriter, r *http.Request) {
		if inflight.Add(1) == 2 {
			close(release)
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
			t.Error("the second GET never arrived while the first was in flight")
		}
		fmt.Fprint(w, `{"number":1}`)
	})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := client.Issues.Get(context.Background(), "o", "r", 1); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := s.got(); len(got) != 0 {
		t.Errorf("reads paused %v, want no pause", got)
	}
}

func TestTransportCallTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		method     string
		slow       int32 // how many first attempts hang
		wantCalls  int32
		wantKind   Kind
		maxRetries int
	}{
		{name: "a GET that hangs past the call timeout is retried", method: "GET", slow: 1, wantCalls: 2},
		{name: "a GET that always hangs ends in a timeout", method: "GET", slow: 9, maxRetries: 1, wantCalls: 2, wantKind: KindTimeout},
		{name: "a POST that hangs is not retried: it may have been applied", method: "POST", slow: 9, wantCalls: 1, wantKind: KindTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux, _ := setup(t, Options{CallTimeout: 50 * time.Millisecond, MaxRetries: tc.maxRetries})
			var calls atomic.Int32
			mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= tc.slow {
					select {
					case <-r.Context().Done():
					case <-time.After(5 * time.Second):
					}
					return
				}
				fmt.Fprint(w, `{}`)
			})
			req, _ := client.NewRequest(tc.method, "x", nil)
			_, err := client.Do(context.Background(), req, nil)
			if got := Classify(err); got != tc.wantKind {
				t.Errorf("Classify(%v) = %q, want %q", err, got, tc.wantKind)
			}
			if calls.Load() != tc.wantCalls {
				t.Errorf("attempts = %d, want %d", calls.Load(), tc.wantCalls)
			}
		})
	}
}

func TestTransportBodyOutlivesRoundTrip(t *testing.T) {
	t.Parallel()
	client, mux, _ := setup(t, Options{CallTimeout: 5 * time.Second})
	mux.HandleFunc("/repos/o/r/issues/1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"number":1,`)
		w.(http.Flusher).Flush()
		time.Sleep(30 * time.Millisecond)
		io.WriteString(w, `"title":"late half"}`)
	})
	is, _, err := client.Issues.Get(context.Background(), "o", "r", 1)
	if err != nil {
		t.Fatal(err)
	}
	if is.GetTitle() != "late half" {
		t.Errorf("title = %q, want the half sent after the headers", is.GetTitle())
	}
}

func TestNewSendsTokenAndUserAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		token    string
		wantAuth string
	}{
		{name: "a token is sent as a bearer token", token: fakeToken, wantAuth: "Bearer " + fakeToken},
		{name: "no token sends no Authorization header", token: "", wantAuth: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh, _, _ := contentsWorld(t, 0)
			c, err := New(Options{Token: tc.token, BaseURL: gh.URL(), UserAgent: "gcloop-test/1"})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.Repositories.Get(context.Background(), fakeOwner, fakeRepo)
			if (err != nil) != (tc.token == "") {
				t.Fatalf("get the repository: %v; the fake refuses a request without a token, only that", err)
			}
			reqs := gh.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if auth := reqs[0].Header.Get("Authorization"); auth != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", auth, tc.wantAuth)
			}
			if ua := reqs[0].Header.Get("User-Agent"); ua != "gcloop-test/1" {
				t.Errorf("User-Agent = %q, want gcloop-test/1", ua)
			}
		})
	}
}

func TestNewBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		suffix   string
		wantPath string
	}{
		{name: "a root without a trailing slash", suffix: "", wantPath: "/repos/o/r/issues/1"},
		{name: "a root with a trailing slash", suffix: "/", wantPath: "/repos/o/r/issues/1"},
		{name: "a GHES root as GITHUB_API_URL sets it", suffix: "/api/v3", wantPath: "/api/v3/repos/o/r/issues/1"},
		{name: "a GHES root with a trailing slash", suffix: "/api/v3/", wantPath: "/api/v3/repos/o/r/issues/1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Path
				fmt.Fprint(w, `{"number":1}`)
			}))
			t.Cleanup(srv.Close)
			c, err := New(Options{Token: "t", BaseURL: srv.URL + tc.suffix})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Issues.Get(context.Background(), "o", "r", 1); err != nil {
				t.Fatal(err)
			}
			if got != tc.wantPath {
				t.Errorf("path = %q, want %q", got, tc.wantPath)
			}
		})
	}
}

func TestNewDefaultsAndBadURLs(t *testing.T) {
	t.Parallel()
	c, err := New(Options{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BaseURL.String(); got != "https://api.github.com/" {
		t.Errorf("BaseURL = %q", got)
	}
	if got := c.UploadURL.String(); got != "https://uploads.github.com/" {
		t.Errorf("UploadURL = %q", got)
	}
	g, err := New(Options{Token: "t", BaseURL: "https://ghe.example.com/api/v3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.UploadURL.String(); got != "https://ghe.example.com/api/uploads/" {
		t.Errorf("GHES UploadURL = %q", got)
	}
	for _, bad := range []string{"api.github.com", "ftp://x/", "https://x/?a=b", "http://[::1"} {
		if _, err := New(Options{BaseURL: bad}); err == nil {
			t.Errorf("New(BaseURL %q) succeeded, want an error", bad)
		}
	}
}

func TestTransportStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	client, mux, _ := setup(t, Options{Sleep: func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}})
	var calls atomic.Int32
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(502)
	})
	req, _ := client.NewRequest("GET", "x", nil)
	_, err := client.Do(ctx, req, nil)
	if !errors.Is(err, context.Canceled) || Classify(err) != KindCanceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 1 {
		t.Errorf("attempts = %d, want 1", calls.Load())
	}
}

func TestClassifyAndDescribe(t *testing.T) {
	t.Parallel()
	resp := func(status int) *http.Response {
		return &http.Response{StatusCode: status, Request: &http.Request{Method: "GET", URL: mustURL("https://api.github.com/x")}}
	}
	tests := []struct {
		name     string
		err      error
		wantKind Kind
		wantText string
	}{
		{name: "nil is no error", err: nil, wantKind: KindNone, wantText: ""},
		{name: "a 429 error response is rate limited", err: &github.ErrorResponse{Response: resp(429), Message: "slow down"}, wantKind: KindRateLimited, wantText: "rate limited: slow down"},
		{name: "an abuse error is rate limited", err: &github.AbuseRateLimitError{Response: resp(403), Message: "secondary"}, wantKind: KindRateLimited, wantText: "rate limited"},
		{name: "a primary rate limit error is rate limited", err: fmt.Errorf("list: %w", &github.RateLimitError{Response: resp(403)}), wantKind: KindRateLimited, wantText: "rate limited"},
		{name: "a 403 naming a rate limit is rate limited", err: &github.ErrorResponse{Response: resp(403), Message: "API rate limit exceeded"}, wantKind: KindRateLimited, wantText: "rate limited: API rate limit exceeded"},
		{name: "a plain 403 is permission denied", err: &github.ErrorResponse{Response: resp(403), Message: "Resource not accessible by integration"}, wantKind: KindPermission, wantText: "permission denied: Resource not accessible by integration"},
		{name: "a 401 is unauthorized", err: &github.ErrorResponse{Response: resp(401), Message: "Bad credentials"}, wantKind: KindUnauthorized, wantText: "unauthorized: Bad credentials"},
		{name: "a 404 is not found", err: &github.ErrorResponse{Response: resp(404), Message: "Not Found"}, wantKind: KindNotFound, wantText: "not found: Not Found"},
		{name: "a 410 is not found", err: &github.ErrorResponse{Response: resp(410), Message: "Gone"}, wantKind: KindNotFound, wantText: "not found: Gone"},
		{name: "a 409 is a conflict", err: &github.ErrorResponse{Response: resp(409), Message: "Git Repository is empty."}, wantKind: KindConflict, wantText: "conflict: Git Repository is empty."},
		{name: "a 422 lists GitHub's errors", err: &github.ErrorResponse{Response: resp(422), Message: "Validation Failed", Errors: []github.Error{
			{Resource: "IssueComment", Field: "body", Code: "custom", Message: "body is too long\n(maximum is 65536 characters)"},
			{Resource: "Label", Field: "name", Code: "already_exists"},
		}}, wantKind: KindValidation, wantText: "validation failed: Validation Failed (body is too long (maximum is 65536 characters); Label name already_exists)"},
		{name: "a 502 is a server error", err: &github.ErrorResponse{Response: resp(502)}, wantKind: KindServer, wantText: "server error"},
		{name: "a call timeout is a timeout", err: fmt.Errorf("get: %w", &TimeoutError{Method: "GET", Path: "/x", After: time.Second}), wantKind: KindTimeout, wantText: "timeout: no response within 1s"},
		{name: "a context deadline is a timeout", err: context.DeadlineExceeded, wantKind: KindTimeout, wantText: "timeout"},
		{name: "a cancelled context is canceled", err: context.Canceled, wantKind: KindCanceled, wantText: "canceled"},
		{name: "a two-factor error is unauthorized", err: &github.TwoFactorAuthError{Response: resp(401)}, wantKind: KindUnauthorized, wantText: "unauthorized"},
		{name: "anything else is an error", err: errors.New("boom"), wantKind: KindOther, wantText: "error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Classify(tc.err); got != tc.wantKind {
				t.Errorf("Classify = %q, want %q", got, tc.wantKind)
			}
			if got := Describe(tc.err); got != tc.wantText {
				t.Errorf("Describe = %q, want %q", got, tc.wantText)
			}
		})
	}
}

func TestClassifyNetworkErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close() // nothing listens there any more
	c, err := New(Options{Token: "t", BaseURL: dead, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Issues.Get(context.Background(), "o", "r", 1)
	if got := Classify(err); got != KindNetwork {
		t.Errorf("Classify(%v) = %q, want %q", err, got, KindNetwork)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

package publish

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"
)

// server is a go-github-style test server: routes on a mux, a log of every
// request, and a failure for any request no route expects.
type server struct {
	t      *testing.T
	mux    *http.ServeMux
	mu     sync.Mutex
	log    []string
	client *github.Client
	url    string
}

// setup starts a test server and a real go-github client pointed at it.
func setup(t *testing.T) *server {
	t.Helper()
	s := &server{t: t, mux: http.NewServeMux()}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		line := r.Method + " " + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			line += "?" + r.URL.RawQuery
		}
		s.log = append(s.log, line)
		s.mu.Unlock()
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, `{"message":"no route in the test server"}`, http.StatusTeapot)
	})
	s.url = ts.URL
	c := github.NewClient(ts.Client())
	u, err := url.Parse(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	s.client = c
	return s
}

// requests returns the request log.
func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// decodeBody reads a JSON request body into v.
func decodeBody(t *testing.T, r *http.Request, v any) {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Errorf("request body %q is not JSON: %v", data, err)
	}
}

// writeJSON answers with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// notFound answers like GitHub for a missing resource.
func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

// linkNext sets a Link header to page next of the same path.
func linkNext(w http.ResponseWriter, r *http.Request, next, last int) {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	q := u.Query()
	q.Set("page", fmt.Sprint(next))
	u.RawQuery = q.Encode()
	lu := u
	q.Set("page", fmt.Sprint(last))
	lu.RawQuery = q.Encode()
	w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s>; rel="last"`, u.String(), lu.String()))
}

// errResp builds the error go-github returns for a status.
func errResp(status int, method, path string, errs ...github.Error) error {
	u, _ := url.Parse("https://api.github.com" + path)
	return &github.ErrorResponse{
		Response: &http.Response{StatusCode: status, Status: http.StatusText(status), Request: &http.Request{Method: method, URL: u}},
		Message:  http.StatusText(status),
		Errors:   errs,
	}
}

// hasAt reports whether s holds an '@' not followed by a zero-width space.
func pingable(s string) bool {
	for i := strings.Index(s, "@"); i >= 0; {
		if !strings.HasPrefix(s[i+1:], "\u200b") {
			return true
		}
		j := strings.Index(s[i+1:], "@")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// bot is gcloop's identity in the tests.
const bot = "github-actions[bot]"

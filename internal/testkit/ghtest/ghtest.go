// Package ghtest is a go-github-style test server for unit tests: routes
// on an http.ServeMux, a log of every request, a failure for any request
// no route expects, a real go-github client pointed at it, and the helpers
// handlers and assertions share. Only tests import it.
package ghtest

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

// Server is a test server and a client of it.
type Server struct {
	Mux    *http.ServeMux
	Client *github.Client // a real go-github client pointed at the server
	URL    string

	mu  sync.Mutex
	log []string
}

// New starts a test server, closed when t ends, and a go-github client
// pointed at it. A request no route of Mux takes fails t.
func New(t *testing.T) *Server {
	t.Helper()
	s := &Server{Mux: http.NewServeMux()}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line := r.Method + " " + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			line += "?" + r.URL.RawQuery
		}
		s.mu.Lock()
		s.log = append(s.log, line)
		s.mu.Unlock()
		s.Mux.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, `{"message":"no route in the test server"}`, http.StatusTeapot)
	})
	s.URL = ts.URL
	u, err := url.Parse(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	s.Client = github.NewClient(ts.Client())
	s.Client.BaseURL = u
	return s
}

// Requests returns the request log: "METHOD /path?query", in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// TestMethod fails t unless r uses method want.
func TestMethod(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if r.Method != want {
		t.Errorf("%s %s: method %s, want %s", r.Method, r.URL.Path, r.Method, want)
	}
}

// DecodeBody reads a JSON request body into v.
func DecodeBody(t *testing.T, r *http.Request, v any) {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Errorf("request body %q is not JSON: %v", data, err)
	}
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// NotFound answers as GitHub does for a missing resource.
func NotFound(w http.ResponseWriter) {
	WriteJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

// LinkNext sets a Link header to pages next and last of r's path.
func LinkNext(w http.ResponseWriter, r *http.Request, next, last int) {
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

// ErrResp builds the error go-github returns for status on method path.
func ErrResp(status int, method, path string, errs ...github.Error) error {
	u, _ := url.Parse("https://api.github.com" + path)
	return &github.ErrorResponse{
		Response: &http.Response{StatusCode: status, Status: http.StatusText(status), Request: &http.Request{Method: method, URL: u}},
		Message:  http.StatusText(status),
		Errors:   errs,
	}
}

// Pingable reports whether s holds an '@' that no zero-width space
// follows: a mention GitHub would notify.
func Pingable(s string) bool {
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

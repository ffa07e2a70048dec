package access

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
)

const goodToken = "s3cret-dashboard-token"

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// seen is the handler behind the guard: it answers 200 "ok" and, for
// ?check=o/r,…, which of the repositories the viewer's filter admits.
func seen(g *Guard) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := g.RepoFilter(r)
		var out []string
		for _, repo := range strings.Split(r.URL.Query().Get("check"), ",") {
			if repo != "" && (f == nil || f(r.Context(), repo)) {
				out = append(out, repo)
			}
		}
		fmt.Fprintf(w, "ok %s", strings.Join(out, ","))
	})
}

// serve runs one request through the guard as from remote.
func serve(g *Guard, method, target, remote string, header http.Header, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.RemoteAddr = remote
	for k, vs := range header {
		r.Header[k] = vs
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	mux := http.NewServeMux()
	g.Routes(mux)
	mux.Handle("/", g.Wrap(seen(g)))
	mux.ServeHTTP(w, r)
	return w
}

func cookieNamed(w *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range w.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestLoopbackMode(t *testing.T) {
	t.Parallel()
	g, err := New(Config{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if g.Mode() != ModeLoopback {
		t.Fatalf("mode %s", g.Mode())
	}
	tests := []struct {
		name, remote, host, xff string
		want                    int
		header                  http.Header // more headers
	}{
		{"IPv4 loopback", "127.0.0.1:5000", "127.0.0.1:8080", "", 200, nil},
		{"another 127/8 address", "127.0.0.2:5000", "localhost:8080", "", 200, nil},
		{"IPv6 loopback", "[::1]:5000", "[::1]:8080", "", 200, nil},
		{"localhost without a port", "127.0.0.1:5000", "localhost", "", 200, nil},
		{"a private address", "10.0.0.5:5000", "127.0.0.1:8080", "", 403, nil},
		{"a public address", "203.0.113.9:5000", "localhost:8080", "", 403, nil},
		{"X-Forwarded-For is not trusted", "10.0.0.5:5000", "localhost:8080", "127.0.0.1", 403, nil},
		{"a proxy on loopback forwarding a foreign name", "127.0.0.1:5000", "bot.example.com", "", 403, nil},
		{"DNS rebinding: a foreign name on loopback", "127.0.0.1:5000", "evil.example:8080", "", 403, nil},
		{"no remote address", "", "localhost", "", 403, nil},
		// A reverse proxy on this machine connects from loopback and may
		// pass Host: 127.0.0.1 on for anyone.
		{"a proxy on loopback that sends X-Forwarded-For", "127.0.0.1:5000", "127.0.0.1:8080", "203.0.113.9", 403, nil},
		{"a proxy on loopback that sends X-Forwarded-For of loopback", "127.0.0.1:5000", "127.0.0.1:8080", "127.0.0.1", 403, nil},
		{"a proxy on loopback that sends Forwarded", "127.0.0.1:5000", "localhost", "", 403, http.Header{"Forwarded": {"for=203.0.113.9;proto=https"}}},
		{"a proxy on loopback that sends X-Real-IP", "[::1]:5000", "[::1]:8080", "", 403, http.Header{"X-Real-Ip": {"203.0.113.9"}}},
		{"an empty forwarding header is one too", "127.0.0.1:5000", "localhost", "", 403, http.Header{"X-Forwarded-For": {""}}},
		{"other X- headers are no forwarding", "127.0.0.1:5000", "localhost", "", 200, http.Header{"X-Forwarded-Proto": {"https"}, "X-Request-Id": {"1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.header.Clone()
			if h == nil {
				h = http.Header{}
			}
			if tt.xff != "" {
				h.Set("X-Forwarded-For", tt.xff)
			}
			r := httptest.NewRequest("GET", "/api/loops?check=o/r", nil)
			r.RemoteAddr, r.Host = tt.remote, tt.host
			r.Header = h
			w := httptest.NewRecorder()
			g.Wrap(seen(g)).ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d: %s", w.Code, tt.want, w.Body)
			}
			if forwarded := forwardedBy(r) != ""; forwarded && !strings.Contains(w.Body.String(), "through a proxy") {
				t.Errorf("body %q: want it to say the request came through a proxy", w.Body)
			}
			if tt.want == 200 && w.Body.String() != "ok o/r" {
				t.Errorf("body %q: a loopback viewer sees every repository", w.Body)
			}
		})
	}
	if w := serve(g, "GET", "/auth/login", "127.0.0.1:1", nil); w.Code != 404 {
		t.Errorf("/auth/login without OAuth: %d, want 404", w.Code)
	}
}

func TestTokenMode(t *testing.T) {
	t.Parallel()
	clk := &clock{now: t0}
	g, err := New(Config{DashboardToken: goodToken, PublicURL: "https://bot.example.com", Now: clk.Now, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if g.Mode() != ModeToken {
		t.Fatalf("mode %s", g.Mode())
	}
	remote := "203.0.113.9:4000" // not loopback: the token is what counts
	valid := &http.Cookie{Name: cookieToken, Value: g.tokenCookie(t0.Add(time.Hour))}
	expired := &http.Cookie{Name: cookieToken, Value: g.tokenCookie(t0.Add(-time.Second))}
	other, _ := New(Config{DashboardToken: "another-token-of-16+", Now: clk.Now})
	foreign := &http.Cookie{Name: cookieToken, Value: other.tokenCookie(t0.Add(time.Hour))}
	tamper := &http.Cookie{Name: cookieToken, Value: strings.Replace(valid.Value, "t", "t9", 1)}
	tests := []struct {
		name   string
		target string
		header http.Header
		cookie *http.Cookie
		want   int
	}{
		{"no token", "/api/loops", nil, nil, 401},
		{"the right bearer token", "/api/loops", http.Header{"Authorization": {"Bearer " + goodToken}}, nil, 200},
		{"bearer is case-insensitive", "/api/loops", http.Header{"Authorization": {"bearer " + goodToken}}, nil, 200},
		{"a wrong bearer token", "/api/loops", http.Header{"Authorization": {"Bearer " + goodToken + "x"}}, nil, 401},
		{"an empty bearer token", "/api/loops", http.Header{"Authorization": {"Bearer "}}, nil, 401},
		{"basic auth", "/api/loops", http.Header{"Authorization": {"Basic " + goodToken}}, nil, 401},
		{"a wrong token in the query", "/?token=nope", nil, nil, 401},
		{"the token twice in the query", "/?token=" + goodToken + "&token=" + goodToken, nil, nil, 401},
		{"the token in the query on the feed", "/ws?token=" + goodToken, http.Header{"Upgrade": {"websocket"}}, nil, 200},
		{"the token in the query on an API POST", "/api/x?token=" + goodToken, nil, nil, 200},
		{"a valid cookie", "/api/loops", nil, valid, 200},
		{"an expired cookie", "/api/loops", nil, expired, 401},
		{"a cookie of another token", "/api/loops", nil, foreign, 401},
		{"a tampered cookie", "/api/loops", nil, tamper, 401},
		{"a forged cookie", "/api/loops", nil, &http.Cookie{Name: cookieToken, Value: "t99999999999.AAAA"}, 401},
		{"the token itself as the cookie", "/api/loops", nil, &http.Cookie{Name: cookieToken, Value: goodToken}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := "GET"
			if strings.HasPrefix(tt.target, "/api/x") {
				method = "POST"
			}
			var cs []*http.Cookie
			if tt.cookie != nil {
				cs = append(cs, tt.cookie)
			}
			w := serve(g, method, tt.target, remote, tt.header, cs...)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d: %s", w.Code, tt.want, w.Body)
			}
			if w.Code == 401 && cookieNamed(w, cookieToken) != nil {
				t.Error("a refused request got a cookie")
			}
		})
	}
}

func TestTokenInTheQuerySetsACookieAndLeavesTheAddress(t *testing.T) {
	t.Parallel()
	for _, public := range []string{"https://bot.example.com", "http://localhost:8080"} {
		t.Run(public, func(t *testing.T) {
			t.Parallel()
			clk := &clock{now: t0}
			g, err := New(Config{DashboardToken: goodToken, PublicURL: public, Now: clk.Now, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			w := serve(g, "GET", "/?token="+goodToken+"&repo=o/r", "203.0.113.9:1", nil)
			if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/?repo=o%2Fr" {
				t.Fatalf("status %d Location %q, want 303 to the address without the token", w.Code, w.Header().Get("Location"))
			}
			c := cookieNamed(w, cookieToken)
			if c == nil {
				t.Fatal("no cookie")
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != strings.HasPrefix(public, "https") || c.Path != "/" {
				t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Secure behind https, Path=/", c)
			}
			if strings.Contains(c.Value, goodToken) {
				t.Error("the cookie holds the token")
			}
			if w := serve(g, "GET", "/api/loops", "203.0.113.9:1", nil, c); w.Code != 200 {
				t.Errorf("with the cookie: %d", w.Code)
			}
			clk.Add(TokenCookieTTL)
			if w := serve(g, "GET", "/api/loops", "203.0.113.9:1", nil, c); w.Code != 401 {
				t.Errorf("with the cookie after it expired: %d, want 401", w.Code)
			}
		})
	}
}

func TestTokenRedirectStaysOnThisSite(t *testing.T) {
	t.Parallel()
	g, err := New(Config{DashboardToken: goodToken, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/?token="+goodToken, nil)
	r.URL.Path = "//evil.example/"
	r.RemoteAddr = "203.0.113.9:1"
	w := httptest.NewRecorder()
	g.Wrap(seen(g)).ServeHTTP(w, r)
	if loc := w.Header().Get("Location"); w.Code != http.StatusSeeOther || loc != "/" {
		t.Errorf("status %d to %q, want 303 to /", w.Code, loc)
	}
}

func TestNewRefusesIncompleteConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    Config
	}{
		{"a client id without a secret", Config{OAuthClientID: "id", PublicURL: "https://x"}},
		{"a secret without a client id", Config{OAuthClientSecret: "s", PublicURL: "https://x"}},
		{"OAuth without a public URL", Config{OAuthClientID: "id", OAuthClientSecret: "s"}},
		{"a public URL without a scheme", Config{PublicURL: "bot.example.com"}},
		{"a short dashboard token", Config{DashboardToken: "short"}},
		{"a bad GitHub URL", Config{OAuthClientID: "id", OAuthClientSecret: "s", PublicURL: "https://x", WebURL: "::"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := New(tt.c); err == nil {
				t.Error("New accepted it")
			}
		})
	}
}

// fakeGitHub is the fake GitHub of the OAuth tests: the app "cid" whose
// code "good" gives the token "u-token" of octo (expiring after expiresIn,
// if positive), who can read octo/public and org/shared and nothing else;
// org/secret is private to others, and a look-up of org/broken fails.
type fakeGitHub struct{ *ghfake.Server }

func newFakeGitHub(t *testing.T, expiresIn time.Duration) fakeGitHub {
	t.Helper()
	s := ghfake.New(t)
	s.AddOAuthApp("cid", "csecret")
	s.AddOAuthCode("cid", "good", "octo", "u-token", expiresIn)
	s.AddRepo("octo", "public", 1, "main")
	s.AddRepo("org", "shared", 2, "main")
	s.SetPrivate("org", "shared")
	s.SetPermission("org", "shared", "octo", "read")
	s.AddRepo("org", "secret", 3, "main")
	s.SetPrivate("org", "secret")
	s.Fail(ghfake.FailRule{Pattern: "GET /repos/org/broken", Status: http.StatusInternalServerError, Message: "boom"})
	return fakeGitHub{s}
}

// repoCalls counts the repository look-ups the fake received.
func (f fakeGitHub) repoCalls() int {
	n := 0
	for _, r := range f.Requests() {
		if r.Method == http.MethodGet && strings.Count(strings.Trim(r.Path, "/"), "/") == 2 && strings.HasPrefix(r.Path, "/repos/") {
			n++
		}
	}
	return n
}

func oauthGuard(t *testing.T, gh fakeGitHub, clk *clock, token string) *Guard {
	t.Helper()
	g, err := New(Config{
		PublicURL: "https://bot.example.com", OAuthClientID: "cid", OAuthClientSecret: "csecret",
		DashboardToken: token,
		WebURL:         gh.WebURL(), APIURL: gh.URL(), HTTPClient: &http.Client{}, Now: clk.Now, Logger: quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// logIn runs the web flow and returns the session cookie.
func logIn(t *testing.T, g *Guard, next string) *http.Cookie {
	t.Helper()
	w := serve(g, "GET", "/auth/login?next="+url.QueryEscape(next), "203.0.113.9:1", nil)
	if w.Code != http.StatusFound {
		t.Fatalf("/auth/login: %d", w.Code)
	}
	loc, _ := url.Parse(w.Header().Get("Location"))
	state := loc.Query().Get("state")
	if !strings.HasSuffix(loc.Path, "/login/oauth/authorize") || state == "" || loc.Query().Get("client_id") != "cid" ||
		loc.Query().Get("redirect_uri") != "https://bot.example.com/auth/callback" {
		t.Fatalf("login redirect %s", loc)
	}
	sc := cookieNamed(w, cookieState)
	if sc == nil || !sc.HttpOnly || !sc.Secure || sc.MaxAge <= 0 || sc.MaxAge > int(StateTTL.Seconds()) {
		t.Fatalf("state cookie %+v", sc)
	}
	w = serve(g, "GET", "/auth/callback?code=good&state="+url.QueryEscape(state), "203.0.113.9:1", nil, sc)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("/auth/callback: %d %s", w.Code, w.Body)
	}
	if got := w.Header().Get("Location"); got != localPath(next) {
		t.Errorf("after login: to %q, want %q", got, localPath(next))
	}
	c := cookieNamed(w, cookieSession)
	if c == nil || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("session cookie %+v", c)
	}
	if strings.Contains(c.Value, "u-token") || strings.Contains(c.Value, "octo") {
		t.Error("the session cookie shows the token or the login in the clear")
	}
	return c
}

func TestOAuthLoginSeesOnlyReadableRepositories(t *testing.T) {
	t.Parallel()
	gh := newFakeGitHub(t, 0)
	clk := &clock{now: t0}
	g := oauthGuard(t, gh, clk, "")
	if g.Mode() != ModeOAuth {
		t.Fatalf("mode %s", g.Mode())
	}
	c := logIn(t, g, "/?repo=octo/public")
	check := "/api/loops?check=octo/public,org/secret,Org/Shared,bad,org/broken"
	w := serve(g, "GET", check, "203.0.113.9:1", nil, c)
	if w.Code != 200 || w.Body.String() != "ok octo/public,Org/Shared" {
		t.Fatalf("got %d %q, want the two readable repositories", w.Code, w.Body)
	}
	calls := gh.repoCalls()
	if calls != 4 {
		t.Errorf("%d repository look-ups, want 4 (the malformed name is not asked)", calls)
	}
	// Cached: no new look-ups within RepoTTL…
	serve(g, "GET", check, "203.0.113.9:1", nil, c)
	// (org/broken failed: it is asked again after failureTTL, not at once.)
	if n := gh.repoCalls(); n != calls {
		t.Errorf("%d look-ups after a second request, want %d", n, calls)
	}
	// …asked again after.
	clk.Add(RepoTTL + time.Second)
	serve(g, "GET", check, "203.0.113.9:1", nil, c)
	if n := gh.repoCalls(); n != 2*calls {
		t.Errorf("%d look-ups after the cache expired, want %d", n, 2*calls)
	}
	// The session ends.
	clk.Add(SessionTTL)
	if w := serve(g, "GET", "/api/loops", "203.0.113.9:1", nil, c); w.Code != 401 {
		t.Errorf("expired session: %d, want 401", w.Code)
	}
}

func TestOAuthSessionEndsWithTheUserToken(t *testing.T) {
	t.Parallel()
	gh := newFakeGitHub(t, time.Hour)
	clk := &clock{now: time.Now()} // the oauth2 package reads the real clock for expires_in
	g := oauthGuard(t, gh, clk, "")
	c := logIn(t, g, "/")
	if c.MaxAge > 3600 {
		t.Errorf("session cookie lasts %ds, beyond the token's hour", c.MaxAge)
	}
	clk.Add(time.Hour + time.Second)
	if w := serve(g, "GET", "/api/loops", "203.0.113.9:1", nil, c); w.Code != 401 {
		t.Errorf("after the token expired: %d, want 401", w.Code)
	}
}

func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	gh := newFakeGitHub(t, 0)
	clk := &clock{now: t0}
	g := oauthGuard(t, gh, clk, goodToken)
	// A state cookie from a login started in this browser.
	w := serve(g, "GET", "/auth/login", "203.0.113.9:1", nil)
	sc := cookieNamed(w, cookieState)
	loc, _ := url.Parse(w.Header().Get("Location"))
	state := loc.Query().Get("state")
	otherSecret, _ := New(Config{PublicURL: "https://bot.example.com", OAuthClientID: "cid", OAuthClientSecret: "another", Now: clk.Now})
	foreignState := &http.Cookie{Name: cookieState, Value: otherSecret.stateCookie(state, "/", t0.Add(time.Minute))}
	expiredState := &http.Cookie{Name: cookieState, Value: g.stateCookie(state, "/", t0.Add(-time.Second))}
	forgedSession, _ := otherSecret.sealSession(session{Login: "octo", Token: "u-token", Exp: t0.Add(time.Hour).Unix()})
	expiredSession, _ := g.sealSession(session{Login: "octo", Token: "u-token", Exp: t0.Unix()})
	tests := []struct {
		name   string
		target string
		header http.Header
		cookie *http.Cookie
		want   int
	}{
		{"a callback whose state does not match", "/auth/callback?code=good&state=" + url.QueryEscape(state+"x"), nil, sc, 400},
		{"a callback without a state", "/auth/callback?code=good", nil, sc, 400},
		{"a callback without the state cookie (login CSRF)", "/auth/callback?code=good&state=" + url.QueryEscape(state), nil, nil, 400},
		{"a state cookie signed by another secret", "/auth/callback?code=good&state=" + url.QueryEscape(state), nil, foreignState, 400},
		{"an expired state cookie", "/auth/callback?code=good&state=" + url.QueryEscape(state), nil, expiredState, 400},
		{"a code GitHub refuses", "/auth/callback?code=bad&state=" + url.QueryEscape(state), nil, sc, 502},
		{"the user denied access", "/auth/callback?error=access_denied&state=" + url.QueryEscape(state), nil, sc, 403},
		{"the API without a session", "/api/loops", nil, nil, 401},
		{"the feed without a session", "/ws", http.Header{"Upgrade": {"websocket"}, "Accept": {"text/html"}}, nil, 401},
		{"the page without a session goes to the login", "/", http.Header{"Accept": {"text/html"}}, nil, 302},
		{"a session sealed with another secret", "/api/loops", nil, &http.Cookie{Name: cookieSession, Value: forgedSession}, 401},
		{"an expired session", "/api/loops", nil, &http.Cookie{Name: cookieSession, Value: expiredSession}, 401},
		{"a garbage session", "/api/loops", nil, &http.Cookie{Name: cookieSession, Value: "e30.AAAA"}, 401},
		{"the dashboard token also works", "/api/loops", http.Header{"Authorization": {"Bearer " + goodToken}}, nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cs []*http.Cookie
			if tt.cookie != nil {
				cs = append(cs, tt.cookie)
			}
			w := serve(g, "GET", tt.target, "203.0.113.9:1", tt.header, cs...)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d: %s", w.Code, tt.want, w.Body)
			}
			if tt.want >= 400 && cookieNamed(w, cookieSession) != nil {
				t.Error("a refused request got a session")
			}
			if tt.want == 302 && !strings.HasPrefix(w.Header().Get("Location"), "/auth/login?next=") {
				t.Errorf("redirect to %q", w.Header().Get("Location"))
			}
		})
	}
}

func TestLocalPathKeepsTheUserOnThisSite(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                      "/",
		"/":                     "/",
		"/?repo=o/r":            "/?repo=o/r",
		"//evil.example":        "/",
		"/\\evil.example":       "/",
		"https://evil.example":  "/",
		"javascript:alert(1)":   "/",
		"/x\r\nSet-Cookie: a=b": "/",
	}
	for in, want := range tests {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRepoFilterOfARequestTheGuardDidNotAdmit(t *testing.T) {
	t.Parallel()
	g, _ := New(Config{})
	f := g.RepoFilter(httptest.NewRequest("GET", "/", nil))
	if f == nil || f(context.Background(), "o/r") {
		t.Error("a request the guard never saw may see a repository")
	}
}

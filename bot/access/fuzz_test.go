package access

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzCookies: any cookie value is refused or opened without a panic, and
// no value an attacker can make without the secrets is admitted.
func FuzzCookies(f *testing.F) {
	clk := &clock{now: t0}
	g, err := New(Config{PublicURL: "https://bot.example.com", OAuthClientID: "cid", OAuthClientSecret: "csecret", DashboardToken: goodToken, Now: clk.Now})
	if err != nil {
		f.Fatal(err)
	}
	sess, _ := g.sealSession(session{Login: "octo", Token: "u", Exp: t0.Add(time.Hour).Unix()})
	f.Add(sess)
	f.Add(g.tokenCookie(t0.Add(time.Hour)))
	f.Add(g.stateCookie("abc", "/", t0.Add(time.Minute)))
	f.Add("t1.AAAA")
	f.Add("..")
	f.Add("e30")
	f.Fuzz(func(t *testing.T, v string) {
		_, _ = g.openSession(v)
		_, _, _ = g.openState(v)
		_ = g.tokenCookieValid(v)
		// Through the middleware, too, as each cookie.
		for _, name := range []string{cookieSession, cookieToken} {
			r := httptest.NewRequest("GET", "/api/loops", nil)
			r.RemoteAddr = "203.0.113.9:1"
			r.Header.Set("Cookie", name+"="+v)
			w := httptest.NewRecorder()
			g.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
		}
	})
}

// FuzzLoopback: any remote address and Host header is decided without a
// panic; no non-loopback remote address is admitted.
func FuzzLoopback(f *testing.F) {
	f.Add("127.0.0.1:1", "localhost")
	f.Add("[::1]:1", "[::1]:80")
	f.Add("10.0.0.1:1", "127.0.0.1")
	f.Add("[::ffff:127.0.0.1]:1", "localhost.")
	f.Fuzz(func(t *testing.T, remote, host string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr, r.Host = remote, host
		if loopback(r) {
			r2 := httptest.NewRequest("GET", "/", nil)
			r2.RemoteAddr, r2.Host = remote, "localhost"
			if !loopback(r2) {
				t.Fatalf("admitted %q with Host %q but not with localhost", remote, host)
			}
		}
	})
}

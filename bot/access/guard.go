package access

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Wrap admits the requests next may serve (/, /ws, /api/*) and refuses the
// others: 401 without a valid token or session (a browser asking for a page
// is sent to the GitHub login instead), 403 for a non-loopback request when
// nothing is configured.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Vary", "Cookie, Authorization")
		switch g.mode {
		case ModeLoopback:
			if h := forwardedBy(r); h != "" {
				http.Error(w, "forbidden: the request came through a proxy ("+h+" header), and without a dashboard token or a GitHub login only requests from this machine itself may see the dashboard; set GCLOOP_DASHBOARD_TOKEN", http.StatusForbidden)
				return
			}
			if !loopback(r) {
				http.Error(w, "forbidden: only loopback requests may see the dashboard while neither a dashboard token nor a GitHub login is configured", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r.WithContext(withViewer(r.Context(), &viewer{})))
			return
		case ModeToken, ModeOAuth:
			if g.tokenKey != nil {
				if ok, handled := g.byToken(w, r); handled {
					return
				} else if ok {
					next.ServeHTTP(w, r.WithContext(withViewer(r.Context(), &viewer{})))
					return
				}
			}
			if g.mode == ModeOAuth {
				if c, err := r.Cookie(cookieSession); err == nil {
					s, err := g.openSession(c.Value)
					if err == nil {
						next.ServeHTTP(w, r.WithContext(withViewer(r.Context(), &viewer{login: s.Login, token: s.Token})))
						return
					}
					g.log.Info("access: session cookie refused", "err", err, "remote", r.RemoteAddr)
				}
				if wantsPage(r) {
					http.Redirect(w, r, g.path("/auth/login")+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
					return
				}
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="gcloop"`)
			http.Error(w, "unauthorized: "+g.how(), http.StatusUnauthorized)
		}
	})
}

// how tells a refused viewer how to get in.
func (g *Guard) how() string {
	if g.mode == ModeOAuth {
		return "log in with GitHub at /auth/login"
	}
	return "send the dashboard token as Authorization: Bearer <token>, or once as ?token=<token>"
}

// byToken admits a request with the dashboard token (header, query or
// cookie). handled is true when it already answered: a wrong token (401),
// or a page asked for with ?token=, which sets the cookie and redirects to
// the address without the token.
func (g *Guard) byToken(w http.ResponseWriter, r *http.Request) (ok, handled bool) {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, tok, _ := strings.Cut(auth, " ")
		if !strings.EqualFold(scheme, "Bearer") || !g.tokenEqual(strings.TrimSpace(tok)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gcloop", error="invalid_token"`)
			http.Error(w, "unauthorized: wrong dashboard token", http.StatusUnauthorized)
			return false, true
		}
		return true, false
	}
	q := r.URL.Query()
	if vs, given := q["token"]; given {
		if len(vs) != 1 || !g.tokenEqual(vs[0]) {
			http.Error(w, "unauthorized: wrong dashboard token", http.StatusUnauthorized)
			return false, true
		}
		if isWebsocket(r) {
			return true, false // the handshake cannot set a cookie we control
		}
		g.setCookie(w, r, cookieToken, g.tokenCookie(g.now().Add(TokenCookieTTL)), "/", g.now().Add(TokenCookieTTL))
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			w.Header().Set("Referrer-Policy", "no-referrer")
			http.Redirect(w, r, localPath(u.RequestURI()), http.StatusSeeOther)
			return true, true
		}
		return true, false
	}
	if c, err := r.Cookie(cookieToken); err == nil && g.tokenCookieValid(c.Value) {
		return true, false
	}
	return false, false
}

// tokenEqual compares a presented token with the dashboard token in
// constant time (of the token's length).
func (g *Guard) tokenEqual(got string) bool {
	a := derive(g.token, "gcloop token compare")
	b := derive(got, "gcloop token compare")
	return subtle.ConstantTimeCompare(a, b) == 1 && got != ""
}

// loopback reports whether r came from a loopback address, to a loopback
// host name: a page of another site that rebinds its name to 127.0.0.1
// sends its own name as Host and is refused. Forwarding headers are not
// read here; Wrap refuses a request that has any.
func loopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return false
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if strings.EqualFold(name, "localhost") || strings.HasSuffix(strings.ToLower(name), ".localhost") {
		return true
	}
	hip := net.ParseIP(name)
	return hip != nil && hip.IsLoopback()
}

// forwardingHeaders are the headers a proxy adds for the client it
// forwards.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-IP"}

// forwardedBy is the first forwarding header r has (even empty), or "":
// a proxy on this machine connects from loopback and may send a loopback
// Host, so loopback alone does not prove the viewer is here.
func forwardedBy(r *http.Request) string {
	for _, h := range forwardingHeaders {
		if len(r.Header.Values(h)) > 0 {
			return h
		}
	}
	return ""
}

// wantsPage reports whether r is a browser asking for a page (a login
// redirect helps it) rather than a script or the feed (401 is clearer).
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && !isWebsocket(r) && strings.Contains(r.Header.Get("Accept"), "text/html")
}

func isWebsocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// path is p under the public URL's path (a bot served under a prefix).
func (g *Guard) path(p string) string {
	if g.public == nil {
		return p
	}
	return g.public.Path + p
}

package access

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/gcloop/gcloop/bot/ghclient"
)

// Routes registers the GitHub login's endpoints on mux: GET /auth/login,
// GET /auth/callback and /auth/logout. In the token and loopback modes
// there is no login, and /auth/* answer 404.
func (g *Guard) Routes(mux *http.ServeMux) {
	mux.HandleFunc("/auth/login", g.login)
	mux.HandleFunc("/auth/callback", g.callback)
	mux.HandleFunc("/auth/logout", g.logout)
}

// login starts the web flow: a fresh state, bound to this browser by a
// signed short-lived cookie, and a redirect to GitHub.
func (g *Guard) login(w http.ResponseWriter, r *http.Request) {
	if g.mode != ModeOAuth {
		http.NotFound(w, r)
		return
	}
	state, err := randomState()
	if err != nil {
		http.Error(w, "cannot start the login", http.StatusInternalServerError)
		return
	}
	next := localPath(r.URL.Query().Get("next"))
	exp := g.now().Add(StateTTL)
	g.setCookie(w, r, cookieState, g.stateCookie(state, next, exp), g.path("/auth/"), exp)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, g.oauth.AuthCodeURL(state), http.StatusFound)
}

// callback ends the web flow: the state must be the one of this browser's
// cookie; the code is exchanged for the user's token, the user looked up,
// and a session cookie set.
func (g *Guard) callback(w http.ResponseWriter, r *http.Request) {
	if g.mode != ModeOAuth {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	q := r.URL.Query()
	c, err := r.Cookie(cookieState)
	if err != nil {
		http.Error(w, "login failed: no login in progress in this browser (state cookie missing); start again at /auth/login", http.StatusBadRequest)
		return
	}
	g.clearCookie(w, r, cookieState, g.path("/auth/"))
	state, next, err := g.openState(c.Value)
	if err != nil {
		g.log.Info("access: login refused", "err", err, "remote", r.RemoteAddr)
		http.Error(w, "login failed: "+err.Error()+"; start again at /auth/login", http.StatusBadRequest)
		return
	}
	if got := q.Get("state"); got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(state)) != 1 {
		g.log.Info("access: login refused: OAuth state mismatch", "remote", r.RemoteAddr)
		http.Error(w, "login failed: OAuth state mismatch; start again at /auth/login", http.StatusBadRequest)
		return
	}
	if e := q.Get("error"); e != "" {
		http.Error(w, "login failed: GitHub answered "+clip(e), http.StatusForbidden)
		return
	}
	code := q.Get("code")
	if code == "" {
		http.Error(w, "login failed: GitHub sent no code", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	tok, err := g.oauth.Exchange(context.WithValue(ctx, oauth2.HTTPClient, g.client), code)
	if err != nil {
		g.log.Warn("access: exchanging the OAuth code failed", "err", err)
		http.Error(w, "login failed: GitHub did not accept the code", http.StatusBadGateway)
		return
	}
	gh, err := g.github(tok.AccessToken)
	if err != nil {
		http.Error(w, "login failed", http.StatusInternalServerError)
		return
	}
	user, _, err := gh.Users.Get(ctx, "")
	if err != nil || user.GetLogin() == "" {
		g.log.Warn("access: looking up the logged-in user failed", "err", err)
		http.Error(w, "login failed: GitHub did not say who you are", http.StatusBadGateway)
		return
	}
	exp := g.now().Add(SessionTTL)
	if !tok.Expiry.IsZero() && tok.Expiry.Before(exp) {
		exp = tok.Expiry
	}
	value, err := g.sealSession(session{Login: user.GetLogin(), Token: tok.AccessToken, Exp: exp.Unix()})
	if err != nil {
		http.Error(w, "login failed", http.StatusInternalServerError)
		return
	}
	g.setCookie(w, r, cookieSession, value, g.path("/"), exp)
	g.log.Info("access: logged in", "login", user.GetLogin())
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout removes the session cookie.
func (g *Guard) logout(w http.ResponseWriter, r *http.Request) {
	g.clearCookie(w, r, cookieSession, g.path("/"))
	g.clearCookie(w, r, cookieToken, "/")
	http.Redirect(w, r, g.path("/"), http.StatusSeeOther)
}

// localPath keeps next only when it is a path of this site: "/x", never
// "//host" or "/\host" or a scheme, which would send the user elsewhere.
func localPath(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n\t") {
		return "/"
	}
	return next
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// github is a client that acts as the user of token.
func (g *Guard) github(token string) (*githubClient, error) {
	c, err := ghclient.New(ghclient.Options{
		Token:       token,
		BaseURL:     g.apiURL,
		Base:        g.client.Transport,
		MaxRetries:  -1,
		CallTimeout: 10 * time.Second,
		Now:         g.now,
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

package ghfake

// The web side of GitHub a bot's users see: private repositories, seen
// only by their collaborators, and the OAuth web flow's token exchange
// (POST /login/oauth/access_token on the web host, WebURL).

import (
	"net/http"
	"strings"
	"time"
)

// SetPrivate makes a repository private: to a user's token it is 404
// unless the user owns it or has a permission on it (SetPermission,
// SetCustomRole); bots (installation tokens) see it.
func (s *Server) SetPrivate(owner, repo string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(owner, repo).private = true
}

// sees reports whether login may see r. Callers hold s.mu.
func (s *Server) sees(r *repoState, login string) bool {
	if !r.private || strings.EqualFold(login, r.owner) || strings.HasPrefix(login, jwtLogin) {
		return true
	}
	if u, ok := s.users[strings.ToLower(login)]; ok && u.bot {
		return true
	}
	level := r.perms[strings.ToLower(login)]
	return level != "" && level != "none"
}

// oauthCode is what an authorization code of the web flow gives.
type oauthCode struct {
	clientID, login, token string
	expiresIn              time.Duration
}

// WebURL is the web root, GitHub's https://github.com: where the OAuth
// web flow exchanges a code for a user's token.
func (s *Server) WebURL() string { return s.blob.URL }

// AddOAuthApp registers an OAuth app by its client id and secret.
func (s *Server) AddOAuthApp(clientID, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauthApps == nil {
		s.oauthApps = map[string]string{}
	}
	s.oauthApps[clientID] = secret
}

// AddOAuthCode makes code, exchanged once by the app clientID, give token,
// a user's token of login; expiresIn, if positive, is sent as expires_in
// (an app whose user tokens expire).
func (s *Server) AddOAuthCode(clientID, code, login, token string, expiresIn time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauthCodes == nil {
		s.oauthCodes = map[string]oauthCode{}
	}
	s.oauthCodes[code] = oauthCode{clientID: clientID, login: login, token: token, expiresIn: expiresIn}
}

// serveOAuthToken answers POST /login/oauth/access_token as GitHub does:
// 200 either way, an "error" in the body for a code, client or secret it
// refuses; a code works once.
func (s *Server) serveOAuthToken(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	_ = req.ParseForm()
	id, secret, code := req.PostForm.Get("client_id"), req.PostForm.Get("client_secret"), req.PostForm.Get("code")
	if u, p, ok := req.BasicAuth(); ok {
		id, secret = u, p
	}
	s.mu.Lock()
	known, appOK := s.oauthApps[id]
	c, codeOK := s.oauthCodes[code]
	ok := appOK && known == secret && codeOK && c.clientID == id
	if ok {
		delete(s.oauthCodes, code)
		s.user(c.login)
		s.tokens[c.token] = c.login
	}
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusOK, obj{"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired.",
			"error_uri": "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code"})
		return
	}
	body := obj{"access_token": c.token, "token_type": "bearer", "scope": ""}
	if c.expiresIn > 0 {
		body["expires_in"] = int(c.expiresIn / time.Second)
	}
	writeJSON(w, http.StatusOK, body)
}

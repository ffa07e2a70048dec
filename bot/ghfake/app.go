package ghfake

// GitHub Apps: the App's own endpoints, authenticated with its RS256 JWT,
// and the installation tokens they hand out, which the fake's token
// authentication then accepts until they expire.

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// AppSpec is a GitHub App the fake knows.
type AppSpec struct {
	ID    int64
	Slug  string // its bot writes as "<Slug>[bot]"
	Name  string // default: Slug
	Owner string // login of the owning account; default "octo-org"
	// Key is the public half of the App's private key: the fake verifies
	// the App's JWTs with it.
	Key *rsa.PublicKey
	// Permissions and Events default to what gcloop's App asks for.
	Permissions map[string]string
	Events      []string
}

// IssuedToken is one installation token the fake handed out.
type IssuedToken struct {
	Token        string
	Installation int64
	Expires      time.Time
}

type appState struct {
	spec          AppSpec
	created       time.Time
	installations map[int64]*installationState
}

type installationState struct {
	id      int64
	account string
	repos   []string // "owner/name"; nil: all of the account's
	created time.Time
}

// jwtLogin marks a request authenticated with an App's JWT: call.login is
// jwtLogin followed by the App id. No GitHub login can start with NUL.
const jwtLogin = "\x00app:"

// maxJWTLife is GitHub's limit on a JWT's lifetime (exp − iat).
const maxJWTLife = 10 * time.Minute

// defaultTokenTTL is how long GitHub's installation tokens live.
const defaultTokenTTL = time.Hour

// AddApp adds a GitHub App. Its JWTs authenticate the /app endpoints.
func (s *Server) AddApp(spec AppSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.Name == "" {
		spec.Name = spec.Slug
	}
	if spec.Owner == "" {
		spec.Owner = "octo-org"
	}
	if spec.Permissions == nil {
		spec.Permissions = map[string]string{"actions": "write", "checks": "write", "contents": "write",
			"issues": "write", "metadata": "read", "pull_requests": "write", "statuses": "write"}
	}
	if spec.Events == nil {
		spec.Events = []string{"issue_comment", "pull_request", "workflow_run"}
	}
	s.user(spec.Owner)
	s.user(spec.Slug + "[bot]").bot = true
	if s.apps == nil {
		s.apps = map[int64]*appState{}
	}
	s.apps[spec.ID] = &appState{spec: spec, created: s.now(), installations: map[int64]*installationState{}}
}

// AddInstallation installs App appID on account with installation id;
// repos ("owner/name") name the selected repositories, none means all.
func (s *Server) AddInstallation(appID, id int64, account string, repos ...string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		s.t.Fatalf("ghfake: App %d not added (call AddApp first)", appID)
	}
	s.user(account)
	a.installations[id] = &installationState{id: id, account: account, repos: repos, created: s.now()}
}

// SetInstallationTokenTTL sets how long the installation tokens handed out
// from now on stay valid (GitHub: one hour).
func (s *Server) SetInstallationTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenTTL = d
}

// RevokeToken makes token unknown: requests with it get 401 from now on.
func (s *Server) RevokeToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, token)
	delete(s.expires, token)
}

// IssuedTokens returns the installation tokens handed out, in order.
func (s *Server) IssuedTokens() []IssuedToken {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]IssuedToken(nil), s.issued...)
}

// tokenLogin maps a token to its login; an installation token past its
// expiry is unknown. Callers hold s.mu.
func (s *Server) tokenLogin(tok string) (string, bool) {
	login, ok := s.tokens[tok]
	if !ok {
		return "", false
	}
	if exp, ok := s.expires[tok]; ok && !s.now().Before(exp) {
		return "", false
	}
	return login, true
}

// appOfJWT verifies tok as a JWT of a known App, as GitHub does: RS256
// signed with the App's key, iss the App id, iat not in the future, exp in
// the future and at most ten minutes after iat. Callers hold s.mu.
func (s *Server) appOfJWT(tok string) (int64, error) {
	if len(s.apps) == 0 || strings.Count(tok, ".") != 2 {
		return 0, errors.New("not a JWT")
	}
	var app *appState
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(tok, claims, func(t *jwt.Token) (any, error) {
		iss, err := t.Claims.GetIssuer()
		if err != nil {
			return nil, err
		}
		id, err := strconv.ParseInt(iss, 10, 64)
		if err != nil {
			return nil, errors.New("iss is not an App id")
		}
		a, ok := s.apps[id]
		if !ok {
			return nil, errors.New("no App " + iss)
		}
		app = a
		return a.spec.Key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuedAt(), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now))
	if err != nil {
		return 0, err
	}
	if claims.IssuedAt == nil || claims.ExpiresAt.Sub(claims.IssuedAt.Time) > maxJWTLife {
		return 0, errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	return app.spec.ID, nil
}

// appCall handles a request authenticated with an App's JWT, or one to an
// /app endpoint: the JWT is good for those only, and they take nothing
// else.
func (c *call) appCall() {
	id, isJWT := strings.CutPrefix(c.login, jwtLogin)
	if !strings.HasPrefix(c.op, "apps/") {
		writeError(c.w, http.StatusUnauthorized, "A JSON web token cannot be used for this endpoint", docsURL)
		return
	}
	if !isJWT {
		writeError(c.w, http.StatusUnauthorized, "A JSON web token could not be decoded", docsURL)
		return
	}
	n, _ := strconv.ParseInt(id, 10, 64)
	a := c.s.apps[n]
	switch c.op {
	case "apps/get-authenticated":
		c.json(http.StatusOK, c.s.appJSON(a))
	case "apps/list-installations":
		items := []any{}
		for _, in := range sortedInstallations(a) {
			items = append(items, c.s.installationJSON(a, in))
		}
		c.json(http.StatusOK, c.paginate(items))
	case "apps/create-installation-access-token":
		c.createInstallationToken(a)
	default:
		writeError(c.w, http.StatusNotImplemented, "ghfake: operation "+c.op+" not implemented", docsURL)
	}
}

func (c *call) createInstallationToken(a *appState) {
	id, ok := c.intParam("installation_id")
	if !ok {
		return
	}
	in, ok := a.installations[id]
	if !ok {
		c.notFound()
		return
	}
	var raw [20]byte
	_, _ = rand.Read(raw[:])
	tok := "ghs_" + hex.EncodeToString(raw[:])
	ttl := c.s.tokenTTL
	if ttl <= 0 {
		ttl = defaultTokenTTL
	}
	exp := c.s.now().Add(ttl).UTC().Truncate(time.Second)
	c.s.tokens[tok] = a.spec.Slug + "[bot]"
	c.s.expires[tok] = exp
	c.s.issued = append(c.s.issued, IssuedToken{Token: tok, Installation: id, Expires: exp})
	c.json(http.StatusCreated, obj{"token": tok, "expires_at": ts(exp), "permissions": permissionsJSON(a), "repository_selection": selection(in)})
}

func sortedInstallations(a *appState) []*installationState {
	out := make([]*installationState, 0, len(a.installations))
	for _, in := range a.installations {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (s *Server) appJSON(a *appState) obj {
	return obj{
		"id": a.spec.ID, "slug": a.spec.Slug, "node_id": nodeID("Integration", a.spec.ID),
		"client_id": "Iv1." + strconv.FormatInt(a.spec.ID, 16), "owner": s.userJSON(a.spec.Owner),
		"name": a.spec.Name, "description": nil, "external_url": "https://example.com",
		"html_url": "https://github.com/apps/" + a.spec.Slug, "created_at": ts(a.created), "updated_at": ts(a.created),
		"permissions": permissionsJSON(a), "events": append([]string{}, a.spec.Events...), "installations_count": len(a.installations),
	}
}

func (s *Server) installationJSON(a *appState, in *installationState) obj {
	acct := s.user(in.account)
	typ := "User"
	if !strings.EqualFold(in.account, a.spec.Owner) && strings.HasSuffix(in.account, "-org") {
		typ = "Organization"
	}
	api := s.apiBase()
	// The description's account is a user and an enterprise at once
	// (allOf): it gets the enterprise's required fields too.
	account := s.userJSON(acct.login)
	account["name"], account["slug"] = acct.login, strings.ToLower(acct.login)
	account["created_at"], account["updated_at"] = ts(in.created), ts(in.created)
	return obj{
		"id": in.id, "account": account, "repository_selection": selection(in),
		"access_tokens_url": api + "/app/installations/" + strconv.FormatInt(in.id, 10) + "/access_tokens",
		"repositories_url":  api + "/installation/repositories",
		"html_url":          "https://github.com/settings/installations/" + strconv.FormatInt(in.id, 10),
		"app_id":            a.spec.ID, "app_slug": a.spec.Slug, "target_id": acct.id, "target_type": typ,
		"permissions": permissionsJSON(a), "events": append([]string{}, a.spec.Events...),
		"created_at": ts(in.created), "updated_at": ts(in.created),
		"single_file_name": nil, "suspended_by": nil, "suspended_at": nil,
	}
}

// permissionsJSON is the App's permissions as GitHub lists them.
func permissionsJSON(a *appState) obj {
	perms := obj{}
	for k, v := range a.spec.Permissions {
		perms[k] = v
	}
	return perms
}

// selection is an installation's repository_selection.
func selection(in *installationState) string {
	if len(in.repos) > 0 {
		return "selected"
	}
	return "all"
}

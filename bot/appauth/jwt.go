package appauth

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWT lifetimes: GitHub refuses an iat in the future (so it is set a
// minute in the past, for clock drift) and an exp more than ten minutes
// ahead.
const (
	jwtBackdate = 60 * time.Second
	jwtLife     = 9 * time.Minute // from now; exp − iat = 10 minutes
	jwtReuse    = time.Minute     // a JWT is reused until this close to exp
)

// signer makes the App's JWTs and reuses one until shortly before it
// expires.
type signer struct {
	id  int64
	key *rsa.PrivateKey
	now func() time.Time

	mu  sync.Mutex
	tok string
	exp time.Time
}

// JWT returns the App's JWT: RS256, iss the App id, iat a minute ago, exp
// nine minutes ahead.
func (s *signer) JWT() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.tok != "" && now.Before(s.exp.Add(-jwtReuse)) {
		return s.tok, nil
	}
	exp := now.Add(jwtLife)
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(s.id, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-jwtBackdate)),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("auth: App %d: sign the JWT: %w", s.id, err)
	}
	s.tok, s.exp = tok, exp
	return tok, nil
}

// jwtTransport sends every request with the App's JWT.
type jwtTransport struct {
	s    *signer
	base http.RoundTripper
}

func (t *jwtTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.s.JWT()
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

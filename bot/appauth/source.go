package appauth

import (
	"context"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// tokenTimeout bounds a refresh started through Token, which has no
// context of its own.
const tokenTimeout = time.Minute

// mintFunc asks GitHub for a new access token of an installation.
type mintFunc func(ctx context.Context, installation int64) (*oauth2.Token, error)

// Source is the oauth2.TokenSource of one installation's access tokens. A
// token is reused until shortly before its expiry (RefreshBefore, or half
// its life for a short-lived one); one refresh runs at a time, and callers
// that wait for it take its token.
type Source struct {
	installation int64
	mint         mintFunc
	now          func() time.Time
	early        time.Duration

	refresh chan struct{} // holds one value while a refresh runs

	mu        sync.Mutex
	tok       *oauth2.Token
	refreshAt time.Time
}

func newSource(installation int64, mint mintFunc, now func() time.Time, early time.Duration) *Source {
	return &Source{installation: installation, mint: mint, now: now, early: early, refresh: make(chan struct{}, 1)}
}

// Token returns a valid token, refreshing it if needed; it implements
// oauth2.TokenSource.
func (s *Source) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
	defer cancel()
	return s.TokenContext(ctx)
}

// TokenContext is Token bounded by ctx, also while it waits for another
// caller's refresh.
func (s *Source) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	if t := s.cached(); t != nil {
		return t, nil
	}
	select {
	case s.refresh <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.refresh }()
	if t := s.cached(); t != nil { // refreshed while this caller waited
		return t, nil
	}
	t, err := s.mint(ctx, s.installation)
	if err != nil {
		return nil, err
	}
	now := s.now()
	at := t.Expiry.Add(-s.early)
	if life := t.Expiry.Sub(now); life < 2*s.early {
		at = now.Add(life / 2)
	}
	s.mu.Lock()
	s.tok, s.refreshAt = t, at
	s.mu.Unlock()
	return copyToken(t), nil
}

// Invalidate drops the cached token if it is still access (GitHub refused
// it), so that the next caller refreshes; a token another caller already
// replaced stays.
func (s *Source) Invalidate(access string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken == access {
		s.tok = nil
	}
}

func (s *Source) cached() *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok == nil || !s.now().Before(s.refreshAt) {
		return nil
	}
	return copyToken(s.tok)
}

func copyToken(t *oauth2.Token) *oauth2.Token {
	c := *t
	return &c
}

package appauth

import (
	"io"
	"net/http"
)

// maxDrain is how much of a refused answer's body is read so that its
// connection can be reused.
const maxDrain = 64 << 10

// tokenTransport sends every request with the installation's access token.
// When GitHub answers 401 (a token revoked, or expired earlier than it
// said), it drops the token and sends the request once more with a fresh
// one.
type tokenTransport struct {
	src  *Source
	base http.RoundTripper
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.src.TokenContext(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.send(req, tok.AccessToken)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // the body cannot be sent again
	}
	t.src.Invalidate(tok.AccessToken)
	fresh, err := t.src.TokenContext(req.Context())
	if err != nil {
		return resp, nil // GitHub's 401 says more than a failed refresh
	}
	r := req
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		r = req.Clone(req.Context())
		r.Body = body
	}
	_, _ = io.CopyN(io.Discard, resp.Body, maxDrain)
	_ = resp.Body.Close()
	return t.send(r, fresh.AccessToken)
}

func (t *tokenTransport) send(req *http.Request, access string) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+access)
	return t.base.RoundTrip(r)
}

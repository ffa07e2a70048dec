package access

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Cookie names.
const (
	cookieToken   = "gcloop_dashboard"
	cookieSession = "gcloop_session"
	cookieState   = "gcloop_oauth_state"
)

// maxCookie is the longest cookie value read; longer ones are refused
// before any decoding.
const maxCookie = 4096

var b64 = base64.RawURLEncoding

// sign returns payload.signature, the signature an HMAC-SHA256 of payload.
func sign(key []byte, payload string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return payload + "." + b64.EncodeToString(m.Sum(nil))
}

// verify returns the payload of a value sign made with key, or false.
func verify(key []byte, value string) (string, bool) {
	if len(value) > maxCookie {
		return "", false
	}
	i := strings.LastIndexByte(value, '.')
	if i < 0 {
		return "", false
	}
	payload, sig := value[:i], value[i+1:]
	got, err := b64.DecodeString(sig)
	if err != nil {
		return "", false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	if !hmac.Equal(got, m.Sum(nil)) {
		return "", false
	}
	return payload, true
}

// tokenCookie is the dashboard token's cookie value: an expiry signed with
// a key derived from the token, so the token itself never sits in a cookie.
func (g *Guard) tokenCookie(exp time.Time) string {
	return sign(g.tokenKey, "t"+strconv.FormatInt(exp.Unix(), 10))
}

// tokenCookieValid reports whether value is a token cookie in force.
func (g *Guard) tokenCookieValid(value string) bool {
	payload, ok := verify(g.tokenKey, value)
	if !ok || !strings.HasPrefix(payload, "t") {
		return false
	}
	exp, err := strconv.ParseInt(payload[1:], 10, 64)
	return err == nil && g.now().Unix() < exp
}

// session is what the session cookie holds, encrypted.
type session struct {
	Login string `json:"l"`
	Token string `json:"t"`
	Exp   int64  `json:"e"`
}

// sealSession encrypts s (AES-GCM) and signs the result.
func (g *Guard) sealSession(s session) (string, error) {
	plain, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	aead, err := g.aead()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := aead.Seal(nonce, nonce, plain, []byte(cookieSession))
	return sign(g.sessionSign, b64.EncodeToString(sealed)), nil
}

// openSession returns the session of a cookie value, or an error when it
// is forged, damaged or expired.
func (g *Guard) openSession(value string) (session, error) {
	var s session
	payload, ok := verify(g.sessionSign, value)
	if !ok {
		return s, errors.New("session cookie: bad signature")
	}
	sealed, err := b64.DecodeString(payload)
	if err != nil {
		return s, errors.New("session cookie: not base64")
	}
	aead, err := g.aead()
	if err != nil {
		return s, err
	}
	if len(sealed) < aead.NonceSize() {
		return s, errors.New("session cookie: too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(cookieSession))
	if err != nil {
		return s, errors.New("session cookie: cannot be decrypted")
	}
	if err := json.Unmarshal(plain, &s); err != nil {
		return s, errors.New("session cookie: not a session")
	}
	if s.Login == "" || s.Token == "" {
		return s, errors.New("session cookie: no login")
	}
	if g.now().Unix() >= s.Exp {
		return s, errors.New("session cookie: expired")
	}
	return s, nil
}

func (g *Guard) aead() (cipher.AEAD, error) {
	block, err := aes.NewCipher(g.sessionSeal)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// stateCookie binds an OAuth state to the browser that started the login:
// state, expiry and where to go next, signed.
func (g *Guard) stateCookie(state, next string, exp time.Time) string {
	return sign(g.stateKey, state+"|"+strconv.FormatInt(exp.Unix(), 10)+"|"+b64.EncodeToString([]byte(next)))
}

// openState returns the state and next of a state cookie in force.
func (g *Guard) openState(value string) (state, next string, err error) {
	payload, ok := verify(g.stateKey, value)
	if !ok {
		return "", "", errors.New("state cookie: bad signature")
	}
	parts := strings.Split(payload, "|")
	if len(parts) != 3 || parts[0] == "" {
		return "", "", errors.New("state cookie: malformed")
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || g.now().Unix() >= exp {
		return "", "", errors.New("state cookie: expired")
	}
	n, err := b64.DecodeString(parts[2])
	if err != nil {
		return "", "", errors.New("state cookie: malformed")
	}
	return parts[0], string(n), nil
}

// secureFor reports whether r's cookies are Secure: the request came over
// TLS, or the bot's public URL is https (TLS ends at a proxy in front).
func (g *Guard) secureFor(r *http.Request) bool {
	return g.secure || r.TLS != nil
}

// setCookie sets an HttpOnly, SameSite=Lax cookie, Secure over TLS.
func (g *Guard) setCookie(w http.ResponseWriter, r *http.Request, name, value, path string, exp time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     path,
		Expires:  exp,
		MaxAge:   max(1, int(exp.Sub(g.now()).Seconds())),
		HttpOnly: true,
		Secure:   g.secureFor(r),
		SameSite: http.SameSiteLaxMode,
	})
}

// clearCookie removes a cookie.
func (g *Guard) clearCookie(w http.ResponseWriter, r *http.Request, name, path string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: path, MaxAge: -1, HttpOnly: true, Secure: g.secureFor(r), SameSite: http.SameSiteLaxMode})
}

// randomState returns 32 random bytes, base64url.
func randomState() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return b64.EncodeToString(b), nil
}

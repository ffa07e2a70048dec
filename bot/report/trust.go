package report

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// Trust says which report comments are gcloop's own (DESIGN §4).
type Trust struct {
	// Login is gcloop's identity: only its comments are trusted, compared
	// ASCII case-insensitively and exactly.
	Login string
	// Key is the state-key secret. When set, a comment is trusted only if
	// its state marker carries a valid HMAC-SHA256 of the state (see
	// Scope); when empty, unsigned markers are read as before.
	Key []byte
}

// Scope is what a state signature binds the state to, so that a signed
// marker copied to another repository, pull request or loop id fails.
type Scope struct {
	Owner, Repo string
	PR          int
	LoopID      string
}

// sigPrefix starts the signature field of a signed state marker.
const sigPrefix = "hmac-"

// sigLen is the length of the signature field with its leading space:
// " hmac-" and the unpadded base64url of 32 bytes.
var sigLen = len(" "+sigPrefix) + base64.RawURLEncoding.EncodedLen(sha256.Size)

// headerRE matches the header line of a loop's report comment.
var headerRE = lazyre.New(`\A<!-- gcloop:report ([A-Za-z0-9._-]{1,64}) -->\n`)

// legacyRE matches the start of a report written before the header
// existed: an optional command banner, then the report heading.
var legacyRE = lazyre.New(`\A(?:<!-- gcloop:banner -->\n[^\n]*\n\n)?## (?:✅|🔁|🛑|❔) gcloop `)

// Header is the first line of the report comment of loop id: with the
// state marker as the last line it is the shape FindState trusts.
func Header(loopID string) string {
	return fmt.Sprintf("<!-- gcloop:report %s -->\n", loopID)
}

// Seal renders the state marker line of st: signed over s with key when
// key is set, the plain decide.State.Marker otherwise.
func Seal(st *decide.State, s Scope, key []byte) (string, error) {
	m, err := Marker(st)
	if err != nil {
		return "", err
	}
	if len(key) == 0 {
		return m, nil
	}
	payload := markerRE().FindStringSubmatch(m)
	if payload == nil {
		return "", fmt.Errorf("state marker of %q is malformed", st.ID)
	}
	return strings.TrimSuffix(m, " -->") + " " + sign(key, s, payload[2]) + " -->", nil
}

// sign is the signature field of a payload: HMAC-SHA256 over the scope
// and the base64url payload, as "hmac-<base64url>".
func sign(key []byte, s Scope, payload string) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "gcloop/state/v1\n%s/%s#%d\n%s\n%s", s.Owner, s.Repo, s.PR, s.LoopID, payload)
	return sigPrefix + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Shape errors: why a comment by gcloop's identity is not its report.
var (
	errNoHeader   = errors.New("it does not start with gcloop's report header")
	errNotLast    = errors.New("its state marker is not its last line")
	errTwoMarkers = errors.New("it holds more than one state marker")
	errUnsigned   = errors.New("its state carries no signature, and a state-key is configured")
	errBadSig     = errors.New("its state signature does not match the state-key")
)

// stateLine checks that body has the shape gcloop renders for loop s.LoopID
// — its header first, exactly one state marker, as the last line with
// nothing after it but line breaks — and, with a key, a valid signature.
// It returns the marker line. Without a key, a report written before the
// header existed (Legacy) is read too, so that loops survive the upgrade;
// it is no weaker, since without a key the header is as easy to copy as
// the heading.
func stateLine(body string, s Scope, key []byte) (string, error) {
	if m := headerRE().FindStringSubmatch(body); (m == nil || m[1] != s.LoopID) && (len(key) > 0 || !Legacy(body)) {
		return "", errNoHeader
	}
	if len(strayRE().FindAllStringIndex(body, 2)) > 1 {
		return "", errTwoMarkers
	}
	rest := strings.TrimRight(body, "\r\n")
	line := rest[strings.LastIndexByte(rest, '\n')+1:]
	m := markerRE().FindStringSubmatch(line)
	if m == nil || m[0] != line || m[1] != s.LoopID {
		return "", errNotLast
	}
	switch {
	case len(key) == 0:
		return line, nil // without a key a signature proves nothing: ignored
	case m[3] == "":
		return "", errUnsigned
	case !hmac.Equal([]byte(m[3]), []byte(sign(key, s, m[2]))):
		return "", errBadSig
	}
	return line, nil
}

// ReplaceState puts st, compacted and sealed like Body does, in place of
// the state marker of a report comment FindState trusted. It is an error
// when body does not have gcloop's shape for st.ID.
func ReplaceState(body string, st *decide.State, s Scope, key []byte) (string, error) {
	if st == nil || !decide.ValidID(st.ID) {
		return "", errors.New("report comment: no valid state to carry")
	}
	s.LoopID = st.ID
	old, err := stateLine(body, s, nil)
	if err != nil {
		return "", fmt.Errorf("report comment of loop %s: %w", st.ID, err)
	}
	marker, err := Seal(CompactState(st, StateBudget-sigLen), s, key)
	if err != nil {
		return "", fmt.Errorf("report comment: encode the state: %w", err)
	}
	i := strings.LastIndex(body, old)
	return body[:i] + marker + body[i+len(old):], nil
}

// Legacy reports whether body is a report comment written before the
// header existed; the next write gives it the header.
func Legacy(body string) bool { return legacyRE().MatchString(body) }

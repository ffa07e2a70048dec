package report

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// markerRE is the one syntax of a state marker, the hidden HTML comment
// that carries a loop's state in its report comment:
//
//	<!-- gcloop:state <id> <base64url(JSON)> -->
//	<!-- gcloop:state <id> <base64url(JSON)> hmac-<base64url> -->
//
// Group 1 is the loop id, 2 the payload, 3 the signature field (empty when
// the state is not sealed).
var markerRE = lazyre.New(`<!-- gcloop:state ([A-Za-z0-9._-]{1,64}) ([A-Za-z0-9_-]*={0,2})(?: ([A-Za-z0-9_-]{1,100}))? -->`)

// strayRE finds anything that starts a state marker, however broken: a
// report comment holds exactly one.
var strayRE = lazyre.New(`(?i)<!--\s*gcloop:state`)

// Marker renders the unsigned state marker of st (Seal adds the
// signature).
func Marker(st *decide.State) (string, error) {
	if st == nil {
		return "", errors.New("state marker: no state")
	}
	if !decide.ValidID(st.ID) {
		return "", fmt.Errorf("state marker: id %q: %s", st.ID, decide.IDRule)
	}
	data, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("state marker of %q: %w", st.ID, err)
	}
	return fmt.Sprintf("<!-- gcloop:state %s %s -->", st.ID, base64.RawURLEncoding.EncodeToString(data)), nil
}

// markerLen is the length of the unsigned state marker of loop id for a
// state whose JSON takes n bytes (see Marker).
func markerLen(id string, n int) int {
	return len("<!-- gcloop:state ") + len(id) + len(" ") + base64.RawURLEncoding.EncodedLen(n) + len(" -->")
}

// ErrNoMarker means a text holds no state marker for the loop id.
var ErrNoMarker = errors.New("no state marker")

// ParseMarker finds the state marker of loop id in body and decodes it,
// ignoring any signature (FindState checks those). It returns ErrNoMarker
// when there is none, and another error when the marker is there but
// corrupt.
func ParseMarker(body, id string) (*decide.State, error) {
	if !decide.ValidID(id) {
		return nil, fmt.Errorf("state marker of %q: loop id %s", id, decide.IDRule)
	}
	for _, m := range markerRE().FindAllStringSubmatch(body, -1) {
		if m[1] != id {
			continue
		}
		data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(m[2], "="))
		if err != nil {
			return nil, fmt.Errorf("state marker of %q: bad base64: %w", id, err)
		}
		s, err := decide.DecodeState(strings.NewReader(string(data)))
		if err != nil {
			return nil, fmt.Errorf("state marker of %q: %w", id, err)
		}
		if s.ID != id {
			return nil, fmt.Errorf("state marker of %q holds the state of %q", id, s.ID)
		}
		return s, nil
	}
	return nil, ErrNoMarker
}

// HasMarker reports whether body holds any gcloop state marker.
func HasMarker(body string) bool { return markerRE().MatchString(body) }

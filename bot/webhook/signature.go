package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strings"
	"sync"
)

// signaturePrefix starts the X-Hub-Signature-256 header's value.
const signaturePrefix = "sha256="

// digest is an HMAC-SHA256 sum: the one a delivery's header claims, or the
// one of its body.
type digest [sha256.Size]byte

// signer computes HMAC-SHA256 digests with one secret, reusing its hashes.
type signer struct {
	pool sync.Pool
}

func newSigner(secret []byte) *signer {
	key := append([]byte(nil), secret...)
	return &signer{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// parseSignature returns the digest of an X-Hub-Signature-256 value,
// "sha256=<64 hex digits>", or false when the value is not one: such a
// request is refused before any of its body is read.
func parseSignature(header string) (digest, bool) {
	var sent digest
	hexsig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok || len(hexsig) != 2*sha256.Size {
		return sent, false
	}
	if _, err := hex.Decode(sent[:], []byte(hexsig)); err != nil {
		return sent, false
	}
	return sent, true
}

// hash returns a fresh HMAC to stream a body through; put gives it back.
func (s *signer) hash() hash.Hash {
	m := s.pool.Get().(hash.Hash)
	m.Reset()
	return m
}

func (s *signer) put(m hash.Hash) { s.pool.Put(m) }

// matches reports whether m, the HMAC of a whole body, sums to sent. The
// digests are compared in constant time.
func (s *signer) matches(m hash.Hash, sent digest) bool {
	var sum digest
	m.Sum(sum[:0])
	return hmac.Equal(sum[:], sent[:])
}

// valid reports whether header, the X-Hub-Signature-256 value, is the
// HMAC-SHA256 of body.
func (s *signer) valid(header string, body []byte) bool {
	sent, ok := parseSignature(header)
	if !ok {
		return false
	}
	m := s.hash()
	defer s.put(m)
	m.Write(body)
	return s.matches(m, sent)
}

// Sign is the X-Hub-Signature-256 value GitHub sends with body under
// secret: for tests, load generators and replaying a delivery by hand.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

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

// signer computes HMAC-SHA256 digests with one secret, reusing its hashes.
type signer struct {
	pool sync.Pool
}

func newSigner(secret []byte) *signer {
	key := append([]byte(nil), secret...)
	return &signer{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// valid reports whether header, the X-Hub-Signature-256 value
// "sha256=<64 hex digits>", is the HMAC-SHA256 of body. The digests are
// compared in constant time.
func (s *signer) valid(header string, body []byte) bool {
	hexsig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok || len(hexsig) != 2*sha256.Size {
		return false
	}
	var sent [sha256.Size]byte
	if _, err := hex.Decode(sent[:], []byte(hexsig)); err != nil {
		return false
	}
	var sum [sha256.Size]byte
	m := s.pool.Get().(hash.Hash)
	m.Reset()
	m.Write(body)
	m.Sum(sum[:0])
	s.pool.Put(m)
	return hmac.Equal(sum[:], sent[:])
}

// Sign is the X-Hub-Signature-256 value GitHub sends with body under
// secret: for tests, load generators and replaying a delivery by hand.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

package webhook

import (
	"crypto/sha256"
	"encoding/hex"
)

// bodyDigest is the store's Digest of a signed body: its SHA-256 in hex.
// GitHub signs the body, not the X-GitHub-Delivery header, so a body sent
// again under another delivery id is a replay the store refuses by it.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

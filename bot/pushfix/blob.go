package pushfix

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
)

// BlobID returns Git's object id of a blob holding content: the hex SHA-1
// of "blob <len>\x00" followed by content, as `git hash-object` prints it.
func BlobID(content []byte) string {
	h := newBlobHash(int64(len(content)))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// newBlobHash starts the hash of a blob of size bytes; the caller writes
// exactly size bytes of content.
func newBlobHash(size int64) hash.Hash {
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.FormatInt(size, 10)+"\x00")
	return h
}

// encodeBase64 encodes content for a "base64" blob.
func encodeBase64(content []byte) string { return base64.StdEncoding.EncodeToString(content) }

package ghfake

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sync"

	"github.com/google/go-github/v62/github"
)

// AppKeys returns two RSA keys for test Apps: the same two for the whole
// test binary, since generating one is slow.
var AppKeys = sync.OnceValue(func() [2]*rsa.PrivateKey {
	var out [2]*rsa.PrivateKey
	for i := range out {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		out[i] = k
	}
	return out
})

// KeyPEM is k as GitHub hands an App's private key out: a PKCS #1 PEM
// block.
func KeyPEM(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// Installation hands out the fake's clients the way an App's
// installation tokens would: Token's client for installation ID, an error
// for any other installation.
type Installation struct {
	Server *Server
	ID     int64
	Token  string
}

// Client returns the client of installation.
func (i Installation) Client(_ context.Context, installation int64) (*github.Client, error) {
	if installation != i.ID {
		return nil, fmt.Errorf("ghfake: unknown installation %d", installation)
	}
	return i.Server.Client(i.Token), nil
}

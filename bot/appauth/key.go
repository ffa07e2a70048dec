// Package appauth authenticates gcloop's bot to GitHub: as a GitHub App
// (an RS256 JWT for the App's own endpoints, installation access tokens
// for everything else, cached per installation until shortly before they
// expire) or with one token for a single repository. Clients hands out a
// go-github client per installation, on ghclient's retrying transport.
package appauth

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// ParseKey reads an App's private key: PEM, PKCS #1 ("RSA PRIVATE KEY", as
// GitHub hands it out) or PKCS #8 ("PRIVATE KEY") holding an RSA key.
func ParseKey(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("private key: no PEM block found (want -----BEGIN RSA PRIVATE KEY-----)")
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("private key: PKCS #1: %w", err)
		}
		return k, nil
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("private key: PKCS #8: %w", err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("private key: PKCS #8 holds a %T, want an RSA key", k)
		}
		return rk, nil
	}
	return nil, fmt.Errorf("private key: PEM block %q, want RSA PRIVATE KEY or PRIVATE KEY", block.Type)
}

package appauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	key := ghfake.AppKeys()[0]
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec8, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	tests := []struct {
		name, want string
		in         []byte
	}{
		{"GitHub's PKCS #1 key is read", "", enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))},
		{"a PKCS #8 RSA key is read", "", enc("PRIVATE KEY", pkcs8)},
		{"text around the block is ignored", "", append([]byte("key:\n"), enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))...)},
		{"no PEM at all", "no PEM block", []byte("not a key")},
		{"a public key", `PEM block "PUBLIC KEY"`, enc("PUBLIC KEY", []byte{1, 2})},
		{"a broken PKCS #1 body", "PKCS #1", enc("RSA PRIVATE KEY", []byte{1, 2, 3})},
		{"an EC key", "want an RSA key", enc("PRIVATE KEY", ec8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := ParseKey(tt.in)
			if tt.want == "" {
				if err != nil || !k.Equal(key) {
					t.Errorf("ParseKey: %v; want the key", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseKey: err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}}))
	f.Add(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{0x30, 0x00}}))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\n\n-----END RSA PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKey(data)
		if (k == nil) == (err == nil) {
			t.Fatalf("ParseKey = %v, %v: want a key or an error", k, err)
		}
	})
}

func TestJWTClaims(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := &signer{id: 99, key: ghfake.AppKeys()[0], now: clk.Now}
	first, err := s.JWT()
	if err != nil {
		t.Fatal(err)
	}
	claims := &jwt.RegisteredClaims{}
	tok, err := jwt.ParseWithClaims(first, claims, func(*jwt.Token) (any, error) { return &ghfake.AppKeys()[0].PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(clk.Now))
	if err != nil {
		t.Fatalf("parse the JWT: %v", err)
	}
	now := clk.Now()
	if tok.Method.Alg() != "RS256" || claims.Issuer != "99" ||
		!claims.IssuedAt.Equal(now.Add(-60*time.Second)) || !claims.ExpiresAt.Equal(now.Add(9*time.Minute)) {
		t.Errorf("JWT: alg %s, iss %q, iat %v, exp %v; want RS256, 99, now−60s, now+9m", tok.Method.Alg(), claims.Issuer, claims.IssuedAt, claims.ExpiresAt)
	}
	if life := claims.ExpiresAt.Sub(claims.IssuedAt.Time); life > 10*time.Minute {
		t.Errorf("exp − iat = %v, GitHub allows at most 10 minutes", life)
	}
	clk.Advance(7 * time.Minute)
	if again, _ := s.JWT(); again != first {
		t.Error("a JWT two minutes from expiry was not reused")
	}
	clk.Advance(90 * time.Second)
	if again, _ := s.JWT(); again == first {
		t.Error("a JWT thirty seconds from expiry was reused")
	}
}

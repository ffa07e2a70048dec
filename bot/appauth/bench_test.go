package appauth

import (
	"context"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// BenchmarkCachedToken is the cost every GitHub request pays for its
// installation token once one is cached.
func BenchmarkCachedToken(b *testing.B) {
	src := newSource(1, func(context.Context, int64) (*oauth2.Token, error) {
		return &oauth2.Token{AccessToken: "ghs_x", Expiry: time.Now().Add(time.Hour)}, nil
	}, time.Now, DefaultRefreshBefore)
	ctx := context.Background()
	if _, err := src.TokenContext(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := src.TokenContext(ctx); err != nil {
				b.Error(err)
			}
		}
	})
}

// BenchmarkSignJWT is one RS256 signature of the App's JWT (reused for
// minutes, so paid about once per eight minutes).
func BenchmarkSignJWT(b *testing.B) {
	var now time.Time
	s := &signer{id: 1, key: ghfake.AppKeys()[0], now: func() time.Time { return now }}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now = time.Unix(int64(i)*600, 0) // every call past the reuse window
		if _, err := s.JWT(); err != nil {
			b.Fatal(err)
		}
	}
}

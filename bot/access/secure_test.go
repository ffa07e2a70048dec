package access

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCookiesAreSecureOverTLS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		public string
		tls    bool
		want   bool
	}{
		{"no public URL, plain HTTP", "", false, false},
		{"no public URL, over TLS", "", true, true},
		{"an http public URL, plain HTTP", "http://localhost:8080", false, false},
		{"an http public URL, over TLS", "http://localhost:8080", true, true},
		{"an https public URL: TLS ends at a proxy", "https://bot.example.com", false, true},
		{"an https public URL, over TLS", "https://bot.example.com", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := New(Config{DashboardToken: goodToken, PublicURL: tt.public, Now: (&clock{now: t0}).Now, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			g.Routes(mux)
			mux.Handle("/", g.Wrap(seen(g)))
			for _, target := range []string{"/?token=" + goodToken, "/auth/logout"} {
				r := httptest.NewRequest("GET", target, nil)
				r.RemoteAddr = "203.0.113.9:1"
				if tt.tls {
					r.TLS = &tls.ConnectionState{}
				}
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				c := cookieNamed(w, cookieToken)
				if c == nil {
					t.Fatalf("GET %s set no %s cookie (status %d)", target, cookieToken, w.Code)
				}
				if c.Secure != tt.want {
					t.Errorf("GET %s: cookie Secure = %v, want %v", target, c.Secure, tt.want)
				}
			}
		})
	}
}

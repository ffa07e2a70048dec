package dash

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	h := Handler()
	tests := []struct {
		method, path string
		header       string // If-None-Match
		want         int
	}{
		{"GET", "/", "", 200},
		{"HEAD", "/", "", 200},
		{"POST", "/", "", 405},
		{"GET", "/index.html", "", 404},
		{"GET", "/../etc/passwd", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(tt.method, "/", nil)
			r.URL.Path = tt.path
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d", w.Code, tt.want)
			}
			if tt.want != 200 {
				return
			}
			csp := w.Header().Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'sha256-", "style-src 'sha256-", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe") {
				t.Errorf("CSP %q allows unsafe sources", csp)
			}
			if tt.method == "GET" && !strings.Contains(w.Body.String(), `id="loops"`) {
				t.Error("not the dashboard")
			}
		})
	}
	r := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	r = httptest.NewRequest("GET", "/", nil)
	r.Header.Set("If-None-Match", w.Header().Get("ETag"))
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", w.Code)
	}
}

func TestPageHasNoUnescapedInsertion(t *testing.T) {
	t.Parallel()
	// Event text reaches the page through textContent only: any HTML an
	// event carries stays text.
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(string(page), bad) {
			t.Errorf("the page uses %s", bad)
		}
	}
}

func TestPageListsDeadDeliveriesAndRedeliversAsAnOperator(t *testing.T) {
	t.Parallel()
	// The header is the one the deliveries API demands of a redelivery
	// (bot/server's OperatorHeader): a page of another site cannot send it.
	for _, want := range []string{`id="dead"`, `"api/deliveries?state=dead&limit=50"`, `"/redeliver", {method: "POST"`, `"X-Gcloop-Operator": "dashboard"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

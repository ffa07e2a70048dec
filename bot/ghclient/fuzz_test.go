package ghclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// answer is one canned response of the fake base transport.
type answer struct {
	status                     int
	retryAfter, remaining, rst string
	body                       []byte
}

// cannedBase answers every request with the same response and counts them.
type cannedBase struct {
	a     answer
	calls int
}

func (b *cannedBase) RoundTrip(req *http.Request) (*http.Response, error) {
	b.calls++
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{}
	for k, v := range map[string]string{"Retry-After": b.a.retryAfter, "X-RateLimit-Remaining": b.a.remaining, "X-RateLimit-Reset": b.a.rst} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return &http.Response{StatusCode: b.a.status, Header: h, Body: io.NopCloser(bytes.NewReader(b.a.body)), Request: req}, nil
}

// FuzzTransportHeaders sends one request through the Transport while the
// server answers with arbitrary status codes, Retry-After,
// X-RateLimit-Remaining and X-RateLimit-Reset headers and bodies. Whatever
// the headers say, every wait lies within [0, MaxWait], the attempts stop
// at MaxRetries+1, a POST is never replayed after a 5xx, a refused wait is
// a *WaitError of a 403 or 429, and the body the caller gets is the one
// the server sent.
func FuzzTransportHeaders(f *testing.F) {
	for _, s := range []struct {
		method                     uint8
		status                     int
		retryAfter, remaining, rst string
		body                       string
	}{
		{0, 200, "", "", "", `{"id":1}`},
		{0, 429, "3", "", "", ""},
		{0, 429, "Wed, 21 Oct 2015 07:28:00 GMT", "", "", ""},
		{0, 403, "", "0", "1767323100", `{"message":"API rate limit exceeded"}`},
		{0, 403, "", "0", "9223372036854775807", ""},
		{0, 403, "", "0", "-9223372036854775808", ""},
		{0, 403, "", "0", "9223371974719179007", ""}, // the last second time.Unix can hold
		{1, 403, "", "", "", `{"message":"You have exceeded a secondary rate limit","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`},
		{1, 403, "", "", "", `{"message":"Resource not accessible by integration"}`},
		{1, 502, "", "", "", ""},
		{2, 500, "", "", "", ""},
		{2, 503, "120", "", "", ""},
		{0, 503, "0", "", "", ""},
		{3, 502, "Wed, 21 Oct 2015 07:28:00 GMT", "", "", ""},
		{0, 504, "99999999999999999999", "", "", ""},
		{3, 429, "9999999999999", "", "", ""},
		{0, 429, " 7 ", "", "", ""},
		{0, 429, "-1", "", "", ""},
	} {
		f.Add(s.method, s.status, s.retryAfter, s.remaining, s.rst, []byte(s.body))
	}
	// A 403 body longer than what is read to classify it.
	f.Add(uint8(0), 403, "", "", "", []byte(`{"message":"`+strings.Repeat("x", maxErrorBody)+`"}`))
	f.Fuzz(func(t *testing.T, m uint8, status int, retryAfter, remaining, rst string, body []byte) {
		if status < 100 || status > 999 {
			return // net/http never hands out such a status
		}
		checkTransport(t, methods[int(m)%len(methods)], answer{status, retryAfter, remaining, rst, body})
	})
}

var methods = []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}

// checkTransport sends one request through a Transport whose server always
// answers a, and checks the properties FuzzTransportHeaders names.
func checkTransport(t *testing.T, method string, a answer) {
	t.Helper()
	const maxRetries = 3
	const maxWait = 90 * time.Second
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	status, body := a.status, a.body
	base := &cannedBase{a: a}
	var waits []time.Duration
	tr := NewTransport(Options{
		Base: base, MaxRetries: maxRetries, MaxWait: maxWait, MutationPause: -1, CallTimeout: -1,
		Now:   func() time.Time { return now },
		Rand:  func() float64 { return 0.5 },
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
	})
	var reqBody io.Reader
	if method != http.MethodGet {
		reqBody = strings.NewReader(`{"body":"x"}`)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, "https://api.github.com/repos/o/r/issues", reqBody)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)

	for _, d := range waits {
		if d < 0 || d > maxWait {
			t.Fatalf("waited %v, want within [0, %v]", d, maxWait)
		}
	}
	if base.calls > maxRetries+1 {
		t.Fatalf("%d attempts, want at most %d", base.calls, maxRetries+1)
	}
	if method == http.MethodPost && status >= 500 && base.calls > 1 {
		t.Fatalf("POST sent %d times after HTTP %d", base.calls, status)
	}
	if err != nil {
		var we *WaitError
		if !errors.As(err, &we) {
			t.Fatalf("unexpected error %T: %v", err, err)
		}
		if we.Status != status || (status != http.StatusForbidden && status != http.StatusTooManyRequests) {
			t.Fatalf("WaitError of HTTP %d for a %d", we.Status, status)
		}
		if we.Wait <= we.Limit {
			t.Fatalf("refused a wait of %v within the limit %v", we.Wait, we.Limit)
		}
		return
	}
	got, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rerr != nil || !bytes.Equal(got, body) {
		t.Fatalf("caller read %d bytes (%v), the server sent %d", len(got), rerr, len(body))
	}
}

func TestTransportHeaderEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    answer
	}{
		{"a reset too far off for a Duration is refused, not waited negative",
			answer{status: 403, remaining: "0", rst: "9223371974719179007"}},
		{"the largest reset", answer{status: 403, remaining: "0", rst: "9223372036854775807"}},
		{"the smallest reset", answer{status: 403, remaining: "0", rst: "-9223372036854775808"}},
		{"a reset in the past", answer{status: 429, rst: "1"}},
		{"a 403 body longer than what is read to classify it reaches the caller whole",
			answer{status: 403, body: []byte(`{"message":"` + strings.Repeat("x", maxErrorBody) + `"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkTransport(t, http.MethodGet, tt.a)
		})
	}
}

// FuzzDescribe turns arbitrary error answers of GitHub (status, headers and
// body, decoded by go-github) into the line a PR comment shows. Describe
// never panics, writes one line that starts with the Kind and never shows
// the request's URL; Classify agrees with the status.
func FuzzDescribe(f *testing.F) {
	f.Add(422, "", `{"message":"Validation Failed","errors":[{"resource":"Issue","field":"title","code":"missing_field"}]}`)
	f.Add(403, "0", `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`)
	f.Add(403, "", `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
	f.Add(404, "", `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
	f.Add(401, "", `{"message":"Bad credentials"}`)
	f.Add(500, "", "<html>\n<body>oops</body>\n</html>")
	f.Add(409, "", `{"message":"a\nb\r\nc","errors":[{"message":"line\none"}]}`)
	f.Fuzz(func(t *testing.T, status int, remaining, body string) {
		if status < 400 || status > 599 {
			return // CheckResponse accepts everything else
		}
		u, _ := url.Parse("https://api.github.test/repos/o/secret-path/issues")
		h := http.Header{}
		if remaining != "" {
			h.Set("X-RateLimit-Remaining", remaining)
		}
		resp := &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)),
			Request: &http.Request{Method: http.MethodPost, URL: u}}
		err := github.CheckResponse(resp)
		if err == nil {
			t.Fatalf("no error for HTTP %d", status)
		}
		k := Classify(err)
		d := Describe(err)
		if strings.ContainsAny(d, "\r\n") || !strings.HasPrefix(d, string(k)) {
			t.Fatalf("Describe = %q, want one line starting with %q", d, k)
		}
		if strings.Contains(d, "secret-path") && !strings.Contains(body, "secret-path") {
			t.Fatalf("Describe shows the request URL: %q", d)
		}
		want := map[int]Kind{401: KindUnauthorized, 404: KindNotFound, 409: KindConflict, 410: KindNotFound, 422: KindValidation, 429: KindRateLimited}[status]
		if status >= 500 {
			want = KindServer
		}
		if want != "" && k != want {
			t.Fatalf("HTTP %d classified %q, want %q", status, k, want)
		}
	})
}

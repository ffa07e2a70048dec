package webhook_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/webhook"
)

// rawPost opens a connection to srv and sends the head of a POST
// /webhook whose body claims length bytes, signed with sig, and first the
// bytes of body; the caller sends the rest or idles.
func rawPost(t *testing.T, srv *httptest.Server, id, sig string, length int, body []byte) net.Conn {
	t.Helper()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "POST /webhook HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"X-GitHub-Event: installation\r\nX-GitHub-Delivery: " + id + "\r\nX-Hub-Signature-256: " + sig + "\r\n" +
		"Content-Length: " + strconv.Itoa(length) + "\r\n\r\n"
	if _, err := c.Write(append([]byte(head), body...)); err != nil {
		t.Fatal(err)
	}
	return c
}

// answerOf reads the response on c, waiting at most 20 s (a bound on a
// test that went wrong, not a measure); 0 when the server closed the
// connection without one.
func answerOf(t *testing.T, c net.Conn) (*http.Response, string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// installation is a signed-able installation payload of about size bytes.
func installation(size int) []byte {
	return append(append([]byte(`{"action":"created","installation":{"id":9},"pad":"`), bytes.Repeat([]byte("x"), max(0, size-60))...), `"}`...)
}

// waitUnverified waits until rc holds at least n unverified bytes.
func waitUnverified(t *testing.T, rc *webhook.Receiver, n int64) {
	t.Helper()
	for i := 0; rc.Unverified() < n; i++ {
		if i > 2000 {
			t.Fatalf("the receiver holds %d unverified bytes, want %d", rc.Unverified(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func newReceiver(t *testing.T, fs *testStore, o webhook.ReceiverOptions) (*webhook.Receiver, *httptest.Server) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = quiet
	}
	rc, err := webhook.NewReceiver(secret, fs, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv
}

func TestSlowBodiesAreCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trickle time.Duration // 0: idle after the first bytes
	}{
		{"a sender that idles after a few bytes", 0},
		{"a sender that trickles a byte at a time", 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			_, srv := newReceiver(t, fs, webhook.ReceiverOptions{RateGrace: 300 * time.Millisecond, MinRate: 64 << 10})
			body := installation(1 << 20)
			c := rawPost(t, srv, "d-slow", webhook.Sign(secret, body), len(body), body[:10])
			if tt.trickle > 0 {
				done := make(chan struct{})
				defer close(done)
				go func() {
					for i := 10; i < len(body); i++ {
						select {
						case <-done:
							return
						case <-time.After(tt.trickle):
						}
						if _, err := c.Write(body[i : i+1]); err != nil {
							return
						}
					}
				}()
			}
			resp, msg := answerOf(t, c)
			if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(msg, "minimum rate") {
				t.Errorf("answer %d %s, want 408 naming the minimum rate", resp.StatusCode, msg)
			}
			if fs.count("Add") != 0 {
				t.Error("a cut body reached the store")
			}
		})
	}
}

func TestUnverifiedBytesAreBounded(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	tests := []struct {
		name     string
		wait     time.Duration // ReceiverOptions.BusyWait
		release  bool          // the first sender gives up while the second waits
		status   int
		result   string
		accepted bool
	}{
		{"no room and no wait: 503", -1, false, 503, webhook.Busy, false},
		{"room made while waiting: accepted", 10 * time.Second, true, 202, webhook.Accepted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			results := make(chan string, 4)
			rc, srv := newReceiver(t, fs, webhook.ReceiverOptions{MaxBody: limit, MaxUnverified: limit, BusyWait: tt.wait,
				Observe: func(_, result string, _ time.Duration) { results <- result }})
			// A body that holds most of the bound, then stops sending.
			hog := installation(limit)
			c := rawPost(t, srv, "d-hog", webhook.Sign(secret, hog), len(hog), hog[:limit-4<<10])
			waitUnverified(t, rc, limit-4<<10)
			if tt.release {
				go func() {
					time.Sleep(50 * time.Millisecond)
					c.Close()
				}()
			}
			body := installation(16 << 10)
			status, msg := do(t, srv.Client(), request(t, srv.URL, "installation", "d-valid", body))
			if status != tt.status {
				t.Fatalf("the second delivery: %d %s, want %d", status, msg, tt.status)
			}
			_, stored := fs.delivery("d-valid")
			if stored != tt.accepted {
				t.Errorf("stored = %v, want %v", stored, tt.accepted)
			}
			// The first sender's result may come first (a body cut short).
			var seen []string
			for len(seen) < 2 && !slices.Contains(seen, tt.result) {
				seen = append(seen, <-results)
			}
			if !slices.Contains(seen, tt.result) {
				t.Errorf("observed %q, want %q among them", seen, tt.result)
			}
			c.Close()
			for i := 0; rc.Unverified() != 0; i++ {
				if i > 2000 {
					t.Fatalf("%d unverified bytes still held after every request ended", rc.Unverified())
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

func TestBusyAnswerCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	fs := newTestStore(nil)
	rc, srv := newReceiver(t, fs, webhook.ReceiverOptions{MaxBody: limit, MaxUnverified: limit, BusyWait: -1})
	hog := installation(limit)
	rawPost(t, srv, "d-hog", webhook.Sign(secret, hog), len(hog), hog[:limit-1<<10])
	waitUnverified(t, rc, limit-1<<10)
	resp, err := srv.Client().Do(request(t, srv.URL, "installation", "d-valid", installation(8<<10)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("answer %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestLargeBodiesAreSpooledAndStoredWhole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"to a spool directory", func(t *testing.T) string { return t.TempDir() }},
		{"to no directory: in memory", func(t *testing.T) string { return "/nonexistent/gcloop-spool" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tt.dir(t)
			fs := newTestStore(nil)
			_, srv := newReceiver(t, fs, webhook.ReceiverOptions{SpoolDir: dir, SpoolAbove: 64 << 10})
			body := installation(3 << 20)
			if status, msg := do(t, srv.Client(), request(t, srv.URL, "installation", "d-big", body)); status != 202 {
				t.Fatalf("%d %s, want 202", status, msg)
			}
			d, ok := fs.delivery("d-big")
			if !ok || !bytes.Equal(d.Payload, body) {
				t.Fatalf("stored %v, %d bytes; want the body of %d", ok, len(d.Payload), len(body))
			}
			bad := append([]byte(nil), body...)
			bad[len(bad)/2] = 'y'
			req := request(t, srv.URL, "installation", "d-forged", bad)
			req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, body))
			if status, _ := do(t, srv.Client(), req); status != 401 {
				t.Errorf("a body changed in its spooled part: %d, want 401", status)
			}
			if entries, err := os.ReadDir(dir); err == nil && len(entries) != 0 {
				t.Errorf("%d spool files left behind", len(entries))
			}
		})
	}
}

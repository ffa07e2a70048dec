package webhook_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gcloop/gcloop/bot/webhook"
)

// zeros yields n zero bytes and counts how many were taken.
type zeros struct {
	left  int64
	taken *atomic.Int64
}

func (z *zeros) Read(p []byte) (int, error) {
	if z.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.left)
	clear(p[:n])
	z.left -= n
	z.taken.Add(n)
	return int(n), nil
}

func TestOversizeBodiesAreRefusedWithoutReadingThem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		size    int64
		chunked bool
		max     int64 // the receiver's MaxBody, 0 for the default
		maxRead int64 // the most the client may have sent
	}{
		{"a length over 25 MB is refused before reading", webhook.MaxBody + 1, false, 0, 8 << 20},
		{"a chunked body is cut at the cap", 100 << 20, true, 1 << 20, 1<<20 + 16<<20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			srv := receiver(t, fs, webhook.ReceiverOptions{MaxBody: tt.max})
			var taken atomic.Int64
			var body io.Reader = &zeros{left: tt.size, taken: &taken}
			if tt.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL, body)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.chunked {
				req.ContentLength = tt.size
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "issue_comment")
			req.Header.Set("X-GitHub-Delivery", "d-big")
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("the client got no answer: %v (sent %d bytes)", err, taken.Load())
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413", resp.StatusCode)
			}
			if n := taken.Load(); n > tt.maxRead {
				t.Errorf("the client sent %d bytes of %d, want at most %d", n, tt.size, tt.maxRead)
			}
			if fs.count("Add") != 0 {
				t.Error("an oversize body reached the store")
			}
		})
	}
}

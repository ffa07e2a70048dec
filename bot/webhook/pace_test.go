package webhook

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/store"
)

// steppedClock moves on by step at each read of a steppedBody.
type steppedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *steppedClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// steppedBody yields body n bytes a read, each read taking step on clock.
type steppedBody struct {
	body  []byte
	n     int
	step  time.Duration
	clock *steppedClock
	// stall, when set, is a pause after the first stallAt bytes.
	stallAt int
	stall   time.Duration
	read    int
}

func (b *steppedBody) Read(p []byte) (int, error) {
	if len(b.body) == 0 {
		return 0, io.EOF
	}
	b.clock.add(b.step)
	if b.stall > 0 && b.read >= b.stallAt {
		b.clock.add(b.stall)
		b.stall = 0
	}
	k := copy(p[:min(len(p), b.n)], b.body)
	b.body = b.body[k:]
	b.read += k
	return k, nil
}

// TestBodyPace paces bodies on a clock of the test's: the recorder takes
// no read deadline, so the receiver checks each read after it came.
func TestBodyPace(t *testing.T) {
	t.Parallel()
	secret := []byte("pace-test-secret-0123456789")
	tests := []struct {
		name   string
		pad    int           // the body's size, about
		n      int           // bytes a read
		step   time.Duration // time a read takes
		status int
		// a pause of stall after stallAt bytes
		stallAt int
		stall   time.Duration
	}{
		{"fast", 4000, 1 << 20, time.Millisecond, http.StatusAccepted, 0, 0},
		{"slow but within the grace", 4000, 100, 100 * time.Millisecond, http.StatusAccepted, 0, 0}, // 41 reads, 4.1 s
		{"a byte a second: cut after the grace", 4000, 1, time.Second, http.StatusRequestTimeout, 0, 0},
		{"a stall past the grace", 4000, 1 << 20, 6 * time.Second, http.StatusRequestTimeout, 0, 0},
		{"at the minimum rate", 200 << 10, 1024, time.Second / 16, http.StatusAccepted, 0, 0}, // 16 KiB/s, 12.5 s
		{"at half of it", 200 << 10, 1024, time.Second / 8, http.StatusRequestTimeout, 0, 0},
		// 100 KiB at once would earn 6 s at 16 KiB/s: no more than the grace is kept.
		{"fast, then a stall longer than the grace", 200 << 10, 1024, time.Millisecond, http.StatusRequestTimeout, 100 << 10, 6 * time.Second},
		{"fast, then a stall within the grace", 200 << 10, 1024, time.Millisecond, http.StatusAccepted, 100 << 10, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rc, err := NewReceiver(secret, store.NewMemory(store.Options{}), ReceiverOptions{
				Logger: quietLog(), MinRate: 16 << 10, RateGrace: 5 * time.Second, BodyTimeout: time.Minute,
			})
			if err != nil {
				t.Fatal(err)
			}
			clk := &steppedClock{now: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}
			rc.clock = clk.Now
			b := append(append([]byte(`{"installation":{"id":1},"pad":"`), bytes.Repeat([]byte("y"), tt.pad)...), `"}`...)
			req := httptest.NewRequest(http.MethodPost, "/webhook", &steppedBody{body: b, n: tt.n, step: tt.step, clock: clk, stallAt: tt.stallAt, stall: tt.stall})
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "installation")
			req.Header.Set("X-GitHub-Delivery", "d-pace")
			req.Header.Set("X-Hub-Signature-256", Sign(secret, b))
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, req)
			if w.Code != tt.status {
				t.Errorf("status %d %s, want %d", w.Code, w.Body, tt.status)
			}
		})
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

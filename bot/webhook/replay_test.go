package webhook_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A signed body sent again under another X-GitHub-Delivery id — GitHub
// signs the body, not that header — is a replay: answered as a duplicate,
// never queued twice.
func TestReceiverRefusesASignedBodyReplayedUnderANewID(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		open func(t *testing.T) *testStore
	}{
		{"memory", func(*testing.T) *testStore { return newTestStore(nil) }},
		{"postgres", func(t *testing.T) *testStore { return newPostgresStore(t, pgtest.URL(t)) }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			fs := st.open(t)
			srv := receiver(t, fs, webhook.ReceiverOptions{})
			body := fixture(t, "issue_comment.created.json")
			form := []byte("payload=" + url.QueryEscape(string(body)))
			tests := []struct {
				name, id, want string
				status         int
				body           []byte
				form           bool
			}{
				{"the first delivery is queued", "d-1", `{"delivery":"d-1"}`, http.StatusAccepted, body, false},
				{"its body under a new id is a duplicate", "d-2", `{"duplicate":true}`, http.StatusOK, body, false},
				{"and under a third id too", "d-3", `{"duplicate":true}`, http.StatusOK, body, false},
				{"the same payload signed as a form is another body", "d-4", `{"delivery":"d-4"}`, http.StatusAccepted, form, true},
				{"that form replayed is a duplicate", "d-5", `{"duplicate":true}`, http.StatusOK, form, true},
			}
			for i, tt := range tests {
				req := request(t, srv.URL, "issue_comment", tt.id, tt.body)
				if tt.form {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				status, got := do(t, srv.Client(), req)
				if status != tt.status || strings.TrimSpace(got) != tt.want {
					t.Fatalf("step %d (%s): %d %s; want %d %s", i+1, tt.name, status, got, tt.status, tt.want)
				}
			}
			if got := fs.queued(); got != 2 {
				t.Errorf("%d deliveries queued, want 2", got)
			}
			if got := len(fs.eventsOf(event.Delivery)); got != 2 {
				t.Errorf("%d delivery events, want 2", got)
			}
			if d, _ := fs.delivery("d-1"); d.Digest != sha256Hex(body) {
				t.Errorf("digest %q, want the body's SHA-256 %s", d.Digest, sha256Hex(body))
			}
		})
	}
}

package webhook_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/webhook"
)

// FuzzReceiver sends any method, headers and body, the body in reads of
// any size and spooled past any threshold: the receiver answers one of its
// statuses, never panics, never a 5xx but the 503 of a failing store,
// queues nothing that is not signed, stores a signed JSON body byte for
// byte however it came and leaves no spool file behind.
func FuzzReceiver(f *testing.F) {
	for _, s := range []struct{ event, file string }{
		{"issue_comment", "issue_comment.created.json"}, {"pull_request", "pull_request.closed.json"},
		{"workflow_run", "workflow_run.completed.json"}, {"ping", "ping.json"}, {"installation", "installation.created.json"},
	} {
		body := fixture(f, s.file)
		f.Add("POST", s.event, "d-1", "application/json", uint8(0), body, false, uint16(0), uint16(0))
		f.Add("POST", s.event, "d-1", "application/x-www-form-urlencoded", uint8(0), []byte(url.Values{"payload": {string(body)}}.Encode()), false, uint16(7), uint16(100))
		f.Add("POST", s.event, "d-1", "application/json", uint8(0), body, true, uint16(0), uint16(0))
		f.Add("POST", s.event, "d-1", "application/json", uint8(1), body, false, uint16(1), uint16(1))
		f.Add("POST", s.event, "d-1", "application/json", uint8(0), body, false, uint16(1000), uint16(512))
	}
	f.Add("POST", "issue_comment", "d-1", "application/json", uint8(0), []byte(`{"issue":{"pull_request":null,"number":-3}}`), false, uint16(3), uint16(10))
	f.Add("POST", "workflow_run", "d-1", "application/json", uint8(0), []byte(`{"workflow_run":{"pull_requests":[{"number":1e99}]}}`), false, uint16(0), uint16(0))
	f.Add("POST", "issue_comment", "", "text/plain; charset=\"", uint8(2), []byte("{"), false, uint16(0), uint16(0))
	f.Add("GET", "", "", "", uint8(2), []byte(nil), false, uint16(0), uint16(0))
	f.Add("POST", "issue_comment", "d-1", "application/x-www-form-urlencoded", uint8(0), []byte("payload=%zz"), false, uint16(2), uint16(3))
	spoolDir := f.TempDir()
	f.Fuzz(func(t *testing.T, method, ev, id, ct string, sigMode uint8, body []byte, storeFails bool, chunk, spoolAbove uint16) {
		fs := newTestStore(nil)
		if storeFails {
			fs.fail("Add", errors.New("database down"))
		}
		rc, err := webhook.NewReceiver(secret, fs, webhook.ReceiverOptions{Logger: quiet, MaxBody: 64 << 10,
			SpoolDir: spoolDir, SpoolAbove: int64(spoolAbove)})
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = bytes.NewReader(body)
		if chunk > 0 {
			r = &pieces{r: r, n: int(chunk)}
		}
		req := httptest.NewRequest(http.MethodPost, "/webhook", r)
		req.ContentLength = int64(len(body))
		req.Method = method
		for k, v := range map[string]string{"X-GitHub-Event": ev, "X-GitHub-Delivery": id, "Content-Type": ct} {
			if v != "" {
				req.Header[k] = []string{v}
			}
		}
		signed := false
		switch sigMode % 3 {
		case 0:
			req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, body))
			signed = true
		case 1:
			req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte("guess"), body))
		}
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		switch w.Code {
		case 200, 202, 400, 401, 405, 413, 415:
		case 503:
			if !storeFails {
				t.Fatalf("503 from a store that works")
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		if !signed && (w.Code == 200 || w.Code == 202 || w.Code == 400 || w.Code == 415 || fs.count("Add") > 0) {
			t.Fatalf("an unsigned request got %d and %d adds", w.Code, fs.count("Add"))
		}
		if d, ok := fs.delivery(id); ok && w.Code == 202 && strings.HasPrefix(ct, "application/json") && !bytes.Equal(d.Payload, body) {
			t.Fatalf("stored %d bytes, not the %d-byte body sent", len(d.Payload), len(body))
		}
		if rc.Unverified() != 0 {
			t.Fatalf("%d unverified bytes held after the request", rc.Unverified())
		}
		if left, _ := os.ReadDir(spoolDir); len(left) != 0 {
			t.Fatalf("%d spool files left behind", len(left))
		}
	})
}

// pieces reads r at most n bytes at a time.
type pieces struct {
	r io.Reader
	n int
}

func (p *pieces) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), p.n)]) }

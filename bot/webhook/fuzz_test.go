package webhook_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/gcloop/gcloop/bot/webhook"
)

// FuzzReceiver sends any method, headers and body: the receiver answers
// one of its statuses, never panics, never a 5xx but the 503 of a failing
// store, and queues nothing that is not signed.
func FuzzReceiver(f *testing.F) {
	for _, s := range []struct{ event, file string }{
		{"issue_comment", "issue_comment.created.json"}, {"pull_request", "pull_request.closed.json"},
		{"workflow_run", "workflow_run.completed.json"}, {"ping", "ping.json"}, {"installation", "installation.created.json"},
	} {
		body := fixture(f, s.file)
		f.Add("POST", s.event, "d-1", "application/json", uint8(0), body, false)
		f.Add("POST", s.event, "d-1", "application/x-www-form-urlencoded", uint8(0), []byte(url.Values{"payload": {string(body)}}.Encode()), false)
		f.Add("POST", s.event, "d-1", "application/json", uint8(0), body, true)
		f.Add("POST", s.event, "d-1", "application/json", uint8(1), body, false)
	}
	f.Add("POST", "issue_comment", "d-1", "application/json", uint8(0), []byte(`{"issue":{"pull_request":null,"number":-3}}`), false)
	f.Add("POST", "workflow_run", "d-1", "application/json", uint8(0), []byte(`{"workflow_run":{"pull_requests":[{"number":1e99}]}}`), false)
	f.Add("POST", "issue_comment", "", "text/plain; charset=\"", uint8(2), []byte("{"), false)
	f.Add("GET", "", "", "", uint8(2), []byte(nil), false)
	f.Add("POST", "issue_comment", "d-1", "application/x-www-form-urlencoded", uint8(0), []byte("payload=%zz"), false)
	f.Fuzz(func(t *testing.T, method, ev, id, ct string, sigMode uint8, body []byte, storeFails bool) {
		fs := newTestStore(nil)
		if storeFails {
			fs.fail("Add", errors.New("database down"))
		}
		rc, err := webhook.NewReceiver(secret, fs, webhook.ReceiverOptions{Logger: quiet, MaxBody: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
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
	})
}

package webhook_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/google/go-cmp/cmp"
)

// receiver serves a receiver over fs on a loopback server.
func receiver(t *testing.T, fs *testStore, o webhook.ReceiverOptions) *httptest.Server {
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
	return srv
}

func TestReceiverAnswers(t *testing.T) {
	t.Parallel()
	comment := fixture(t, "issue_comment.created.json")
	type change func(r *http.Request)
	header := func(k, v string) change { return func(r *http.Request) { r.Header.Set(k, v) } }
	drop := func(k string) change { return func(r *http.Request) { r.Header.Del(k) } }
	form := url.Values{"payload": {string(comment)}}.Encode()
	tests := []struct {
		name     string
		event    string
		body     []byte
		changes  []change
		storeErr error
		status   int
		want     string // a piece of the answer
		stored   bool
	}{
		{name: "an issue comment is queued", event: "issue_comment", body: comment, status: 202, want: `{"delivery":"d-1"}`, stored: true},
		{name: "a ping is answered and not queued", event: "ping", body: fixture(t, "ping.json"), status: 200, want: `{"pong":true}`},
		{name: "an installation is queued", event: "installation", body: fixture(t, "installation.created.json"), status: 202, stored: true},
		{name: "a form-encoded payload is queued", event: "issue_comment", body: []byte(form),
			changes: []change{header("Content-Type", "application/x-www-form-urlencoded")}, status: 202, stored: true},
		{name: "JSON with a charset", event: "issue_comment", body: comment, changes: []change{header("Content-Type", "application/json; charset=utf-8")}, status: 202, stored: true},
		{name: "no signature", event: "issue_comment", body: comment, changes: []change{drop("X-Hub-Signature-256")}, status: 401, want: "X-Hub-Signature-256"},
		{name: "a signature with another secret", event: "issue_comment", body: comment,
			changes: []change{header("X-Hub-Signature-256", webhook.Sign([]byte("guess"), comment))}, status: 401},
		{name: "a SHA-1 signature only", event: "issue_comment", body: comment,
			changes: []change{drop("X-Hub-Signature-256"), header("X-Hub-Signature", "sha1=0000000000000000000000000000000000000000")}, status: 401},
		{name: "a signature that is not hex", event: "issue_comment", body: comment,
			changes: []change{header("X-Hub-Signature-256", "sha256="+strings.Repeat("zz", 32))}, status: 401},
		{name: "a truncated signature", event: "issue_comment", body: comment,
			changes: []change{header("X-Hub-Signature-256", webhook.Sign(secret, comment)[:40])}, status: 401},
		{name: "a bad signature on malformed JSON is 401, not 400", event: "issue_comment", body: []byte(`{"action":`),
			changes: []change{header("X-Hub-Signature-256", webhook.Sign([]byte("guess"), []byte(`{"action":`)))}, status: 401},
		{name: "a bad signature without event headers is 401", event: "issue_comment", body: comment,
			changes: []change{drop("X-GitHub-Event"), drop("X-GitHub-Delivery"), header("X-Hub-Signature-256", webhook.Sign([]byte("x"), comment))}, status: 401},
		{name: "a bad signature on a text body is 401, not 415", event: "issue_comment", body: []byte("hello"),
			changes: []change{header("Content-Type", "text/plain"), header("X-Hub-Signature-256", webhook.Sign([]byte("x"), []byte("hello")))}, status: 401},
		{name: "no event header", event: "issue_comment", body: comment, changes: []change{drop("X-GitHub-Event")}, status: 400, want: "X-GitHub-Event"},
		{name: "no delivery header", event: "issue_comment", body: comment, changes: []change{drop("X-GitHub-Delivery")}, status: 400, want: "X-GitHub-Delivery"},
		{name: "a delivery id with a quote", event: "issue_comment", body: comment, changes: []change{header("X-GitHub-Delivery", `d"1`)}, status: 400},
		{name: "an event name that is no name", event: "Issue Comment", body: comment, status: 400},
		{name: "malformed JSON, signed", event: "issue_comment", body: []byte(`{"action":`), status: 400, want: "the issue_comment payload: offset 10: unexpected end of JSON input"},
		{name: "a member of the wrong type, signed", event: "pull_request", body: []byte(`{"action":"closed","number":"7"}`), status: 400,
			want: "the pull_request payload: offset 28: a member of the wrong type: want an integer"},
		{name: "a JSON array, signed", event: "issue_comment", body: []byte(`[1,2]`), status: 400},
		{name: "JSON null, signed", event: "issue_comment", body: []byte(`null`), status: 400},
		{name: "a form without payload", event: "issue_comment", body: []byte("other=1"),
			changes: []change{header("Content-Type", "application/x-www-form-urlencoded")}, status: 400, want: "payload"},
		{name: "a form whose payload is not JSON", event: "issue_comment", body: []byte("payload=%7Bx"),
			changes: []change{header("Content-Type", "application/x-www-form-urlencoded")}, status: 400},
		{name: "a text body, signed", event: "issue_comment", body: comment, changes: []change{header("Content-Type", "text/plain")}, status: 415},
		{name: "no content type, signed", event: "issue_comment", body: comment, changes: []change{drop("Content-Type")}, status: 415},
		{name: "GET", event: "issue_comment", changes: []change{func(r *http.Request) { r.Method = http.MethodGet }}, status: 405},
		{name: "PUT", event: "issue_comment", body: comment, changes: []change{func(r *http.Request) { r.Method = http.MethodPut }}, status: 405},
		{name: "a store that fails", event: "issue_comment", body: comment, storeErr: errors.New("database down"), status: 503, want: "send it again"},
		{name: "a chunked delivery", event: "issue_comment", body: comment, changes: []change{func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(io.MultiReader(bytes.NewReader(comment))), -1
		}}, status: 202, stored: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			fs.fail("Add", tt.storeErr)
			var (
				mu       sync.Mutex
				observed []string
				woken    int
			)
			srv := receiver(t, fs, webhook.ReceiverOptions{
				Observe: func(ev, result string, _ time.Duration) {
					mu.Lock()
					observed = append(observed, ev+" "+result)
					mu.Unlock()
				},
				Wake: func() { mu.Lock(); woken++; mu.Unlock() },
			})
			req := request(t, srv.URL, tt.event, "d-1", tt.body)
			for _, c := range tt.changes {
				c(req)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(b.String(), tt.want) {
				t.Fatalf("answer %d %s, want %d with %q", resp.StatusCode, b.String(), tt.status, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow %q, want POST", resp.Header.Get("Allow"))
			}
			d, stored := fs.delivery("d-1")
			if stored != tt.stored {
				t.Fatalf("stored %v, want %v", stored, tt.stored)
			}
			if stored && (!bytes.Equal(d.Payload, comment) && tt.event == "issue_comment") {
				t.Errorf("stored payload of %d bytes is not the JSON sent", len(d.Payload))
			}
			if tt.status == 401 && (fs.count("Add") != 0 || len(fs.eventsOf(event.Delivery)) != 0) {
				t.Errorf("an unsigned delivery reached the store")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(observed) != 1 {
				t.Errorf("observed %v, want one result", observed)
			} else if ev, _, _ := strings.Cut(observed[0], " "); (tt.status == 401 || tt.status == 405) && ev != "" {
				t.Errorf("observed %q: an unsigned request named the event", observed[0])
			} else if tt.status == 202 && ev != tt.event {
				t.Errorf("observed %q, want the event %s", observed[0], tt.event)
			}
			if (woken == 1) != tt.stored {
				t.Errorf("woken %d times, stored %v", woken, tt.stored)
			}
			if accepted := fs.eventsOf(event.Delivery); tt.stored != (len(accepted) == 1) {
				t.Errorf("delivery events %v", accepted)
			}
		})
	}
}

func TestReceiverStoresTheRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event string
		body        []byte
		key         string
		inst        int64
		repo        string
		pr          int
	}{
		{"a comment on a pull request", "issue_comment", fixture(t, "issue_comment.created.json"), "octo/shop#1", 42, "octo/shop", 1},
		{"a comment on an issue", "issue_comment", patched(t, "issue_comment.created.json", map[string]any{"issue.pull_request": deleted, "issue.number": 9}), "", 42, "octo/shop", 0},
		{"a comment on an issue whose pull_request is null", "issue_comment", patched(t, "issue_comment.created.json", map[string]any{"issue.pull_request": nil}), "", 42, "octo/shop", 0},
		{"a closed pull request", "pull_request", patched(t, "pull_request.closed.json", map[string]any{"number": 12, "pull_request.number": 12}), "octo/shop#12", 42, "octo/shop", 12},
		{"a repository named in mixed case keeps it", "pull_request", patched(t, "pull_request.closed.json", map[string]any{"repository.full_name": "Octo/Shop"}), "Octo/Shop#1", 42, "Octo/Shop", 1},
		{"a workflow run of a pull request", "workflow_run", fixture(t, "workflow_run.completed.json"), "octo/shop#1", 42, "octo/shop", 1},
		{"a workflow run of no pull request", "workflow_run", patched(t, "workflow_run.completed.json", map[string]any{"workflow_run.pull_requests": []any{}}),
			"octo/shop@3f1c0a9e5b7d2c4e6a8b0d1f3e5c7a9b1d3f5e7a", 42, "octo/shop", 0},
		{"a repository named by owner and name", "pull_request", patched(t, "pull_request.closed.json", map[string]any{"repository.full_name": deleted}), "octo/shop#1", 42, "octo/shop", 1},
		{"an installation", "installation", fixture(t, "installation.created.json"), "", 42, "", 0},
		{"a token's delivery without installation", "pull_request", patched(t, "pull_request.closed.json", map[string]any{"installation": deleted}), "octo/shop#1", 0, "octo/shop", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newTestStore(nil)
			srv := receiver(t, fs, webhook.ReceiverOptions{Now: func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }})
			if status, body := do(t, srv.Client(), request(t, srv.URL, tt.event, "d-7", tt.body)); status != 202 {
				t.Fatalf("%d %s", status, body)
			}
			d, _ := fs.delivery("d-7")
			want := store.Delivery{ID: "d-7", Event: tt.event, Payload: tt.body, Key: tt.key, Installation: tt.inst, Received: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), Digest: sha256Hex(tt.body),
				Arrival: event.Event{Type: event.Delivery, Repo: tt.repo, PR: tt.pr, Data: []byte(`{"delivery":"d-7","event":"` + tt.event + `","result":"accepted"}`)}}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
			ev := fs.eventsOf(event.Delivery)
			if len(ev) != 1 || ev[0].Repo != tt.repo || ev[0].PR != tt.pr || !strings.Contains(string(ev[0].Data), `"result":"accepted"`) {
				t.Errorf("events %+v, want one accepted delivery of %s #%d", ev, tt.repo, tt.pr)
			}
		})
	}
}

func TestReplayedDeliveryHasOneEffect(t *testing.T) {
	t.Parallel()
	fs := newTestStore(nil)
	srv := receiver(t, fs, webhook.ReceiverOptions{})
	body := fixture(t, "issue_comment.created.json")
	const n = 16
	var wg sync.WaitGroup
	answers := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, b := do(t, srv.Client(), request(t, srv.URL, "issue_comment", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body))
			answers[i] = strings.TrimSpace(b)
			if status != 202 && status != 200 {
				t.Errorf("status %d", status)
			}
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, a := range answers {
		count[a]++
	}
	want := map[string]int{`{"delivery":"72d3162e-cc78-11e3-81ab-4c9367dc0958"}`: 1, `{"duplicate":true}`: n - 1}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if got := fs.queued(); got != 1 {
		t.Errorf("%d deliveries queued, want 1", got)
	}
	if got := len(fs.eventsOf(event.Delivery)); got != 1 {
		t.Errorf("%d delivery events, want 1", got)
	}
}

func TestNewReceiverRefusesAnEmptySecret(t *testing.T) {
	t.Parallel()
	if _, err := webhook.NewReceiver(nil, newTestStore(nil), webhook.ReceiverOptions{}); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("NewReceiver without a secret: %v", err)
	}
}

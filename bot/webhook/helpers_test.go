package webhook_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/gcloop/gcloop/bot/webhook"
)

var secret = []byte("It's a Secret to Everybody")

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture is a payload of testdata.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// patched is a testdata payload with some members replaced: path
// "a.b.c" names a member of nested objects; "a.0.b" an array's element.
func patched(t testing.TB, name string, set map[string]any) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(fixture(t, name), &v); err != nil {
		t.Fatal(err)
	}
	for path, val := range set {
		setPath(t, v, path, val)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setPath(t testing.TB, v map[string]any, path string, val any) {
	t.Helper()
	var cur any = v
	parts := bytes.Split([]byte(path), []byte("."))
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if val == deleted {
					delete(c, string(p))
				} else {
					c[string(p)] = val
				}
				return
			}
			cur = c[string(p)]
		case []any:
			n := 0
			for _, d := range p {
				n = n*10 + int(d-'0')
			}
			if last {
				c[n] = val
				return
			}
			cur = c[n]
		default:
			t.Fatalf("path %s: %T at %s", path, cur, p)
		}
	}
}

// deleted, as a value of patched, removes the member.
var deleted = &struct{}{}

// request is a delivery as GitHub sends it, signed with secret.
func request(t testing.TB, url, event, id string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/5f2d4e1")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-GitHub-Hook-ID", "412345")
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, body))
	return req
}

// do sends req and returns the status and the body.
func do(t testing.TB, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// canned is an http.RoundTripper that answers from fuzz input without a
// network, recording what it was asked.
type canned struct {
	answer func(req *http.Request) *http.Response
	calls  int
	token  bool // some request carried the API token
}

func (c *canned) RoundTrip(req *http.Request) (*http.Response, error) {
	c.calls++
	if strings.Contains(req.Header.Get("Authorization"), "api-token") {
		c.token = true
	}
	return c.answer(req), nil
}

func reply(req *http.Request, status int, h http.Header, body []byte) *http.Response {
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: h,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: -1, Request: req}
}

// fuzzClient returns a go-github client with a token whose requests rt
// answers.
func fuzzClient(rt http.RoundTripper) *github.Client {
	c := github.NewClient(&http.Client{Transport: rt}).WithAuthToken("api-token")
	c.BaseURL, _ = url.Parse("https://api.github.test/")
	return c
}

// describedArtifacts returns the example artifact listing of GitHub's REST
// description, as GitHub would send it.
func describedArtifacts(f *testing.F) string {
	data, err := os.ReadFile("../ghfake/openapi/openapi-subset.json")
	if err != nil {
		f.Fatal(err)
	}
	var d struct {
		Components struct {
			Examples map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"examples"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		f.Fatal(err)
	}
	ex, ok := d.Components.Examples["artifact-paginated"]
	if !ok {
		f.Fatal("the description has no artifact-paginated example")
	}
	return string(ex.Value)
}

// FuzzList lists a run's artifacts from two arbitrary pages, each with an
// arbitrary status and Link header, asking for arbitrary names (comma
// separated). It never panics and always ends; on success with names it
// returns one live artifact per distinct name, in the order asked, the
// newest of its name among the artifacts served; with no names every live
// artifact served; an error is one line.
func FuzzList(f *testing.F) {
	example := describedArtifacts(f)
	next := `<https://api.github.test/repos/o/r/actions/runs/7/artifacts?page=2&per_page=100>; rel="next"`
	self := `<https://api.github.test/repos/o/r/actions/runs/7/artifacts?page=1&per_page=100>; rel="next"`
	page2 := `{"total_count":3,"artifacts":[{"id":12,"name":"Rails","expired":false,"created_at":"2020-01-11T00:00:00Z"},` +
		`{"id":14,"name":"old","expired":true,"expires_at":"2020-02-01T00:00:00Z"},null,{"id":15,"name":""}]}`
	for _, s := range []struct {
		status1, status2 int
		page1, link1     string
		page2, link2     string
		names            string
	}{
		{200, 200, example, "", "", "", ""},
		{200, 200, example, "", "", "", "Rails,Test output"},
		{200, 200, example, next, page2, "", "Rails,old"},
		{200, 200, example, next, page2, next, "Rails"},
		{200, 200, example, self, page2, "", ""},
		{200, 500, example, next, page2, "", "missing"},
		{404, 200, `{"message":"Not Found"}`, "", "", "", "Rails"},
		{200, 200, `{"artifacts":[{"id":1,"name":"a\nb"}]}`, "", "", "", "x"},
		{200, 200, `{"artifacts":{}}`, "", "", "", ""},
	} {
		f.Add(s.status1, s.page1, s.link1, s.status2, s.page2, s.link2, s.names)
	}
	f.Fuzz(func(t *testing.T, status1 int, page1, link1 string, status2 int, page2, link2, names string) {
		if status1 < 100 || status1 > 999 || status2 < 100 || status2 > 999 {
			return
		}
		var served []*github.Artifact
		rt := &canned{}
		rt.answer = func(req *http.Request) *http.Response {
			status, body, link := status1, page1, link1
			if req.URL.Query().Get("page") == "2" {
				status, body, link = status2, page2, link2
			}
			if status >= 200 && status < 300 {
				// Decoded as go-github does: the first JSON value counts.
				var l github.ArtifactList
				if json.NewDecoder(strings.NewReader(body)).Decode(&l) == nil {
					served = append(served, l.Artifacts...)
				}
			}
			h := http.Header{}
			if link != "" {
				h.Set("Link", link)
			}
			return reply(req, status, h, []byte(body))
		}
		var want []string
		if names != "" {
			want = strings.Split(names, ",")
		}
		got, err := List(context.Background(), fuzzClient(rt).Actions, "o", "r", 7, want)
		if rt.calls > 1001 {
			t.Fatalf("%d requests for one listing", rt.calls)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		live := func(a *github.Artifact) bool { return a != nil && a.GetName() != "" && !a.GetExpired() }
		if len(want) == 0 {
			var n int
			for _, a := range served {
				if live(a) {
					n++
				}
			}
			if len(got) != n {
				t.Fatalf("%d artifacts returned, %d live ones served", len(got), n)
			}
			for _, a := range got {
				if !live(a) {
					t.Fatalf("returned %+v, which is not live", a)
				}
			}
			return
		}
		var distinct []string
		seen := map[string]bool{}
		for _, n := range want {
			if !seen[n] {
				seen[n] = true
				distinct = append(distinct, n)
			}
		}
		if len(got) != len(distinct) {
			t.Fatalf("%d artifacts for %d names", len(got), len(distinct))
		}
		for i, a := range got {
			if a.GetName() != distinct[i] || !live(a) {
				t.Fatalf("artifact %d is %q (expired %v), want live %q", i, a.GetName(), a.GetExpired(), distinct[i])
			}
			for _, b := range served {
				if live(b) && b.GetName() == a.GetName() && (b.GetCreatedAt().After(a.GetCreatedAt().Time) ||
					(b.GetCreatedAt().Equal(a.GetCreatedAt()) && b.GetID() > a.GetID())) {
					t.Fatalf("returned artifact %d of %q, but %d is newer", a.GetID(), a.GetName(), b.GetID())
				}
			}
		}
	})
}

// FuzzDownload downloads an artifact while the API answers with an
// arbitrary status and Location and the blob host with an arbitrary status,
// Content-Length and body. It never panics; the blob host never sees the
// API token; at most two URLs are asked for and fetched; a success returns
// the blob's body exactly, within MaxZip; an error never shows the signed
// URL's query or password.
func FuzzDownload(f *testing.F) {
	zipData := buildZip(f, entry{name: "review.json", data: `{"score":9}`})
	for _, s := range []struct {
		apiStatus  int
		location   string
		blobStatus int
		declared   int64
		body       []byte
	}{
		{302, "https://blob.test/a.zip?sig=SECRETSIG&se=2026", 200, -1, zipData},
		{302, "https://blob.test/a.zip?sig=SECRETSIG", 200, 10, zipData},
		{302, "https://blob.test/a.zip?sig=SECRETSIG", 200, 1 << 40, nil},
		{302, "https://blob.test/a.zip?sig=SECRETSIG", 403, -1, []byte("AuthenticationFailed")},
		{302, "https://blob.test/a.zip?sig=SECRETSIG", 503, -1, nil},
		{302, "https://blob.test/a.zip?sig=SECRETSIG", 301, -1, nil},
		{302, "https://user:SECRETPW@blob.test/a.zip", 200, -1, []byte("x")},
		{302, "/relative?sig=SECRETSIG", 200, -1, nil},
		{302, "ftp://blob.test/a.zip", 200, -1, nil},
		{302, "", 200, -1, nil},
		{302, "%zz", 200, -1, nil},
		{404, "", 200, -1, nil},
		{410, "", 200, -1, nil},
		{301, "https://api.github.test/repositories/1/actions/artifacts/5/zip", 200, -1, nil},
		{200, "", 200, -1, nil},
	} {
		f.Add(s.apiStatus, s.location, s.blobStatus, s.declared, s.body, int64(0))
	}
	lim := Limits{MaxZip: 4 << 10}
	f.Add(302, "https://blob.test/a.zip?sig=SECRETSIG", 200, int64(-1), zipData, int64(len(zipData)))
	f.Add(302, "https://blob.test/a.zip?sig=SECRETSIG", 200, int64(-1), zipData, int64(10))
	f.Add(302, "https://blob.test/a.zip?sig=SECRETSIG", 200, int64(-1), zipData, int64(1<<40))
	f.Fuzz(func(t *testing.T, apiStatus int, location string, blobStatus int, declared int64, body []byte, announced int64) {
		if apiStatus < 100 || apiStatus > 999 || blobStatus < 100 || blobStatus > 999 {
			return
		}
		api := &canned{answer: func(req *http.Request) *http.Response {
			h := http.Header{}
			if location != "" {
				h.Set("Location", location)
			}
			return reply(req, apiStatus, h, []byte(`{"message":"Not Found"}`))
		}}
		blob := &canned{answer: func(req *http.Request) *http.Response {
			r := reply(req, blobStatus, nil, body)
			r.ContentLength = declared
			return r
		}}
		plain := &http.Client{Transport: blob, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		var data []byte
		sp, err := Download(context.Background(), fuzzClient(api).Actions, "o", "r", 5, announced, plain, lim)
		if err == nil {
			data, err = io.ReadAll(io.NewSectionReader(sp, 0, sp.Size))
			sp.Close()
		}
		if announced > lim.MaxZip && (err == nil || api.calls > 0) {
			t.Fatalf("announced %d over MaxZip: err %v after %d API calls, want a refusal before any", announced, err, api.calls)
		}
		if blob.token {
			t.Fatal("the blob host got the API token")
		}
		if api.calls > 2*(maxRedirects+1) || blob.calls > 2 {
			t.Fatalf("%d API calls and %d blob fetches", api.calls, blob.calls)
		}
		if err != nil {
			msg := err.Error()
			if u, perr := url.Parse(location); perr == nil {
				// A URL shown whole carries its query after a '?'.
				if q := u.RawQuery; q != "" && strings.Contains(msg, "?"+q) {
					t.Fatalf("error shows the signature %q: %s", q, msg)
				}
				if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Contains(msg, pw) && strings.Count(location, pw) == 1 {
					t.Fatalf("error shows the password %q: %s", pw, msg)
				}
			}
			if data != nil {
				t.Fatal("data with an error")
			}
			return
		}
		if announced > 0 && int64(len(data)) > announced+announced/4+64<<10 {
			t.Fatalf("got %d bytes, far past the %d announced", len(data), announced)
		}
		if int64(len(data)) > lim.MaxZip || !bytes.Equal(data, body) {
			t.Fatalf("got %d bytes, the blob host sent %d (cap %d)", len(data), len(body), lim.MaxZip)
		}
		if blobStatus != http.StatusOK {
			t.Fatalf("success on blob status %d", blobStatus)
		}
	})
}

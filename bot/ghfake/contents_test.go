package ghfake_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// TestContentsAnswerConditionalRequests: repos/get-content sends an ETag
// and answers 304, with no body and no quota spent, to an If-None-Match
// that names it — weak or strong, in a list, or "*" — and 200 with a new
// ETag once the file changed or for another representation.
func TestContentsAnswerConditionalRequests(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	s.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 3\n"))
	get := func(accept, inm string) *http.Response {
		t.Helper()
		req, err := c.NewRequest("GET", "repos/"+owner+"/"+repo+"/contents/.github/gcloop.yml", nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := c.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	first := get("", "")
	etag := first.Header.Get("ETag")
	if first.StatusCode != 200 || etag == "" {
		t.Fatalf("first GET: %d, ETag %q; want 200 with an ETag", first.StatusCode, etag)
	}
	strong := etag[len("W/"):]
	tests := []struct {
		name, accept, inm string
		want              int
	}{
		{"the ETag as sent", "", etag, 304},
		{"the strong form", "", strong, 304},
		{"in a list", "", `"nope", ` + etag, 304},
		{"any", "", "*", 304},
		{"another tag", "", `"nope"`, 200},
		{"another representation", "application/vnd.github.raw+json", etag, 200},
	}
	for _, tt := range tests {
		used := get("", "").Header.Get("X-RateLimit-Used")
		resp := get(tt.accept, tt.inm)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.want {
			t.Errorf("%s: %d; want %d", tt.name, resp.StatusCode, tt.want)
		}
		if tt.want == 304 {
			if len(body) != 0 || resp.Header.Get("ETag") != etag {
				t.Errorf("%s: 304 with %d bytes of body and ETag %q; want none and %q", tt.name, len(body), resp.Header.Get("ETag"), etag)
			}
			if got := resp.Header.Get("X-RateLimit-Used"); got != used {
				t.Errorf("%s: X-RateLimit-Used %s after a 304; want %s, as before it", tt.name, got, used)
			}
		}
	}
	s.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 4\n"))
	if resp := get("", etag); resp.StatusCode != 200 || resp.Header.Get("ETag") == etag {
		t.Errorf("after a change: %d, ETag %q; want 200 with a new ETag", resp.StatusCode, resp.Header.Get("ETag"))
	}
}

// TestLargeFilesComeThroughTheirDownloadURL: a file over 1 MB comes with
// encoding "none" and no content, as on GitHub; go-github's
// DownloadContents reads it from the raw host, which a fault rule on its
// path makes fail.
func TestLargeFilesComeThroughTheirDownloadURL(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	big := bytes.Repeat([]byte("golden line\n"), 100000)
	head := s.AddCommit(owner, repo, "main", map[string][]byte{"testdata/big.golden": big, "small.txt": []byte("small\n")})
	opts := &github.RepositoryContentGetOptions{Ref: head}

	fc, _, _, err := c.Repositories.GetContents(ctx, owner, repo, "testdata/big.golden", opts)
	if err != nil {
		t.Fatal(err)
	}
	if fc.GetEncoding() != "none" || fc.Content == nil || *fc.Content != "" || fc.GetSize() != len(big) {
		t.Errorf("a file of %d bytes: encoding %q, size %d; want none, an empty content and %d", len(big), fc.GetEncoding(), fc.GetSize(), len(big))
	}
	small, _, _, err := c.Repositories.GetContents(ctx, owner, repo, "small.txt", opts)
	if got, _ := small.GetContent(); err != nil || small.GetEncoding() != "base64" || got != "small\n" {
		t.Errorf("a small file: encoding %q, content %q, %v; want it inline", small.GetEncoding(), got, err)
	}

	rc, _, err := c.Repositories.DownloadContents(ctx, owner, repo, "testdata/big.golden", opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("downloaded %d bytes, %v; want the file's %d", len(got), err, len(big))
	}

	// go-github hands back the download's body whatever its status.
	s.Fail(ghfake.FailRule{Pattern: "GET /raw/{owner}/{repo}/{ref}/small.txt", Status: http.StatusNotFound})
	rc, resp, err := c.Repositories.DownloadContents(ctx, owner, repo, "small.txt", opts)
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a download the fault rule fails: status %d, want 404", resp.StatusCode)
	}
}

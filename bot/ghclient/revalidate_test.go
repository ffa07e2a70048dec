package ghclient

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

const (
	fakeOwner = "octo"
	fakeRepo  = "shop"
	fakeToken = "ghs_installation"
)

// contentsWorld is the fake GitHub with one repository and clients of two
// installations sharing one ContentCache.
func contentsWorld(t *testing.T, entries int) (*ghfake.Server, *ContentCache, func(installation int64) *github.Client) {
	t.Helper()
	gh := ghfake.New(t)
	gh.AddRepo(fakeOwner, fakeRepo, 100, "main")
	gh.AddToken(fakeToken, "gcloop[bot]", true)
	cache := NewContentCache(entries)
	client := func(installation int64) *github.Client {
		c, err := New(Options{Token: fakeToken, BaseURL: gh.URL(), Contents: cache, Installation: installation})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return gh, cache, client
}

// read gets path's content, marked for revalidation or not, and returns
// the text, the Revalidation, and the If-None-Match the fake received.
func read(t *testing.T, gh *ghfake.Server, c *github.Client, path string, mark bool) (string, *Revalidation, string) {
	t.Helper()
	rv := &Revalidation{}
	ctx := context.Background()
	if mark {
		ctx = Revalidate(ctx, rv)
	}
	fc, _, _, err := c.Repositories.GetContents(ctx, fakeOwner, fakeRepo, path, nil)
	if err != nil {
		t.Fatalf("GetContents(%s): %v", path, err)
	}
	text, err := fc.GetContent()
	if err != nil {
		t.Fatal(err)
	}
	reqs := gh.Requests()
	return text, rv, reqs[len(reqs)-1].Header.Get("If-None-Match")
}

func TestContentCacheRevalidates(t *testing.T) {
	t.Parallel()
	gh, cache, client := contentsWorld(t, 0)
	gh.AddFile(fakeOwner, fakeRepo, "main", ".github/gcloop.yml", []byte("review: {}\n"))
	c := client(1)

	text, rv, inm := read(t, gh, c, ".github/gcloop.yml", true)
	if text != "review: {}\n" || rv.NotModified() || inm != "" {
		t.Fatalf("first read: %q, not modified %v, If-None-Match %q; want the file, fetched", text, rv.NotModified(), inm)
	}
	rv.Keep("parsed")

	text, rv, inm = read(t, gh, c, ".github/gcloop.yml", true)
	if text != "review: {}\n" || !rv.NotModified() || inm == "" || rv.Kept() != "parsed" {
		t.Errorf("second read: %q, not modified %v, If-None-Match %q, kept %v; want the same file from a 304 and what was kept",
			text, rv.NotModified(), inm, rv.Kept())
	}
	if got := lastStatus(gh); got != http.StatusNotModified {
		t.Errorf("the fake answered %d; want 304", got)
	}

	if _, _, inm := read(t, gh, c, ".github/gcloop.yml", false); inm != "" {
		t.Errorf("an unmarked read sent If-None-Match %q; the cache is for marked requests only", inm)
	}
	if _, rv, inm := read(t, gh, client(2), ".github/gcloop.yml", true); inm != "" || rv.NotModified() {
		t.Errorf("another installation's read sent If-None-Match %q: installations share no answers", inm)
	}

	gh.AddFile(fakeOwner, fakeRepo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 5\n"))
	text, rv, inm = read(t, gh, c, ".github/gcloop.yml", true)
	if text != "review:\n  max_rounds: 5\n" || rv.NotModified() || inm == "" || rv.Kept() != nil {
		t.Errorf("after a change: %q, not modified %v, If-None-Match %q, kept %v; want the new file, revalidated, nothing kept", text, rv.NotModified(), inm, rv.Kept())
	}
	if cache.Len() != 2 {
		t.Errorf("the cache holds %d answers; want 2 (one per installation)", cache.Len())
	}
	if nm, f := cache.Stats(); nm != 1 || f != 3 {
		t.Errorf("Stats = %d not modified, %d fetched; want 1 and 3 (the unmarked read is not counted)", nm, f)
	}
}

func lastStatus(gh *ghfake.Server) int {
	reqs := gh.Requests()
	return reqs[len(reqs)-1].Status
}

// TestContentCacheIsBounded: beyond its entries the least recently used
// answer goes; a 404 forgets the answer.
func TestContentCacheIsBounded(t *testing.T) {
	t.Parallel()
	gh, cache, client := contentsWorld(t, 2)
	c := client(1)
	for _, p := range []string{"a.yml", "b.yml", "c.yml"} {
		gh.AddFile(fakeOwner, fakeRepo, "main", p, []byte(p))
	}
	read(t, gh, c, "a.yml", true)
	read(t, gh, c, "b.yml", true)
	read(t, gh, c, "a.yml", true) // a is now the most recent
	read(t, gh, c, "c.yml", true) // b goes
	if cache.Len() != 2 {
		t.Errorf("the cache holds %d answers; want 2", cache.Len())
	}
	if _, rv, _ := read(t, gh, c, "b.yml", true); rv.NotModified() {
		t.Error("b.yml was revalidated; it should have gone first")
	}
	if _, rv, _ := read(t, gh, c, "c.yml", true); !rv.NotModified() {
		t.Error("c.yml was not revalidated")
	}
}

// TestContentCacheDropsWhatIsGoneOrTooBig: an answer too big to keep is
// not kept, a kept one comes back from a 304, and a 404 drops it.
func TestContentCacheDropsWhatIsGoneOrTooBig(t *testing.T) {
	t.Parallel()
	gh, cache, client := contentsWorld(t, 0)
	c := client(1)
	get := func(path string) (string, *Revalidation, error) {
		t.Helper()
		rv := &Revalidation{}
		fc, _, _, err := c.Repositories.GetContents(Revalidate(context.Background(), rv), fakeOwner, fakeRepo, path, nil)
		if err != nil {
			return "", rv, err
		}
		text, err := fc.GetContent()
		return text, rv, err
	}
	notModified := func() int {
		n := 0
		for _, r := range gh.Requests() {
			if r.Status == http.StatusNotModified {
				n++
			}
		}
		return n
	}
	big := strings.Repeat("x", maxCachedBody+1) // its answer, in base64, is bigger still
	gh.AddFile(fakeOwner, fakeRepo, "main", "big.txt", []byte(big))
	if body, _, err := get("big.txt"); err != nil || body != big {
		t.Fatalf("a body too big to keep arrived with %d bytes, %v; want all %d", len(body), err, len(big))
	}
	if cache.Len() != 0 {
		t.Errorf("a body too big to keep was kept")
	}
	gh.AddFile(fakeOwner, fakeRepo, "main", "small.txt", []byte("xxxxxxxxxx"))
	if _, _, err := get("small.txt"); err != nil || cache.Len() != 1 {
		t.Fatalf("a small answer: %v, %d kept; want it kept", err, cache.Len())
	}
	if body, rv, err := get("small.txt"); err != nil || body != "xxxxxxxxxx" || !rv.NotModified() || notModified() != 1 {
		t.Errorf("revalidation: %q, not modified %v, %v; want the kept body from a 304", body, rv.NotModified(), err)
	}
	gh.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/contents/{path}", Status: http.StatusNotFound})
	if _, _, err := get("small.txt"); err == nil {
		t.Fatal("a file gone: no error")
	}
	if cache.Len() != 0 {
		t.Errorf("a 404 left the answer in the cache")
	}
}

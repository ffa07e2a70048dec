package pushfix

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/gcloop/gcloop/internal/testkit/ghtest"
)

// setup starts a server and a real go-github client pointed at it, in
// go-github's own test style.
func setup(t *testing.T) (*github.Client, *http.ServeMux, string) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := github.NewClient(srv.Client())
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL, c.UploadURL = u, u
	return c, mux, srv.URL
}

// jsonBody decodes a request body into a generic map.
func jsonBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		t.Errorf("%s %s: body is not a JSON object: %v", r.Method, r.URL.Path, err)
	}
	return m
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

const (
	headSHA  = "1111111111111111111111111111111111111111"
	baseTree = "2222222222222222222222222222222222222222"
	treeSHA  = "3333333333333333333333333333333333333333"
	newSHA   = "4444444444444444444444444444444444444444"
)

// pushServer serves one push; refStatus and refBody answer the ref update.
func pushServer(t *testing.T, mux *http.ServeMux, refStatus int, refBody string) *[]map[string]any {
	var mu sync.Mutex
	var blobs []map[string]any
	mux.HandleFunc("/repos/o/r/git/ref/heads/feature/x", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "GET")
		fmt.Fprintf(w, `{"ref":"refs/heads/feature/x","object":{"type":"commit","sha":%q}}`, headSHA)
	})
	mux.HandleFunc("/repos/o/r/git/blobs", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "POST")
		b := jsonBody(t, r)
		mu.Lock()
		blobs = append(blobs, b)
		mu.Unlock()
		var data []byte
		switch b["encoding"] {
		case "utf-8":
			data = []byte(b["content"].(string))
		case "base64":
			data, _ = base64.StdEncoding.DecodeString(b["content"].(string))
		default:
			t.Errorf("blob encoding %v, want utf-8 or base64", b["encoding"])
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"sha":%q,"url":"x"}`, BlobID(data))
	})
	mux.HandleFunc("/repos/o/r/git/trees", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "POST")
		b := jsonBody(t, r)
		if b["base_tree"] != baseTree {
			t.Errorf("base_tree = %v, want %s", b["base_tree"], baseTree)
		}
		got := map[string]map[string]any{}
		for _, e := range b["tree"].([]any) {
			m := e.(map[string]any)
			got[m["path"].(string)] = m
		}
		del, ok := got["testdata/old.txt"]
		if !ok {
			t.Fatalf("tree entries %v: no deletion of testdata/old.txt", got)
		}
		if sha, has := del["sha"]; !has || sha != nil {
			t.Errorf("deletion entry %v: want \"sha\": null", del)
		}
		if _, has := del["content"]; has {
			t.Errorf("deletion entry %v: want no content", del)
		}
		add := got["tests/gen.sh"]
		if add["mode"] != ModeExecutable || add["type"] != "blob" || add["sha"] != BlobID([]byte("#!/bin/sh\n")) {
			t.Errorf("entry for tests/gen.sh = %v, want mode 100755, type blob and its blob id", add)
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"sha":%q,"tree":[]}`, treeSHA)
	})
	mux.HandleFunc("/repos/o/r/git/commits", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "POST")
		b := jsonBody(t, r)
		if diff := cmp.Diff([]string{"message", "parents", "tree"}, keys(b)); diff != "" {
			t.Errorf("create-commit body keys (-want +got):\n%s\nno author, committer or signature may be sent", diff)
		}
		if diff := cmp.Diff(map[string]any{"message": "gcloop: tests", "parents": []any{headSHA}, "tree": treeSHA}, b); diff != "" {
			t.Errorf("create-commit body (-want +got):\n%s", diff)
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"sha":%q}`, newSHA)
	})
	mux.HandleFunc("/repos/o/r/git/refs/heads/feature/x", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "PATCH")
		b := jsonBody(t, r)
		if diff := cmp.Diff(map[string]any{"sha": newSHA, "force": false}, b); diff != "" {
			t.Errorf("update-ref body (-want +got):\n%s", diff)
		}
		w.WriteHeader(refStatus)
		io.WriteString(w, refBody)
	})
	return &blobs
}

func pushSpec() PushSpec {
	return PushSpec{
		Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: headSHA, BaseTree: baseTree, Message: "gcloop: tests",
		Changes: []guard.Change{
			{Path: "a_test.go", Old: []byte("package a\n"), New: []byte("package a // é\n"), OldExists: true, NewExists: true},
			{Path: "testdata/img.bin", New: []byte("\x89PNG\x00\xff"), NewExists: true},
			{Path: "testdata/bad-utf8.txt", New: []byte("caf\xe9\n"), NewExists: true},
			{Path: "testdata/old.txt", Old: []byte("old\n"), OldExists: true},
			{Path: "tests/gen.sh", New: []byte("#!/bin/sh\n"), NewExists: true},
		},
		Modes: map[string]string{"tests/gen.sh": ModeExecutable},
	}
}

func TestPushSendsGitDataAPIRequestsGitHubSigns(t *testing.T) {
	t.Parallel()
	client, mux, _ := setup(t)
	blobs := pushServer(t, mux, http.StatusOK, fmt.Sprintf(`{"ref":"refs/heads/feature/x","object":{"sha":%q}}`, newSHA))
	sha, err := Push(context.Background(), client.Git, pushSpec())
	if err != nil {
		t.Fatal(err)
	}
	if sha != newSHA {
		t.Errorf("sha = %s, want %s", sha, newSHA)
	}
	want := []map[string]any{
		{"content": "package a // é\n", "encoding": "utf-8"},
		{"content": base64.StdEncoding.EncodeToString([]byte("caf\xe9\n")), "encoding": "base64"}, // not valid UTF-8
		{"content": base64.StdEncoding.EncodeToString([]byte("\x89PNG\x00\xff")), "encoding": "base64"},
		{"content": "#!/bin/sh\n", "encoding": "utf-8"},
	}
	if diff := cmp.Diff(want, *blobs); diff != "" {
		t.Errorf("blob bodies, in path order (-want +got):\n%s", diff)
	}
}

func TestPushMapsGitHubsNonFastForwardToErrHeadMoved(t *testing.T) {
	t.Parallel()
	client, mux, _ := setup(t)
	pushServer(t, mux, http.StatusUnprocessableEntity, `{"message":"Update is not a fast forward","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`)
	_, err := Push(context.Background(), client.Git, pushSpec())
	if !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("err = %v, want ErrHeadMoved", err)
	}
	if !strings.Contains(err.Error(), "refs/heads/feature/x") || !strings.Contains(err.Error(), headSHA) || !strings.Contains(err.Error(), newSHA) {
		t.Errorf("err = %v, want the ref and both shas", err)
	}
}

func TestPushKeepsOther422sDistinct(t *testing.T) {
	t.Parallel()
	client, mux, _ := setup(t)
	pushServer(t, mux, http.StatusUnprocessableEntity, `{"message":"Reference does not exist"}`)
	_, err := Push(context.Background(), client.Git, pushSpec())
	if err == nil || errors.Is(err, ErrHeadMoved) {
		t.Errorf("err = %v, want an error that is not ErrHeadMoved", err)
	}
}

// TestPushRequestsAreRetriedOnceInTheClient checks that a refused request
// is retried in one place: ghclient's transport retries it after the
// Retry-After it names (a test sleeper, no real wait); a client without
// that transport sees the refusal, and pushfix does not send it again.
func TestPushRequestsAreRetriedOnceInTheClient(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		for _, retrying := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d retrying client %v", status, retrying), func(t *testing.T) {
				t.Parallel()
				client, mux, srvURL := setup(t)
				var slept []time.Duration
				if retrying {
					var err error
					client, err = ghclient.New(ghclient.Options{BaseURL: srvURL, MutationPause: -1,
						Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }})
					if err != nil {
						t.Fatal(err)
					}
				}
				var mu sync.Mutex
				blobRequests := 0
				mux.HandleFunc("/repos/o/r/git/ref/heads/b", func(w http.ResponseWriter, r *http.Request) {
					fmt.Fprintf(w, `{"ref":"refs/heads/b","object":{"sha":%q}}`, headSHA)
				})
				mux.HandleFunc("/repos/o/r/git/blobs", func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					blobRequests++
					if blobRequests == 1 {
						w.Header().Set("Retry-After", "7")
						w.WriteHeader(status)
						io.WriteString(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
						return
					}
					fmt.Fprintf(w, `{"sha":%q}`, BlobID([]byte("x")))
				})
				mux.HandleFunc("/repos/o/r/git/trees", func(w http.ResponseWriter, r *http.Request) {
					fmt.Fprintf(w, `{"sha":%q}`, treeSHA)
				})
				mux.HandleFunc("/repos/o/r/git/commits", func(w http.ResponseWriter, r *http.Request) {
					fmt.Fprintf(w, `{"sha":%q}`, newSHA)
				})
				mux.HandleFunc("/repos/o/r/git/refs/heads/b", func(w http.ResponseWriter, r *http.Request) {
					fmt.Fprintf(w, `{"ref":"refs/heads/b","object":{"sha":%q}}`, newSHA)
				})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				sha, err := Push(ctx, client.Git, PushSpec{Owner: "o", Repo: "r", Branch: "b", HeadSHA: headSHA, BaseTree: baseTree, Message: "m",
					Changes: []guard.Change{{Path: "x_test.go", New: []byte("x"), NewExists: true}}})
				want := 1
				if retrying {
					want = 2
					if err != nil || sha != newSHA {
						t.Errorf("Push = %q, %v; want %s after one retry", sha, err, newSHA)
					}
					if diff := cmp.Diff([]time.Duration{7 * time.Second}, slept); diff != "" {
						t.Errorf("waits (-want +got):\n%s", diff)
					}
				} else if ghclient.Classify(err) != ghclient.KindRateLimited {
					t.Errorf("err = %v, want the rate limit unretried", err)
				}
				mu.Lock()
				defer mu.Unlock()
				if blobRequests != want {
					t.Errorf("%d blob requests, want %d", blobRequests, want)
				}
			})
		}
	}
}

func TestScanReadsOldContentsThroughTheContentsAPI(t *testing.T) {
	t.Parallel()
	client, mux, srvURL := setup(t)
	small := []byte("package a\n\nfunc TestA(t *testing.T) {}\n")
	big := []byte(strings.Repeat("golden line\n", 100000)) // over 1 MB: encoding "none"
	mux.HandleFunc("/repos/o/r/git/commits/"+headSHA, func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "GET")
		fmt.Fprintf(w, `{"sha":%q,"tree":{"sha":%q}}`, headSHA, baseTree)
	})
	mux.HandleFunc("/repos/o/r/git/trees/"+baseTree, func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "GET")
		if r.URL.Query().Get("recursive") != "1" {
			t.Errorf("get-tree query %q, want recursive=1", r.URL.RawQuery)
		}
		fmt.Fprintf(w, `{"sha":%q,"truncated":false,"tree":[
			{"path":"a_test.go","mode":"100644","type":"blob","sha":%q,"size":%d},
			{"path":"testdata","mode":"040000","type":"tree","sha":%q},
			{"path":"testdata/big.golden","mode":"100644","type":"blob","sha":%q,"size":%d}]}`,
			baseTree, BlobID(small), len(small), treeSHA, BlobID(big), len(big))
	})
	mux.HandleFunc("/repos/o/r/contents/a_test.go", func(w http.ResponseWriter, r *http.Request) {
		ghtest.TestMethod(t, r, "GET")
		if r.URL.Query().Get("ref") != headSHA {
			t.Errorf("get-content ref %q, want %s", r.URL.Query().Get("ref"), headSHA)
		}
		enc := base64.StdEncoding.EncodeToString(small)
		fmt.Fprintf(w, `{"type":"file","encoding":"base64","size":%d,"name":"a_test.go","path":"a_test.go","content":%q,"sha":%q}`,
			len(small), enc[:20]+"\n"+enc[20:]+"\n", BlobID(small))
	})
	mux.HandleFunc("/repos/o/r/contents/testdata/big.golden", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"type":"file","encoding":"none","size":%d,"name":"big.golden","path":"testdata/big.golden","content":"","sha":%q}`, len(big), BlobID(big))
	})
	mux.HandleFunc("/repos/o/r/contents/testdata", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("ref") != headSHA {
			t.Errorf("directory listing ref %q, want %s", r.URL.Query().Get("ref"), headSHA)
		}
		fmt.Fprintf(w, `[{"type":"file","name":"big.golden","path":"testdata/big.golden","size":%d,"sha":%q,"download_url":%q}]`,
			len(big), BlobID(big), srvURL+"/raw/testdata/big.golden")
	})
	mux.HandleFunc("/raw/testdata/big.golden", func(w http.ResponseWriter, r *http.Request) {
		w.Write(big)
	})
	dir := checkout(t, map[string]fakeFile{"a_test.go": {ModeFile, "package a\n"}, "testdata/big.golden": {ModeFile, "short now\n"}})
	s, err := Scan(context.Background(), client.Git, client.Repositories, "o", "r", headSHA, Workspace{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []guard.Change{
		{Path: "a_test.go", Old: small, New: []byte("package a\n"), OldExists: true, NewExists: true},
		{Path: "testdata/big.golden", Old: big, New: []byte("short now\n"), OldExists: true, NewExists: true},
	}
	// Compared by id: cmp.Diff over a megabyte of bytes is slow.
	id := func(cs []guard.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s old=%v:%s new=%v:%s", c.Path, c.OldExists, BlobID(c.Old), c.NewExists, BlobID(c.New)))
		}
		return out
	}
	if diff := cmp.Diff(id(want), id(s.Changes)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestScanFailsOnAFailedDownload(t *testing.T) {
	t.Parallel()
	client, mux, srvURL := setup(t)
	big := []byte("x")
	mux.HandleFunc("/repos/o/r/git/commits/"+headSHA, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"sha":%q,"tree":{"sha":%q}}`, headSHA, baseTree)
	})
	mux.HandleFunc("/repos/o/r/git/trees/"+baseTree, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"sha":%q,"tree":[{"path":"big_test.go","mode":"100644","type":"blob","sha":%q}]}`, baseTree, BlobID(big))
	})
	mux.HandleFunc("/repos/o/r/contents/big_test.go", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"type":"file","encoding":"none","size":2000000,"name":"big_test.go","path":"big_test.go","content":""}`)
	})
	mux.HandleFunc("/repos/o/r/contents/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `[{"type":"file","name":"big_test.go","path":"big_test.go","download_url":%q}]`, srvURL+"/raw/big_test.go")
	})
	mux.HandleFunc("/raw/big_test.go", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "expired", http.StatusNotFound)
	})
	dir := checkout(t, map[string]fakeFile{"big_test.go": {ModeFile, "changed"}})
	_, err := Scan(context.Background(), client.Git, client.Repositories, "o", "r", headSHA, Workspace{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "HTTP status 404") {
		t.Errorf("err = %v, want the failed download named", err)
	}
}

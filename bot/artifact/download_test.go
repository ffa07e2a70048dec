package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

// setupAPI returns a go-github client with a token, talking to a fresh API
// test server, and the server's mux.
func setupAPI(t *testing.T) (*github.Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := github.NewClient(srv.Client()).WithAuthToken("api-token")
	u, _ := url.Parse(srv.URL + "/")
	c.BaseURL = u
	return c, mux
}

// blobServer is a stand-in for the storage host behind the 302. It fails the
// test if any request carries an Authorization header.
type blobServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newBlob(t *testing.T, h func(n int32, w http.ResponseWriter, r *http.Request)) *blobServer {
	t.Helper()
	b := &blobServer{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("blob host got Authorization %q on %s", a, r.URL.Path)
		}
		if r.URL.Query().Get("sig") == "" {
			t.Errorf("blob request %s lost its signature", r.URL)
		}
		h(b.hits.Add(1), w, r)
	}))
	t.Cleanup(b.Close)
	return b
}

// downloadBytes downloads an artifact of unknown size and returns its
// bytes; the spool is removed.
func downloadBytes(gh artifactsAPI, owner, repo string, id int64, plain *http.Client, lim Limits) ([]byte, error) {
	sp, err := Download(context.Background(), gh, owner, repo, id, 0, plain, lim)
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	return io.ReadAll(io.NewSectionReader(sp, 0, sp.Size))
}

func TestDownload(t *testing.T) {
	t.Parallel()
	zipData := buildZip(t, entry{name: "review.json", data: `{"score":9}`})
	tests := []struct {
		name         string
		apiStatus    int // for every call to the API; 302 points at the blob
		blob         func(n int32, w http.ResponseWriter, r *http.Request)
		lim          Limits
		want         []byte
		wantErr      error  // errors.Is target
		wantErrText  string // a part of the error message
		wantAPICalls int32
		wantBlobHits int32
	}{
		{name: "the 302 location is fetched without the token",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				w.Write(zipData)
			},
			want: zipData, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a redirect from the blob host is followed without adding the token",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/blob" {
					http.Redirect(w, r, "/moved?sig=again", http.StatusTemporaryRedirect)
					return
				}
				w.Write([]byte("unzipped"))
			},
			want: []byte("unzipped"), wantAPICalls: 1, wantBlobHits: 2},
		{name: "an expired blob URL is retried once with a fresh one",
			apiStatus: 302,
			blob: func(n int32, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.WriteHeader(http.StatusForbidden)
					io.WriteString(w, "AuthenticationFailed: signed expiry time has passed")
					return
				}
				w.Write(zipData)
			},
			want: zipData, wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob URL that keeps answering 404 fails after one fresh try",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotFound)
			},
			wantErrText: "HTTP 404: the signed URL was refused or has expired (twice", wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob host 410 is retried once with a fresh URL",
			apiStatus: 302,
			blob: func(n int32, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.WriteHeader(http.StatusGone)
					return
				}
				w.Write([]byte("ok"))
			},
			want: []byte("ok"), wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob host 400 is not retried",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
			},
			wantErrText: "HTTP 400, want 200", wantAPICalls: 1, wantBlobHits: 1},
		{name: "an artifact the API does not know is not found",
			apiStatus: 404, wantErr: ErrNotFound, wantErrText: "artifact 7 of o/r", wantAPICalls: 1},
		{name: "an artifact past its retention is expired",
			apiStatus: 410, wantErr: ErrExpired, wantAPICalls: 1},
		{name: "a download larger than MaxZip by its Content-Length is refused",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(strings.Repeat("x", 11)))
			},
			lim: Limits{MaxZip: 10}, wantErr: ErrTooLarge, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a streamed download larger than MaxZip is cut off",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				for range 4 {
					w.Write([]byte(strings.Repeat("x", 6)))
					w.(http.Flusher).Flush() // no Content-Length: chunked
				}
			},
			lim: Limits{MaxZip: 10}, wantErr: ErrTooLarge, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a download exactly at MaxZip is accepted",
			apiStatus: 302,
			blob: func(_ int32, w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(strings.Repeat("x", 10)))
			},
			lim: Limits{MaxZip: 10}, want: []byte(strings.Repeat("x", 10)), wantAPICalls: 1, wantBlobHits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux := setupAPI(t)
			blob := newBlob(t, func(n int32, w http.ResponseWriter, r *http.Request) {
				if tc.blob == nil {
					t.Error("the blob host was called")
					return
				}
				tc.blob(n, w, r)
			})
			var apiCalls atomic.Int32
			mux.HandleFunc("/repos/o/r/actions/artifacts/7/zip", func(w http.ResponseWriter, r *http.Request) {
				apiCalls.Add(1)
				if r.Method != "GET" {
					t.Errorf("method = %s, want GET", r.Method)
				}
				if got := r.Header.Get("Authorization"); got != "Bearer api-token" {
					t.Errorf("API Authorization = %q, want the token", got)
				}
				if tc.apiStatus == 302 {
					w.Header().Set("Location", blob.URL+"/blob?sig=abc")
				}
				w.WriteHeader(tc.apiStatus)
				if tc.apiStatus != 302 {
					fmt.Fprintf(w, `{"message":"%s"}`, http.StatusText(tc.apiStatus))
				}
			})
			got, err := downloadBytes(client.Actions, "o", "r", 7, blob.Client(), tc.lim)
			if tc.wantErr == nil && tc.wantErrText == "" {
				if err != nil {
					t.Fatalf("Download: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("bytes (-want +got):\n%s", diff)
				}
			} else {
				if err == nil {
					t.Fatal("Download succeeded, want an error")
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("err = %q, want it to contain %q", err, tc.wantErrText)
				}
				if strings.Contains(err.Error(), "sig=") {
					t.Errorf("err %q leaks the signed URL", err)
				}
			}
			if apiCalls.Load() != tc.wantAPICalls {
				t.Errorf("API calls = %d, want %d", apiCalls.Load(), tc.wantAPICalls)
			}
			if blob.hits.Load() != tc.wantBlobHits {
				t.Errorf("blob requests = %d, want %d", blob.hits.Load(), tc.wantBlobHits)
			}
		})
	}
}

// fakeDownloader answers DownloadArtifact the way a broken or odd server
// might, for the cases an httptest server cannot produce through go-github.
type fakeDownloader struct {
	u    *url.URL
	resp *github.Response
	err  error
}

func (f fakeDownloader) DownloadArtifact(context.Context, string, string, int64, int) (*url.URL, *github.Response, error) {
	return f.u, f.resp, f.err
}

func TestDownloadRefusesOddLocations(t *testing.T) {
	t.Parallel()
	notFound := &github.ErrorResponse{Response: &http.Response{StatusCode: 404}, Message: "Not Found"}
	tests := []struct {
		name    string
		fake    fakeDownloader
		wantErr error
		want    string
	}{
		{name: "no location", fake: fakeDownloader{}, want: "GitHub sent no Location"},
		{name: "a relative location", fake: fakeDownloader{u: &url.URL{Path: "/x", RawQuery: "sig=1"}}, want: "not an absolute http(s) URL"},
		{name: "a file location", fake: fakeDownloader{u: &url.URL{Scheme: "file", Path: "/etc/passwd"}}, want: "not an absolute http(s) URL"},
		{name: "a 404 as an ErrorResponse", fake: fakeDownloader{err: notFound}, wantErr: ErrNotFound},
		{name: "a transport error", fake: fakeDownloader{err: errors.New("connection reset")}, want: "get download URL: connection reset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := downloadBytes(tc.fake, "o", "r", 1, nil, Limits{})
			if err == nil {
				t.Fatal("no error")
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	// Two pages: the second holds an expired artifact and a newer copy of a name.
	page1 := `{"total_count":4,"artifacts":[
		{"id":1,"name":"review","expired":false,"created_at":"2026-03-01T10:00:00Z"},
		{"id":2,"name":"coverage","expired":false,"created_at":"2026-03-01T10:00:00Z"}]}`
	page2 := `{"total_count":4,"artifacts":[
		{"id":3,"name":"old","expired":true,"expires_at":"2026-02-01T00:00:00Z"},
		{"id":4,"name":"review","expired":false,"created_at":"2026-03-01T11:00:00Z"}]}`
	ids := func(as []*github.Artifact) []int64 {
		var out []int64
		for _, a := range as {
			out = append(out, a.GetID())
		}
		return out
	}
	tests := []struct {
		name     string
		names    []string
		wantIDs  []int64
		wantErr  error
		wantText string
	}{
		{name: "no names returns every live artifact of every page", wantIDs: []int64{1, 2, 4}},
		{name: "names are returned in the order asked, the newest of a repeated name", names: []string{"coverage", "review", "coverage"}, wantIDs: []int64{2, 4}},
		{name: "a missing name is an error that names it and what the run has", names: []string{"review", "sarif", "junit"},
			wantErr: ErrNotFound, wantText: `no artifact named "sarif", "junit" (the run has: "review", "coverage", "old")`},
		{name: "an expired artifact asked for is an error", names: []string{"old"},
			wantErr: ErrExpired, wantText: `expired: "old" (expired on 2026-02-01)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, mux := setupAPI(t)
			var calls atomic.Int32
			mux.HandleFunc("/repos/o/r/actions/runs/42/artifacts", func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if got := r.URL.Query().Get("per_page"); got != "100" {
					t.Errorf("per_page = %q, want 100", got)
				}
				if r.URL.Query().Get("page") == "2" {
					io.WriteString(w, page2)
					return
				}
				w.Header().Set("Link", `<`+r.URL.Path+`?page=2&per_page=100>; rel="next", <`+r.URL.Path+`?page=2&per_page=100>; rel="last"`)
				io.WriteString(w, page1)
			})
			got, err := List(context.Background(), client.Actions, "o", "r", 42, tc.names)
			if calls.Load() != 2 {
				t.Errorf("API calls = %d, want 2 (both pages)", calls.Load())
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantText) {
					t.Errorf("err = %q, want it to contain %q", err, tc.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantIDs, ids(got)); diff != "" {
				t.Errorf("artifact ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	t.Parallel()
	client, mux := setupAPI(t)
	mux.HandleFunc("/repos/o/r/actions/runs/9/artifacts", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	})
	_, err := List(context.Background(), client.Actions, "o", "r", 9, nil)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Fatalf("err = %v, want a wrapped 404 *github.ErrorResponse", err)
	}
	if !strings.Contains(err.Error(), "list artifacts of run 9 in o/r") {
		t.Errorf("err = %q does not say what failed", err)
	}
}

// loopingLister always claims there is a next page that goes backwards.
type loopingLister struct{}

func (loopingLister) ListWorkflowRunArtifacts(_ context.Context, _, _ string, _ int64, opts *github.ListOptions) (*github.ArtifactList, *github.Response, error) {
	return &github.ArtifactList{}, &github.Response{NextPage: 1}, nil
}

func TestListStopsPaginationThatDoesNotAdvance(t *testing.T) {
	t.Parallel()
	_, err := List(context.Background(), loopingLister{}, "o", "r", 1, nil)
	if err == nil || !strings.Contains(err.Error(), "pagination does not advance") {
		t.Errorf("err = %v, want a pagination error", err)
	}
}

func TestDownloadThroughTheGcloopClient(t *testing.T) {
	t.Parallel()
	blob := newBlob(t, func(_ int32, w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("data"))
	})
	var apiCalls atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if apiCalls.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway) // retried by the transport
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer tok" {
			t.Errorf("API Authorization = %q", got)
		}
		http.Redirect(w, r, blob.URL+"/blob?sig=abc", http.StatusFound)
	}))
	t.Cleanup(api.Close)
	client, err := ghclient.New(ghclient.Options{Token: "tok", BaseURL: api.URL,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	got, err := downloadBytes(client.Actions, "o", "r", 1, blob.Client(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "data" || apiCalls.Load() != 2 || blob.hits.Load() != 1 {
		t.Errorf("got %q after %d API calls and %d blob requests, want \"data\", 2, 1", got, apiCalls.Load(), blob.hits.Load())
	}
}

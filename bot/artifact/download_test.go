package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

const apiToken = "api-token"

// fakeGitHub is the fake GitHub of these tests: repository o/r with
// workflow run 42, and a client that sends apiToken.
func fakeGitHub(t *testing.T) (*ghfake.Server, *github.Client, int64) {
	t.Helper()
	s := ghfake.New(t)
	s.AddRepo("o", "r", 1, "main")
	s.AddToken(apiToken, "github-actions[bot]", true)
	run := s.AddWorkflowRun("o", "r", ghfake.RunSpec{ID: 42, HeadSHA: strings.Repeat("a", 40)})
	return s, s.Client(apiToken), run
}

// downloads counts the API's artifact downloads the fake received, and
// fails t on one without the token.
func downloads(t *testing.T, s *ghfake.Server) int {
	t.Helper()
	n := 0
	for _, r := range s.Requests() {
		if r.Operation != "actions/download-artifact" {
			continue
		}
		n++
		if got := r.Header.Get("Authorization"); got != "Bearer "+apiToken {
			t.Errorf("API Authorization = %q, want the token", got)
		}
	}
	return n
}

// blobHits counts the storage's requests, and fails t on one that carries
// a token or lost its signature.
func blobHits(t *testing.T, s *ghfake.Server) int {
	t.Helper()
	for _, r := range s.BlobRequests() {
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("blob host got Authorization %q on %s", a, r.Path)
		}
		if !strings.Contains(r.RawQuery, "sig=") {
			t.Errorf("blob request %s?%s lost its signature", r.Path, r.RawQuery)
		}
	}
	return len(s.BlobRequests())
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
	blobRule := func(status, times int) []ghfake.FailRule {
		return []ghfake.FailRule{{Pattern: "GET /artifacts/{id}", Status: status, Times: times}}
	}
	tests := []struct {
		name         string
		data         []byte // the artifact's bytes; nil = the API does not know it
		expired      bool
		blob         []ghfake.FailRule // faults of the storage host
		stream       bool              // the storage sends no Content-Length
		lim          Limits
		want         []byte
		wantErr      error  // errors.Is target
		wantErrText  string // a part of the error message
		wantAPICalls int
		wantBlobHits int
	}{
		{name: "the 302 location is fetched without the token",
			data: zipData, want: zipData, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a redirect from the blob host is followed without adding the token",
			data: zipData, blob: blobRule(http.StatusTemporaryRedirect, 1), want: zipData, wantAPICalls: 1, wantBlobHits: 2},
		{name: "an expired blob URL is retried once with a fresh one",
			data: zipData, blob: blobRule(http.StatusForbidden, 1), want: zipData, wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob URL that keeps answering 404 fails after one fresh try",
			data: zipData, blob: blobRule(http.StatusNotFound, 0),
			wantErrText: "HTTP 404: the signed URL was refused or has expired (twice", wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob host 410 is retried once with a fresh URL",
			data: []byte("ok"), blob: blobRule(http.StatusGone, 1), want: []byte("ok"), wantAPICalls: 2, wantBlobHits: 2},
		{name: "a blob host 400 is not retried",
			data: zipData, blob: blobRule(http.StatusBadRequest, 0), wantErrText: "HTTP 400, want 200", wantAPICalls: 1, wantBlobHits: 1},
		{name: "an artifact the API does not know is not found",
			wantErr: ErrNotFound, wantErrText: "artifact 7 of o/r", wantAPICalls: 1},
		{name: "an artifact past its retention is expired",
			data: zipData, expired: true, wantErr: ErrExpired, wantAPICalls: 1},
		{name: "a download larger than MaxZip by its Content-Length is refused",
			data: []byte(strings.Repeat("x", 11)), lim: Limits{MaxZip: 10}, wantErr: ErrTooLarge, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a streamed download larger than MaxZip is cut off",
			data: []byte(strings.Repeat("x", 24)), stream: true, lim: Limits{MaxZip: 10}, wantErr: ErrTooLarge, wantAPICalls: 1, wantBlobHits: 1},
		{name: "a download exactly at MaxZip is accepted",
			data: []byte(strings.Repeat("x", 10)), lim: Limits{MaxZip: 10}, want: []byte(strings.Repeat("x", 10)), wantAPICalls: 1, wantBlobHits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, client, run := fakeGitHub(t)
			id := int64(7) // no artifact has it
			if tc.data != nil {
				id = s.AddArtifact("o", "r", run, "review", tc.data)
			}
			if tc.expired {
				s.ExpireArtifact(id)
			}
			s.StreamArtifacts(tc.stream)
			for _, f := range tc.blob {
				s.Fail(f)
			}
			got, err := downloadBytes(client.Actions, "o", "r", id, &http.Client{}, tc.lim)
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
			if n := downloads(t, s); n != tc.wantAPICalls {
				t.Errorf("API calls = %d, want %d", n, tc.wantAPICalls)
			}
			if n := blobHits(t, s); n != tc.wantBlobHits {
				t.Errorf("blob requests = %d, want %d", n, tc.wantBlobHits)
			}
		})
	}
}

// fakeDownloader answers DownloadArtifact the way a broken or odd server
// might, for the cases the fake GitHub cannot produce through go-github.
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
	tests := []struct {
		name     string
		names    []string
		want     []int // indexes of the artifacts below
		wantErr  error
		wantText string
	}{
		{name: "no names returns every live artifact of every page", want: []int{0, 1, 3}},
		{name: "names are returned in the order asked, the newest of a repeated name", names: []string{"coverage", "review", "coverage"}, want: []int{1, 3}},
		{name: "a missing name is an error that names it and what the run has", names: []string{"review", "sarif", "junit"},
			wantErr: ErrNotFound, wantText: `no artifact named "sarif", "junit" (the run has: "review", "coverage", "old")`},
		{name: "an expired artifact asked for is an error", names: []string{"old"},
			wantErr: ErrExpired, wantText: `expired: "old" (expired on 2026-02-01)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, client, run := fakeGitHub(t)
			// Two pages: the second holds an expired artifact and a newer
			// copy of a name.
			s.SetPerPage(2)
			var ids []int64
			for _, a := range []struct {
				name    string
				created time.Time
			}{
				{"review", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)},
				{"coverage", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)},
				{"old", time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC)}, // kept 90 days: to 2026-02-01
				{"review", time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)},
			} {
				s.SetClock(func() time.Time { return a.created })
				ids = append(ids, s.AddArtifact("o", "r", run, a.name, []byte("zip")))
			}
			s.ExpireArtifact(ids[2])
			got, err := List(context.Background(), client.Actions, "o", "r", run, tc.names)
			want := []string{
				fmt.Sprintf("GET /repos/o/r/actions/runs/%d/artifacts?per_page=100", run),
				fmt.Sprintf("GET /repos/o/r/actions/runs/%d/artifacts?page=2&per_page=100", run),
			}
			if diff := cmp.Diff(want, s.RequestLines()); diff != "" {
				t.Errorf("requests, both pages (-want +got):\n%s", diff)
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
			var wantIDs, gotIDs []int64
			for _, i := range tc.want {
				wantIDs = append(wantIDs, ids[i])
			}
			for _, a := range got {
				gotIDs = append(gotIDs, a.GetID())
			}
			if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
				t.Errorf("artifact ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	t.Parallel()
	_, client, _ := fakeGitHub(t)
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
	s, _, run := fakeGitHub(t)
	id := s.AddArtifact("o", "r", run, "review", []byte("data"))
	s.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}", Status: http.StatusBadGateway, Times: 1}) // retried by the transport
	client, err := ghclient.New(ghclient.Options{Token: apiToken, BaseURL: s.URL(),
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	got, err := downloadBytes(client.Actions, "o", "r", id, &http.Client{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if api, blob := downloads(t, s), blobHits(t, s); string(got) != "data" || api != 2 || blob != 1 {
		t.Errorf("got %q after %d API calls and %d blob requests, want \"data\", 2, 1", got, api, blob)
	}
}

package ghfake_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// TestBlobHostFaultsAndStreaming: fault rules apply to the artifact
// storage's paths (a refusal, a redirect to the same URL), its requests
// are kept apart from the API's, and it streams without a Content-Length
// when asked to.
func TestBlobHostFaultsAndStreaming(t *testing.T) {
	t.Parallel()
	zip := []byte("PK\x03\x04 zip bytes")
	tests := []struct {
		name       string
		rule       *ghfake.FailRule
		stream     bool
		wantStatus []int // of each storage request
		wantLength int64 // the final answer's ContentLength
	}{
		{name: "by default the zip comes with its length", wantStatus: []int{200}, wantLength: int64(len(zip))},
		{name: "streamed, it comes in chunks", stream: true, wantStatus: []int{200}, wantLength: -1},
		{name: "a refusal of the signed URL", rule: &ghfake.FailRule{Pattern: "GET /artifacts/{id}", Status: 403, Times: 1}, wantStatus: []int{403}},
		{name: "a redirect to the same URL is followed", rule: &ghfake.FailRule{Pattern: "GET /artifacts/{id}", Status: 307, Times: 1},
			wantStatus: []int{307, 200}, wantLength: int64(len(zip))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, c := world(t)
			ctx := context.Background()
			runID := s.AddWorkflowRun(owner, repo, ghfake.RunSpec{HeadSHA: strings.Repeat("a", 40)})
			id := s.AddArtifact(owner, repo, runID, "review", zip)
			s.StreamArtifacts(tt.stream)
			if tt.rule != nil {
				s.Fail(*tt.rule)
			}
			loc, _, err := c.Actions.DownloadArtifact(ctx, owner, repo, id, 0)
			if err != nil {
				t.Fatalf("DownloadArtifact: %v", err)
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
			resp, err := ownTransport.Do(req)
			if err != nil {
				t.Fatalf("GET blob: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := tt.wantStatus[len(tt.wantStatus)-1]
			if resp.StatusCode != want || (want == 200 && (string(body) != string(zip) || resp.ContentLength != tt.wantLength)) {
				t.Errorf("GET blob = %d, %d bytes, length %d; want %d, the zip, length %d", resp.StatusCode, len(body), resp.ContentLength, want, tt.wantLength)
			}
			blobs := s.BlobRequests()
			if len(blobs) != len(tt.wantStatus) {
				t.Fatalf("%d storage requests, want %d", len(blobs), len(tt.wantStatus))
			}
			for i, r := range blobs {
				if r.Status != tt.wantStatus[i] || r.Path != "/artifacts/"+strconv.FormatInt(id, 10) || !strings.Contains(r.RawQuery, "sig=") {
					t.Errorf("storage request %d: %s %s?%s answered %d, want %d", i, r.Method, r.Path, r.RawQuery, r.Status, tt.wantStatus[i])
				}
			}
			if n := len(s.RequestLines()); n != 1 {
				t.Errorf("%d API requests, want the one download", n)
			}
		})
	}
}

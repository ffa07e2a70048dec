package ghfake

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoutingHonoursMultiSegmentParameters(t *testing.T) {
	t.Parallel()
	sp, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path string
		wantOp             string
		wantParams         map[string]string
	}{
		{"a ref with slashes", "GET", "/repos/o/r/git/ref/heads/feature/x", "git/get-ref",
			map[string]string{"owner": "o", "repo": "r", "ref": "heads/feature/x"}},
		{"an escaped slash in a ref", "PATCH", "/repos/o/r/git/refs/heads/feature%2Fx", "git/update-ref",
			map[string]string{"owner": "o", "repo": "r", "ref": "heads/feature/x"}},
		{"a multi-segment parameter before a literal", "GET", "/repos/o/r/commits/abc/def/pulls", "repos/list-pull-requests-associated-with-commit",
			map[string]string{"owner": "o", "repo": "r", "commit_sha": "abc/def"}},
		{"a content path with directories and a space", "GET", "/repos/o/r/contents/.github/my%20dir/gcloop.yml", "repos/get-content",
			map[string]string{"owner": "o", "repo": "r", "path": ".github/my dir/gcloop.yml"}},
		{"a literal wins over a parameter", "GET", "/repos/o/r/issues/comments/5", "issues/get-comment",
			map[string]string{"owner": "o", "repo": "r", "comment_id": "5"}},
		{"the rate limit", "GET", "/rate_limit", "rate-limit/get", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, params, _ := sp.match(tt.method, tt.path)
			if r == nil {
				t.Fatalf("no route for %s %s", tt.method, tt.path)
			}
			if r.opID != tt.wantOp {
				t.Errorf("operation = %s, want %s", r.opID, tt.wantOp)
			}
			if diff := cmp.Diff(tt.wantParams, params); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
	if r, _, known := sp.match("PUT", "/repos/o/r/issues/1"); r != nil || !known {
		t.Errorf("PUT on a known path: route %v, known %v; want none, known", r, known)
	}
	ops := 0
	for _, item := range sp.doc.Paths.Map() {
		ops += len(item.Operations())
	}
	if len(sp.routes) != ops {
		t.Errorf("routes = %d, want one per operation of the subset (%d)", len(sp.routes), ops)
	}
}

func TestMatchPattern(t *testing.T) {
	t.Parallel()
	tmpl := "/repos/{owner}/{repo}/issues/comments/{comment_id}"
	tests := []struct {
		pattern, method, path string
		want                  bool
	}{
		{"PATCH " + tmpl, "PATCH", "/repos/o/r/issues/comments/5", true},
		{"patch " + tmpl, "PATCH", "/repos/o/r/issues/comments/5", true},
		{"GET " + tmpl, "PATCH", "/repos/o/r/issues/comments/5", false},
		{"* /repos/o/r/issues/comments/{id}", "DELETE", "/repos/o/r/issues/comments/5", true},
		{"* /repos/o/other/issues/comments/{id}", "DELETE", "/repos/o/r/issues/comments/5", false},
		{"PATCH /repos/o/r/issues/comments", "PATCH", "/repos/o/r/issues/comments/5", false},
		{"no-space", "PATCH", "/repos/o/r/issues/comments/5", false},
	}
	for _, tt := range tests {
		if got := matchPattern(tt.pattern, tt.method, tmpl, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %s %s) = %v, want %v", tt.pattern, tt.method, tt.path, got, tt.want)
		}
	}
}

// FuzzMatch: any method and path routes without panicking, and a match
// binds every parameter of its template to a non-empty value — but for a
// trailing multi-segment one, empty for the root (GET …/contents/, which
// GitHub answers with the repository's root and go-github's
// DownloadContents sends for a file at the root).
func FuzzMatch(f *testing.F) {
	sp, err := loadSpec()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"/repos/o/r/git/ref/heads/a/b", "/repos/o/r/commits//pulls", "/", "//", "/repos/%zz/r/issues", "/repos/o/r/contents/"} {
		f.Add("GET", seed)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		r, params, _ := sp.match(method, path)
		if r == nil {
			return
		}
		for i, sg := range r.segs {
			if sg.param != "" && params[sg.param] == "" && (!sg.multi || i != len(r.segs)-1 || !strings.HasSuffix(path, "/")) {
				t.Errorf("%s %s matched %s with empty %s", method, path, r.template, sg.param)
			}
		}
	})
}

// TestEmbeddedSpecIsTheSharedOne keeps the embedded description equal to
// the project's shared copy, where that copy sits beside the module.
func TestEmbeddedSpecIsTheSharedOne(t *testing.T) {
	t.Parallel()
	shared, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "github-openapi", "openapi-subset.json"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Log("no shared copy beside the module: nothing to compare with")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, embeddedSpec) {
		t.Error("bot/ghfake/openapi/openapi-subset.json differs from ../shared/github-openapi/openapi-subset.json: copy it again")
	}
}

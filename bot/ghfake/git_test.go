package ghfake_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"
)

func blobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

func TestAddCommitUsesRealGitObjectIDs(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	files := map[string][]byte{"a.go": []byte("package a\n"), "dir/sub/b_test.go": []byte("package sub\n")}
	sha := s.AddCommit(owner, repo, "main", files)
	if s.Ref(owner, repo, "heads/main") != sha {
		t.Fatalf("heads/main = %q, want %q", s.Ref(owner, repo, "heads/main"), sha)
	}
	tree, _, err := c.Git.GetTree(context.Background(), owner, repo, sha, true)
	if err != nil {
		t.Fatalf("GetTree recursive: %v", err)
	}
	got := map[string]string{}
	for _, e := range tree.Entries {
		got[e.GetPath()] = e.GetType() + " " + e.GetMode()
		if e.GetType() == "blob" && e.GetSHA() != blobID(string(files[e.GetPath()])) {
			t.Errorf("blob %s sha = %s, want git's %s", e.GetPath(), e.GetSHA(), blobID(string(files[e.GetPath()])))
		}
	}
	want := map[string]string{"a.go": "blob 100644", "dir": "tree 040000", "dir/sub": "tree 040000", "dir/sub/b_test.go": "blob 100644"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recursive tree (-want +got):\n%s", diff)
	}
	flat, _, err := c.Git.GetTree(context.Background(), owner, repo, sha, false)
	if err != nil || len(flat.Entries) != 2 {
		t.Errorf("non-recursive tree = %d entries, %v; want 2", len(flat.Entries), err)
	}
	if diff := cmp.Diff(files, s.TreeFiles(owner, repo, sha)); diff != "" {
		t.Errorf("TreeFiles (-want +got):\n%s", diff)
	}
}

// TestTreeIDsMatchTheGitBinary checks tree and blob ids against git itself
// when it is installed.
func TestTreeIDsMatchTheGitBinary(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not installed; ids are checked against hand-computed blob ids elsewhere")
	}
	s, c := world(t)
	files := map[string][]byte{"a.go": []byte("package a\n"), "z/b.txt": []byte("b\n"), "a-b/c": []byte("c")}
	sha := s.AddCommit(owner, repo, "main", files)
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	for p, b := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	wantTree := run("write-tree")
	commit, _, err := c.Git.GetCommit(context.Background(), owner, repo, sha)
	if err != nil {
		t.Fatalf("GetCommit: %v", err)
	}
	if commit.GetTree().GetSHA() != wantTree {
		t.Errorf("tree id = %s, git write-tree = %s", commit.GetTree().GetSHA(), wantTree)
	}
}

func TestCommitThroughTheGitDataAPI(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	base := s.AddCommit(owner, repo, "feature/x", map[string][]byte{"a.go": []byte("package a\n"), "old_test.go": []byte("package a\n")})

	blob, resp, err := c.Git.CreateBlob(ctx, owner, repo, &github.Blob{Content: github.String(base64.StdEncoding.EncodeToString([]byte("bin\x00ary"))), Encoding: github.String("base64")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("CreateBlob: %v", err)
	}
	if blob.GetSHA() != blobID("bin\x00ary") {
		t.Errorf("blob sha = %s, want %s", blob.GetSHA(), blobID("bin\x00ary"))
	}
	tree, _, err := c.Git.CreateTree(ctx, owner, repo, base, []*github.TreeEntry{
		{Path: github.String("a_test.go"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("package a\n// test\n")},
		{Path: github.String("testdata/x.bin"), Mode: github.String("100644"), Type: github.String("blob"), SHA: blob.SHA},
		{Path: github.String("old_test.go"), Mode: github.String("100644"), Type: github.String("blob")}, // sha: null deletes
	})
	if err != nil {
		t.Fatalf("CreateTree: %v", err)
	}
	commit, _, err := c.Git.CreateCommit(ctx, owner, repo, &github.Commit{Message: github.String("gcloop: tests"), Tree: tree, Parents: []*github.Commit{{SHA: &base}}}, nil)
	if err != nil {
		t.Fatalf("CreateCommit: %v", err)
	}
	if _, _, err := c.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String("refs/heads/feature/x"), Object: &github.GitObject{SHA: commit.SHA}}, false); err != nil {
		t.Fatalf("UpdateRef fast-forward: %v", err)
	}
	ref, _, err := c.Git.GetRef(ctx, owner, repo, "heads/feature/x")
	if err != nil || ref.GetObject().GetSHA() != commit.GetSHA() {
		t.Fatalf("GetRef = %v, %v; want %s", ref, err, commit.GetSHA())
	}
	want := map[string][]byte{"a.go": []byte("package a\n"), "a_test.go": []byte("package a\n// test\n"), "testdata/x.bin": []byte("bin\x00ary")}
	if diff := cmp.Diff(want, s.TreeFiles(owner, repo, commit.GetSHA())); diff != "" {
		t.Errorf("committed files (-want +got):\n%s", diff)
	}
	info := s.Commit(owner, repo, commit.GetSHA())
	if info.Author != nil || info.Committer != nil || !info.Verified || info.Message != "gcloop: tests" {
		t.Errorf("commit info = %+v, want no author/committer sent, verified, the message", info)
	}
	if diff := cmp.Diff([]string{base}, info.Parents); diff != "" {
		t.Errorf("parents (-want +got):\n%s", diff)
	}
	got, _, err := c.Git.GetCommit(ctx, owner, repo, commit.GetSHA())
	if err != nil || !got.GetVerification().GetVerified() {
		t.Errorf("GetCommit verification = %v, %v; want verified", got.GetVerification(), err)
	}
}

func TestRefUpdatesRefuseNonFastForwardsAndUnknownObjects(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	first := s.AddCommit(owner, repo, "main", map[string][]byte{"a": []byte("1")})
	second := s.AddCommit(owner, repo, "main", map[string][]byte{"a": []byte("2")}, first)
	sideways := s.AddCommit(owner, repo, "other", map[string][]byte{"a": []byte("3")}, first)
	tests := []struct {
		name    string
		sha     string
		force   bool
		wantMsg string
	}{
		{"a commit that does not descend from the head", sideways, false, "Update is not a fast forward"},
		{"an older commit", first, false, "Update is not a fast forward"},
		{"an unknown sha", strings.Repeat("d", 40), false, "Object does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: &tt.sha}}, tt.force)
			var er *github.ErrorResponse
			if !errStatusIs(err, &er, http.StatusUnprocessableEntity) || er.Message != tt.wantMsg {
				t.Errorf("err = %v, want 422 %q", err, tt.wantMsg)
			}
			if got := s.Ref(owner, repo, "main"); got != second {
				t.Errorf("main moved to %s", got)
			}
		})
	}
	if _, _, err := c.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: &sideways}}, true); err != nil {
		t.Fatalf("forced update: %v", err)
	}
	if got := s.Ref(owner, repo, "main"); got != sideways {
		t.Errorf("main = %s after forced update, want %s", got, sideways)
	}
	if _, _, err := c.Git.GetRef(ctx, owner, repo, "heads/nope"); errStatus(err) != http.StatusNotFound {
		t.Errorf("GetRef of a missing ref: %v, want 404", err)
	}
}

func errStatusIs(err error, er **github.ErrorResponse, status int) bool {
	if e, ok := err.(*github.ErrorResponse); ok {
		*er = e
		return e.Response.StatusCode == status
	}
	return false
}

func TestGetContentBase64AndRaw(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	cfg := []byte("loops:\n  review:\n    max_rounds: 4\n")
	s.AddFile(owner, repo, "main", ".github/gcloop.yml", cfg)
	s.AddCommit(owner, repo, "feature/x", map[string][]byte{"docs/a b.md": []byte("# a\n")})

	file, dir, _, err := c.Repositories.GetContents(ctx, owner, repo, ".github/gcloop.yml", &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil || dir != nil {
		t.Fatalf("GetContents: %v", err)
	}
	text, err := file.GetContent()
	if err != nil || text != string(cfg) {
		t.Errorf("content = %q, %v; want %q", text, err, cfg)
	}
	if file.GetSHA() != blobID(string(cfg)) {
		t.Errorf("content sha = %s, want %s", file.GetSHA(), blobID(string(cfg)))
	}
	// Default ref is the default branch.
	if _, _, _, err := c.Repositories.GetContents(ctx, owner, repo, ".github/gcloop.yml", nil); err != nil {
		t.Errorf("GetContents without ref: %v", err)
	}
	// From the git store, on a branch with a slash, a path with a space.
	file, _, _, err = c.Repositories.GetContents(ctx, owner, repo, "docs/a b.md", &github.RepositoryContentGetOptions{Ref: "feature/x"})
	if err != nil {
		t.Fatalf("GetContents from the git store: %v", err)
	}
	if text, _ := file.GetContent(); text != "# a\n" {
		t.Errorf("content = %q", text)
	}
	_, listing, _, err := c.Repositories.GetContents(ctx, owner, repo, "docs", &github.RepositoryContentGetOptions{Ref: "feature/x"})
	if err != nil || len(listing) != 1 || listing[0].GetType() != "file" {
		t.Errorf("directory listing = %v, %v", listing, err)
	}
	if _, _, _, err := c.Repositories.GetContents(ctx, owner, repo, "missing.yml", nil); errStatus(err) != http.StatusNotFound {
		t.Errorf("missing file: %v, want 404", err)
	}

	req, err := c.NewRequest(http.MethodGet, "repos/acme/widgets/contents/.github/gcloop.yml?ref=main", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := c.BareDo(ctx, req)
	if err != nil {
		t.Fatalf("raw content: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if string(raw) != string(cfg) {
		t.Errorf("raw content = %q, want %q", raw, cfg)
	}
}

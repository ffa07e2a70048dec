package pushfix

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/coverage/guard"
)

const fakeToken = "ghs_gcloop"

// fakeRepo is the fake GitHub of the adapter tests: repository o/r whose
// branch holds one commit of files, and a client that sends the token.
// It returns the commit and its tree.
func fakeRepo(t *testing.T, branch string, files map[string][]byte) (s *ghfake.Server, c *github.Client, head, tree string) {
	t.Helper()
	s = ghfake.New(t)
	s.AddRepo("o", "r", 1, "main")
	s.AddToken(fakeToken, "gcloop[bot]", true)
	head = s.AddCommit("o", "r", branch, files)
	return s, s.Client(fakeToken), head, s.Commit("o", "r", head).Tree
}

// sent decodes the JSON bodies of the requests the fake received for
// method path, in order.
func sent(t *testing.T, s *ghfake.Server, method, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range s.Requests() {
		if r.Method != method || r.Path != path {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Errorf("%s %s: body is not a JSON object: %v", method, path, err)
		}
		out = append(out, m)
	}
	return out
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// headFiles are the files of the branch the push tests push onto.
var headFiles = map[string][]byte{"a_test.go": []byte("package a\n"), "testdata/old.txt": []byte("old\n")}

func pushSpec(head, tree string) PushSpec {
	return PushSpec{
		Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head, BaseTree: tree, Message: "gcloop: tests",
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
	s, client, head, tree := fakeRepo(t, "feature/x", headFiles)
	sha, err := Push(context.Background(), client.Git, pushSpec(head, tree))
	if err != nil {
		t.Fatal(err)
	}
	if ref := s.Ref("o", "r", "heads/feature/x"); sha != ref {
		t.Errorf("sha = %s, the branch points at %s", sha, ref)
	}
	wantBlobs := []map[string]any{
		{"content": "package a // é\n", "encoding": "utf-8"},
		{"content": base64.StdEncoding.EncodeToString([]byte("caf\xe9\n")), "encoding": "base64"}, // not valid UTF-8
		{"content": base64.StdEncoding.EncodeToString([]byte("\x89PNG\x00\xff")), "encoding": "base64"},
		{"content": "#!/bin/sh\n", "encoding": "utf-8"},
	}
	if diff := cmp.Diff(wantBlobs, sent(t, s, "POST", "/repos/o/r/git/blobs")); diff != "" {
		t.Errorf("blob bodies, in path order (-want +got):\n%s", diff)
	}

	trees := sent(t, s, "POST", "/repos/o/r/git/trees")
	if len(trees) != 1 {
		t.Fatalf("%d trees created, want 1", len(trees))
	}
	if trees[0]["base_tree"] != tree {
		t.Errorf("base_tree = %v, want %s", trees[0]["base_tree"], tree)
	}
	entries := map[string]map[string]any{}
	for _, e := range trees[0]["tree"].([]any) {
		m := e.(map[string]any)
		entries[m["path"].(string)] = m
	}
	del, ok := entries["testdata/old.txt"]
	if !ok {
		t.Fatalf("tree entries %v: no deletion of testdata/old.txt", entries)
	}
	if sha, has := del["sha"]; !has || sha != nil {
		t.Errorf("deletion entry %v: want \"sha\": null", del)
	}
	if _, has := del["content"]; has {
		t.Errorf("deletion entry %v: want no content", del)
	}
	add := entries["tests/gen.sh"]
	if add["mode"] != ModeExecutable || add["type"] != "blob" || add["sha"] != BlobID([]byte("#!/bin/sh\n")) {
		t.Errorf("entry for tests/gen.sh = %v, want mode 100755, type blob and its blob id", add)
	}

	commit := s.Commit("o", "r", sha)
	commits := sent(t, s, "POST", "/repos/o/r/git/commits")
	if len(commits) != 1 {
		t.Fatalf("%d commits created, want 1", len(commits))
	}
	if diff := cmp.Diff([]string{"message", "parents", "tree"}, keys(commits[0])); diff != "" {
		t.Errorf("create-commit body keys (-want +got):\n%s\nno author, committer or signature may be sent", diff)
	}
	if diff := cmp.Diff(map[string]any{"message": "gcloop: tests", "parents": []any{head}, "tree": commit.Tree}, commits[0]); diff != "" {
		t.Errorf("create-commit body (-want +got):\n%s", diff)
	}
	if !commit.Verified || commit.Author != nil {
		t.Errorf("commit %+v, want one GitHub signed", commit)
	}
	if diff := cmp.Diff([]map[string]any{{"sha": sha, "force": false}}, sent(t, s, "PATCH", "/repos/o/r/git/refs/heads/feature/x")); diff != "" {
		t.Errorf("update-ref body (-want +got):\n%s", diff)
	}
	files := s.TreeFiles("o", "r", sha)
	want := map[string]string{"a_test.go": "package a // é\n", "testdata/img.bin": "\x89PNG\x00\xff", "testdata/bad-utf8.txt": "caf\xe9\n", "tests/gen.sh": "#!/bin/sh\n"}
	got := map[string]string{}
	for p, b := range files {
		got[p] = string(b)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files of the pushed commit (-want +got):\n%s", diff)
	}
}

func TestPushMapsGitHubsNonFastForwardToErrHeadMoved(t *testing.T) {
	t.Parallel()
	s, client, head, tree := fakeRepo(t, "feature/x", headFiles)
	// The branch moves between the read of the ref and its update.
	s.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/git/refs/{ref}", Status: 422, Message: "Update is not a fast forward"})
	_, err := Push(context.Background(), client.Git, pushSpec(head, tree))
	if !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("err = %v, want ErrHeadMoved", err)
	}
	commits := sent(t, s, "POST", "/repos/o/r/git/commits")
	if len(commits) != 1 {
		t.Fatalf("%d commits created, want 1", len(commits))
	}
	if !strings.Contains(err.Error(), "refs/heads/feature/x") || !strings.Contains(err.Error(), head) {
		t.Errorf("err = %v, want the ref and the head", err)
	}
	if refs := sent(t, s, "PATCH", "/repos/o/r/git/refs/heads/feature/x"); len(refs) != 1 || !strings.Contains(err.Error(), refs[0]["sha"].(string)) {
		t.Errorf("err = %v, want the new commit's sha %v", err, refs)
	}
}

func TestPushKeepsOther422sDistinct(t *testing.T) {
	t.Parallel()
	s, client, head, tree := fakeRepo(t, "feature/x", headFiles)
	s.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/git/refs/{ref}", Status: 422, Message: "Reference does not exist"})
	_, err := Push(context.Background(), client.Git, pushSpec(head, tree))
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
				s, client, head, tree := fakeRepo(t, "b", map[string][]byte{"a.go": []byte("package a\n")})
				var slept []time.Duration
				if retrying {
					var err error
					client, err = ghclient.New(ghclient.Options{Token: fakeToken, BaseURL: s.URL(), MutationPause: -1,
						Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }})
					if err != nil {
						t.Fatal(err)
					}
				}
				s.Fail(ghfake.FailRule{Pattern: "POST /repos/{owner}/{repo}/git/blobs", Status: status, Times: 1, RetryAfter: 7})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				sha, err := Push(ctx, client.Git, PushSpec{Owner: "o", Repo: "r", Branch: "b", HeadSHA: head, BaseTree: tree, Message: "m",
					Changes: []guard.Change{{Path: "x_test.go", New: []byte("x"), NewExists: true}}})
				want := 1
				if retrying {
					want = 2
					if err != nil || sha == "" || sha != s.Ref("o", "r", "heads/b") {
						t.Errorf("Push = %q, %v; want the new head after one retry", sha, err)
					}
					if diff := cmp.Diff([]time.Duration{7 * time.Second}, slept); diff != "" {
						t.Errorf("waits (-want +got):\n%s", diff)
					}
				} else if ghclient.Classify(err) != ghclient.KindRateLimited {
					t.Errorf("err = %v, want the rate limit unretried", err)
				}
				if n := len(sent(t, s, "POST", "/repos/o/r/git/blobs")); n != want {
					t.Errorf("%d blob requests, want %d", n, want)
				}
			})
		}
	}
}

func TestScanReadsOldContentsThroughTheContentsAPI(t *testing.T) {
	t.Parallel()
	small := []byte("package a\n\nfunc TestA(t *testing.T) {}\n")
	big := []byte(strings.Repeat("golden line\n", 100000)) // over 1 MB: encoding "none"
	s, client, head, tree := fakeRepo(t, "feature/x", map[string][]byte{"a_test.go": small, "testdata/big.golden": big})
	dir := checkout(t, map[string]fakeFile{"a_test.go": {ModeFile, "package a\n"}, "testdata/big.golden": {ModeFile, "short now\n"}})
	sc, err := Scan(context.Background(), client.Git, client.Repositories, "o", "r", head, Workspace{Dir: dir})
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
	if diff := cmp.Diff(id(want), id(sc.Changes)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// The tree is read whole, and every file and directory at the head.
	wantReqs := []string{
		"GET /repos/o/r/git/commits/" + head,
		"GET /repos/o/r/git/trees/" + tree + "?recursive=1",
		"GET /repos/o/r/contents/a_test.go?ref=" + head,
		"GET /repos/o/r/contents/testdata/big.golden?ref=" + head,
		"GET /repos/o/r/contents/testdata?ref=" + head,
	}
	if diff := cmp.Diff(wantReqs, s.RequestLines()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestScanFailsOnAFailedDownload(t *testing.T) {
	t.Parallel()
	big := []byte(strings.Repeat("x", 2000000)) // over 1 MB: downloaded
	s, client, head, _ := fakeRepo(t, "feature/x", map[string][]byte{"big_test.go": big})
	s.Fail(ghfake.FailRule{Pattern: "GET /raw/{owner}/{repo}/{ref}/big_test.go", Status: http.StatusNotFound})
	dir := checkout(t, map[string]fakeFile{"big_test.go": {ModeFile, "changed"}})
	_, err := Scan(context.Background(), client.Git, client.Repositories, "o", "r", head, Workspace{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "HTTP status 404") {
		t.Errorf("err = %v, want the failed download named", err)
	}
}

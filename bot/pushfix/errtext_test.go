package pushfix

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/coverage/guard"
)

// leakyRefusal is go-github's error for a 403 whose request URL carries a
// token: its Error() names the method, the URL and the raw error list.
func leakyRefusal(method string) *github.ErrorResponse {
	return ghError(method, "repos/o/r/x?access_token=ghp_leakleakleak0123456789", 403, "Resource not accessible by integration")
}

// mustExplain fails unless err reads in Describe's words, without the
// request's URL, its token or go-github's raw error list, and still wraps
// GitHub's answer for errors.As.
func mustExplain(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("err = nil, want GitHub's refusal")
	}
	got := err.Error()
	for _, leak := range []string{"://", "api.github.com", "ghp_leak", "access_token", "[]"} {
		if strings.Contains(got, leak) {
			t.Errorf("err = %q names %q", got, leak)
		}
	}
	if !strings.Contains(got, "permission denied: Resource not accessible by integration") {
		t.Errorf("err = %q, want GitHub's refusal in Describe's words", got)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 403 {
		t.Errorf("err = %v, want it to wrap GitHub's 403", err)
	}
}

func TestGitHubFailuresReachNoTextRaw(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"GetRef", "GetCommit", "CreateBlob", "CreateTree", "CreateCommit", "UpdateRef"} {
		t.Run("Push/"+method, func(t *testing.T) {
			t.Parallel()
			f, head := pushRepo()
			f.failNext[method] = leakyRefusal(method)
			_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head, Message: "m",
				Changes: []guard.Change{{Path: "a_test.go", Old: []byte("package a\n"), New: []byte("package a // changed\n"), OldExists: true, NewExists: true}}})
			mustExplain(t, err)
		})
	}
	for _, method := range []string{"GetCommit", "GetTree", "GetContents", "DownloadContents"} {
		t.Run("Scan/"+method, func(t *testing.T) {
			t.Parallel()
			f := newFakeGit()
			f.contentLimit = 1 // every content comes through DownloadContents
			files := map[string]fakeFile{"a.go": {ModeFile, "package a\n"}}
			head := f.seed("main", files)
			dir := checkout(t, files)
			write(t, dir, "a.go", "package a // changed\n", 0o644)
			f.failNext[method] = leakyRefusal(method)
			_, err := Scan(context.Background(), f, f, "o", "r", head, Workspace{Dir: dir})
			mustExplain(t, err)
		})
	}
}

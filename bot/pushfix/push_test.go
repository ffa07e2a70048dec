package pushfix

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/coverage/guard"
)

func pushRepo() (*fakeGit, string) {
	f := newFakeGit()
	head := f.seed("feature/x", map[string]fakeFile{
		"a.go":             {ModeFile, "package a\n"},
		"a_test.go":        {ModeFile, "package a\n"},
		"testdata/old.txt": {ModeFile, "old\n"},
		"tests/run.sh":     {ModeExecutable, "#!/bin/sh\n"},
	})
	return f, head
}

func TestPushMakesOneCommitOnTheHeadAndMovesTheBranch(t *testing.T) {
	t.Parallel()
	f, head := pushRepo()
	spec := PushSpec{
		Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head,
		Changes: []guard.Change{
			{Path: "tests/run.sh", Old: []byte("#!/bin/sh\n"), New: []byte("#!/bin/sh\nexit 0\n"), OldExists: true, NewExists: true},
			{Path: "a_test.go", Old: []byte("package a\n"), New: []byte("package a\n\nfunc TestA(t *testing.T) {}\n"), OldExists: true, NewExists: true},
			{Path: "testdata/old.txt", Old: []byte("old\n"), OldExists: true},
			{Path: "testdata/img.bin", New: []byte("\x00\x01\xff"), NewExists: true},
			{Path: "tests/gen.sh", New: []byte("#!/bin/sh\n"), NewExists: true},
			{Path: "unchanged_test.go", Old: []byte("same"), New: []byte("same"), OldExists: true, NewExists: true},
		},
		Modes:   map[string]string{"tests/run.sh": ModeExecutable, "tests/gen.sh": ModeExecutable, "testdata/old.txt": ModeFile},
		Message: "gcloop: coverage round 2 tests",
	}
	sha, err := Push(context.Background(), f, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.refs["heads/feature/x"]; got != sha {
		t.Errorf("branch at %s, want the new commit %s", got, sha)
	}
	c := f.commits[sha]
	if diff := cmp.Diff([]string{head}, c.parents); diff != "" {
		t.Errorf("parents (-want +got):\n%s", diff)
	}
	if c.author || c.committer || c.signature {
		t.Errorf("commit set author=%v committer=%v signature=%v; want none so that GitHub signs it", c.author, c.committer, c.signature)
	}
	if c.message != spec.Message {
		t.Errorf("message = %q, want %q", c.message, spec.Message)
	}
	want := map[string]fakeFile{
		"a.go":             {ModeFile, "package a\n"},
		"a_test.go":        {ModeFile, "package a\n\nfunc TestA(t *testing.T) {}\n"},
		"testdata/img.bin": {ModeFile, "\x00\x01\xff"},
		"tests/gen.sh":     {ModeExecutable, "#!/bin/sh\n"},
		"tests/run.sh":     {ModeExecutable, "#!/bin/sh\nexit 0\n"},
	}
	if diff := cmp.Diff(want, f.files(sha), cmp.AllowUnexported(fakeFile{})); diff != "" {
		t.Errorf("files of the new commit (-want +got):\n%s", diff)
	}
	wantCalls := []string{
		"GetRef heads/feature/x",
		"GetCommit " + head,
		"CreateBlob utf-8",  // a_test.go
		"CreateBlob base64", // testdata/img.bin
		"CreateBlob utf-8",  // tests/gen.sh
		"CreateBlob utf-8",  // tests/run.sh
		"CreateTree " + f.commits[head].tree + " 5",
		"CreateCommit " + c.tree,
		"UpdateRef refs/heads/feature/x " + sha + " force=false",
	}
	if diff := cmp.Diff(wantCalls, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestPushStopsWhenTheHeadMovedBeforeCreatingAnything(t *testing.T) {
	t.Parallel()
	f, head := pushRepo()
	moved := f.seed("other", map[string]fakeFile{"b.go": {ModeFile, "x"}})
	f.refs["heads/feature/x"] = moved
	_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "refs/heads/feature/x", HeadSHA: head, Message: "m",
		Changes: []guard.Change{{Path: "a_test.go", New: []byte("x"), NewExists: true, Old: []byte("package a\n"), OldExists: true}}})
	if !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("err = %v, want ErrHeadMoved", err)
	}
	if diff := cmp.Diff([]string{"GetRef"}, f.methods()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), moved) || !strings.Contains(err.Error(), head) {
		t.Errorf("err = %v, want both shas named", err)
	}
}

func TestPushTurnsANonFastForwardRefUpdateIntoErrHeadMoved(t *testing.T) {
	t.Parallel()
	f, head := pushRepo()
	// Someone pushes between our read of the branch and our ref update.
	f.beforeUpdate = func(f *fakeGit) {
		f.refs["heads/feature/x"] = f.writeCommit(fakeCommit{tree: f.commits[head].tree, parents: []string{head}, message: "someone else"})
	}
	_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head, Message: "m",
		Changes: []guard.Change{{Path: "a_test.go", New: []byte("x"), NewExists: true, Old: []byte("package a\n"), OldExists: true}}})
	if !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("err = %v, want ErrHeadMoved", err)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		t.Errorf("err = %v, want GitHub's 422 kept in the chain", err)
	}
	updates := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, "UpdateRef") {
			updates++
			if !strings.HasSuffix(c, "force=false") {
				t.Errorf("%s: forced", c)
			}
		}
	}
	if updates != 1 {
		t.Errorf("UpdateRef called %d times, want once (never retried with force)", updates)
	}
}

func TestPushRefusesBeforeAnyCall(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	mod := func(p string) guard.Change {
		return guard.Change{Path: p, Old: []byte("a"), New: []byte("b"), OldExists: true, NewExists: true}
	}
	tests := []struct {
		name    string
		changes []guard.Change
		modes   map[string]string
		want    error
	}{
		{"a workflow file", []guard.Change{mod("a_test.go"), mod(".github/workflows/ci.yml")}, nil, ErrRefused},
		{"anything under .github in another case", []guard.Change{mod(".GitHub/dependabot.yml")}, nil, ErrRefused},
		{"a deleted workflow", []guard.Change{{Path: ".github/workflows/ci.yml", Old: []byte("x"), OldExists: true}}, nil, ErrRefused},
		{"a symbolic link", []guard.Change{mod("testdata/link")}, map[string]string{"testdata/link": ModeSymlink}, ErrRefused},
		{"a submodule", []guard.Change{mod("vendor/x")}, map[string]string{"vendor/x": ModeSubmodule}, ErrRefused},
		{"an unknown mode", []guard.Change{mod("x_test.go")}, map[string]string{"x_test.go": "100664"}, ErrRefused},
		{"a path leaving the repository", []guard.Change{mod("../x_test.go")}, nil, ErrRefused},
		{"an unclean path", []guard.Change{mod("./x_test.go")}, nil, ErrRefused},
		{"a path inside .git", []guard.Change{mod("tests/.git/hooks/x")}, nil, ErrRefused},
		{"a path changed twice", []guard.Change{mod("x_test.go"), mod("x_test.go")}, nil, ErrRefused},
		{"no change at all", []guard.Change{{Path: "x_test.go", Old: []byte("a"), New: []byte("a"), OldExists: true, NewExists: true}}, nil, ErrNoChanges},
		{"an empty change set", nil, nil, ErrNoChanges},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGit()
			_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "b", HeadSHA: head, Message: "m", Changes: tt.changes, Modes: tt.modes})
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if len(f.calls) != 0 {
				t.Errorf("calls = %v, want none", f.calls)
			}
		})
	}
}

func TestPushRejectsABadSpec(t *testing.T) {
	t.Parallel()
	ch := []guard.Change{{Path: "x_test.go", New: []byte("a"), NewExists: true}}
	head := strings.Repeat("b", 40)
	tests := []struct {
		name string
		spec PushSpec
	}{
		{"no repository", PushSpec{Branch: "b", HeadSHA: head, Message: "m", Changes: ch}},
		{"no branch", PushSpec{Owner: "o", Repo: "r", HeadSHA: head, Message: "m", Changes: ch}},
		{"a branch with ..", PushSpec{Owner: "o", Repo: "r", Branch: "a/../b", HeadSHA: head, Message: "m", Changes: ch}},
		{"a short head sha", PushSpec{Owner: "o", Repo: "r", Branch: "b", HeadSHA: "abc", Message: "m", Changes: ch}},
		{"no message", PushSpec{Owner: "o", Repo: "r", Branch: "b", HeadSHA: head, Message: " ", Changes: ch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGit()
			if _, err := Push(context.Background(), f, tt.spec); err == nil {
				t.Error("err = nil, want an error")
			}
			if len(f.calls) != 0 {
				t.Errorf("calls = %v, want none", f.calls)
			}
		})
	}
}

func TestPushLeavesRateLimitRetriesToTheClient(t *testing.T) {
	t.Parallel()
	zero := time.Duration(0)
	tooMany := ghError("POST", "git/blobs", 429, "too many requests")
	tooMany.Response.Header.Set("Retry-After", "0")
	tests := []struct {
		name string
		err  error
	}{
		{"403 secondary limit", &github.AbuseRateLimitError{Message: "secondary rate limit", RetryAfter: &zero}},
		{"429", tooMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, head := pushRepo()
			f.failNext["CreateBlob"] = tt.err
			_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head, Message: "m",
				Changes: []guard.Change{{Path: "b_test.go", New: []byte("package a\n"), NewExists: true}}})
			if !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want the client's error unretried", err)
			}
			if diff := cmp.Diff([]string{"GetRef", "GetCommit", "CreateBlob"}, f.methods()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPushReportsAMissingBranch(t *testing.T) {
	t.Parallel()
	f, head := pushRepo()
	_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "gone", HeadSHA: head, Message: "m",
		Changes: []guard.Change{{Path: "b_test.go", New: []byte("x"), NewExists: true}}})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 || errors.Is(err, ErrHeadMoved) {
		t.Errorf("err = %v, want GitHub's 404 and not ErrHeadMoved", err)
	}
}

func TestPushDetectsATreeEqualToTheBase(t *testing.T) {
	t.Parallel()
	f, head := pushRepo()
	// Old and new differ in the caller's view, but the tree already holds
	// the new content: nothing to commit.
	_, err := Push(context.Background(), f, PushSpec{Owner: "o", Repo: "r", Branch: "feature/x", HeadSHA: head, BaseTree: f.commits[head].tree, Message: "m",
		Changes: []guard.Change{{Path: "a_test.go", Old: []byte("stale"), New: []byte("package a\n"), OldExists: true, NewExists: true}}})
	if !errors.Is(err, ErrNoChanges) {
		t.Errorf("err = %v, want ErrNoChanges", err)
	}
}

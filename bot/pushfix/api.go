// Package pushfix turns the test generator's work in a coverage round into
// one commit on the pull request's head branch (DESIGN §5.3): it finds what
// changed in the workspace against the head commit through the Git Data API
// (no git binary), lets the test-only guard judge the change set as a
// whole, and pushes accepted changes as one unsigned-by-us commit that
// GitHub signs, with a ref update that never forces.
package pushfix

import (
	"context"
	"io"

	"github.com/google/go-github/v62/github"
)

// gitAPI is the part of go-github's GitService that pushfix uses.
type gitAPI interface {
	GetRef(ctx context.Context, owner, repo, ref string) (*github.Reference, *github.Response, error)
	GetCommit(ctx context.Context, owner, repo, sha string) (*github.Commit, *github.Response, error)
	GetTree(ctx context.Context, owner, repo, sha string, recursive bool) (*github.Tree, *github.Response, error)
	CreateBlob(ctx context.Context, owner, repo string, blob *github.Blob) (*github.Blob, *github.Response, error)
	CreateTree(ctx context.Context, owner, repo, baseTree string, entries []*github.TreeEntry) (*github.Tree, *github.Response, error)
	CreateCommit(ctx context.Context, owner, repo string, commit *github.Commit, opts *github.CreateCommitOptions) (*github.Commit, *github.Response, error)
	UpdateRef(ctx context.Context, owner, repo string, ref *github.Reference, force bool) (*github.Reference, *github.Response, error)
}

// contentsAPI is the part of go-github's RepositoriesService that reads a
// file's old content at the head commit.
type contentsAPI interface {
	GetContents(ctx context.Context, owner, repo, path string, opts *github.RepositoryContentGetOptions) (*github.RepositoryContent, []*github.RepositoryContent, *github.Response, error)
	DownloadContents(ctx context.Context, owner, repo, path string, opts *github.RepositoryContentGetOptions) (io.ReadCloser, *github.Response, error)
}

// Compile-time proof that go-github's services satisfy the interfaces.
var (
	_ gitAPI      = (*github.GitService)(nil)
	_ contentsAPI = (*github.RepositoriesService)(nil)
)

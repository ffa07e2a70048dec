package pushfix

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// listTree lists every non-tree entry below tree sha, by path.
func listTree(ctx context.Context, git gitAPI, owner, repo, sha string) (map[string]treeFile, error) {
	t, _, err := git.GetTree(ctx, owner, repo, sha, true)
	if err != nil {
		return nil, fmt.Errorf("get tree %s of %s/%s: %w", sha, owner, repo, ghclient.Explained(err))
	}
	out := map[string]treeFile{}
	if !t.GetTruncated() {
		for _, e := range t.Entries {
			if err := addEntry(out, "", e, sha); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	// Truncated: walk one tree at a time, depth first.
	type todo struct{ prefix, sha string }
	stack := []todo{{"", sha}}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t, _, err := git.GetTree(ctx, owner, repo, cur.sha, false)
		if err != nil {
			return nil, fmt.Errorf("get tree %s (%q) of %s/%s: %w", cur.sha, cur.prefix, owner, repo, ghclient.Explained(err))
		}
		if t.GetTruncated() {
			return nil, fmt.Errorf("get tree %s (%q) of %s/%s: listing truncated even without recursion; expected a complete tree", cur.sha, cur.prefix, owner, repo)
		}
		for _, e := range t.Entries {
			if e.GetType() == "tree" {
				p := e.GetPath()
				if !safePath(p) || strings.Contains(p, "/") {
					return nil, fmt.Errorf("tree %s: entry %q is not a safe path", cur.sha, p)
				}
				stack = append(stack, todo{path.Join(cur.prefix, p), e.GetSHA()})
				continue
			}
			if err := addEntry(out, cur.prefix, e, cur.sha); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// addEntry records one entry of a tree listing; tree entries are skipped.
func addEntry(out map[string]treeFile, prefix string, e *github.TreeEntry, treeSHA string) error {
	if e.GetType() == "tree" {
		return nil
	}
	p := e.GetPath()
	if !safePath(p) {
		return fmt.Errorf("tree %s: entry %q is not a safe path", treeSHA, p)
	}
	if prefix != "" {
		p = prefix + "/" + p
	}
	switch m := e.GetMode(); m {
	case ModeFile, ModeExecutable, ModeSymlink, ModeSubmodule:
		out[p] = treeFile{mode: m, sha: e.GetSHA()}
	default:
		return fmt.Errorf("tree %s: entry %q has mode %q; expected 100644, 100755, 120000 or 160000", treeSHA, p, m)
	}
	return nil
}

// safePath reports whether p is a clean relative path that Git would
// accept: no empty, ".", ".." or ".git" segment, no NUL.
func safePath(p string) bool {
	if p == "" || strings.ContainsRune(p, 0) {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." || strings.EqualFold(s, ".git") {
			return false
		}
	}
	return true
}

// headTree reads the tree of commit headSHA: its id and its files.
func headTree(ctx context.Context, git gitAPI, owner, repo, headSHA string) (string, map[string]treeFile, error) {
	commit, _, err := git.GetCommit(ctx, owner, repo, headSHA)
	if err != nil {
		return "", nil, fmt.Errorf("get head commit %s of %s/%s: %w", headSHA, owner, repo, ghclient.Explained(err))
	}
	treeSHA := commit.GetTree().GetSHA()
	if treeSHA == "" {
		return "", nil, fmt.Errorf("head commit %s of %s/%s: no tree in the response", headSHA, owner, repo)
	}
	tree, err := listTree(ctx, git, owner, repo, treeSHA)
	if err != nil {
		return "", nil, err
	}
	return treeSHA, tree, nil
}

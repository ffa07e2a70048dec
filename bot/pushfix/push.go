package pushfix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/google/go-github/v62/github"
)

// Errors Push returns, wrapped with the details; test them with errors.Is.
var (
	// ErrHeadMoved: the branch no longer points at the head commit the
	// change was made on (someone pushed meanwhile). Push never forces;
	// the round must be judged again on the new head.
	ErrHeadMoved = errors.New("the pull request's head branch moved")
	// ErrRefused: the change set holds something pushfix never pushes (a
	// path under .github/, a symbolic link, a submodule, an unsafe path, a
	// file over MaxFileSize). Nothing was created.
	ErrRefused = errors.New("change refused")
	// ErrNoChanges: the change set changes nothing.
	ErrNoChanges = errors.New("nothing to push")
)

// PushSpec says what to push where.
type PushSpec struct {
	// Owner and Repo name the repository that holds the head branch.
	Owner, Repo string
	// Branch is the head ref's name, e.g. "feature/x" (a "refs/heads/"
	// prefix is dropped).
	Branch string
	// HeadSHA is the commit the changes were made on: the new commit's
	// only parent, and the sha the branch must still point at.
	HeadSHA string
	// BaseTree is the head commit's tree; "" to look it up.
	BaseTree string
	// Changes are the accepted changes (Plan's Result.Accepted).
	Changes []guard.Change
	// Modes gives each path's Git mode (Snapshot.Modes); a path without
	// one is pushed as 100644.
	Modes map[string]string
	// Message is the commit message.
	Message string
}

// Push makes spec.Changes one commit on top of spec.HeadSHA and moves the
// branch to it, through the Git Data API:
//
//  1. It refuses, before any call, a change set that holds a path under
//     .github/ (GITHUB_TOKEN can never have the workflows permission), a
//     symbolic link or submodule mode, an unsafe or duplicate path or a
//     file over MaxFileSize (ErrRefused), or that changes nothing
//     (ErrNoChanges).
//  2. It reads the branch; when it no longer points at HeadSHA it stops
//     (ErrHeadMoved) before creating anything.
//  3. It creates one blob per added or modified file, one request at a
//     time (UTF-8 text as "utf-8", anything else as "base64"), and checks
//     each returned sha against BlobID.
//  4. It creates a tree on BaseTree: the blobs, and a null sha for each
//     deleted path.
//  5. It creates the commit with parents [HeadSHA] and no author,
//     committer or signature, so GitHub signs it as the token's identity.
//  6. It updates refs/heads/<Branch> with force false; GitHub's 422 "Update
//     is not a fast forward" becomes ErrHeadMoved. It never retries with
//     force.
//
// Push retries nothing itself: each request is retried in one place, the
// client's transport (bot/ghclient), which waits out rate limits and
// replays what is safe to replay. No refusal is worth a semantic retry
// here: a ref update that is not a fast forward means the branch moved,
// and the round must be judged again on the new head.
//
// It returns the new commit's sha.
func Push(ctx context.Context, git gitAPI, p PushSpec) (string, error) {
	branch := strings.TrimPrefix(p.Branch, "refs/heads/")
	switch {
	case p.Owner == "" || p.Repo == "":
		return "", errors.New("push: no repository given")
	case branch == "" || strings.HasPrefix(branch, "/") || strings.Contains(branch, ".."):
		return "", fmt.Errorf("push: branch %q is not a valid branch name", p.Branch)
	case !isSHA(p.HeadSHA):
		return "", fmt.Errorf("push: head sha %q is not a 40-digit hex commit id", p.HeadSHA)
	case strings.TrimSpace(p.Message) == "":
		return "", errors.New("push: empty commit message")
	}
	changes, err := validate(p.Changes, p.Modes)
	if err != nil {
		return "", err
	}
	ref := "refs/heads/" + branch

	cur, _, err := git.GetRef(ctx, p.Owner, p.Repo, "heads/"+branch)
	if err != nil {
		return "", fmt.Errorf("push: get %s of %s/%s: %w", ref, p.Owner, p.Repo, ghclient.Explained(err))
	}
	if at := cur.GetObject().GetSHA(); at != p.HeadSHA {
		return "", fmt.Errorf("push: %s of %s/%s is at %s, expected %s: %w", ref, p.Owner, p.Repo, at, p.HeadSHA, ErrHeadMoved)
	}

	base := p.BaseTree
	if base == "" {
		c, _, err := git.GetCommit(ctx, p.Owner, p.Repo, p.HeadSHA)
		if err != nil {
			return "", fmt.Errorf("push: get head commit %s: %w", p.HeadSHA, ghclient.Explained(err))
		}
		if base = c.GetTree().GetSHA(); base == "" {
			return "", fmt.Errorf("push: head commit %s: no tree in the response", p.HeadSHA)
		}
	}

	entries := make([]*github.TreeEntry, 0, len(changes))
	for _, c := range changes {
		mode := modeOf(p.Modes, c.Path)
		if !c.NewExists {
			// No SHA and no Content: go-github sends "sha": null, which
			// deletes the path.
			entries = append(entries, &github.TreeEntry{Path: github.String(c.Path), Mode: github.String(mode), Type: github.String("blob")})
			continue
		}
		blob := &github.Blob{Encoding: github.String("base64"), Content: github.String(encodeBase64(c.New))}
		if utf8.Valid(c.New) && bytes.IndexByte(c.New, 0) < 0 {
			blob = &github.Blob{Encoding: github.String("utf-8"), Content: github.String(string(c.New))}
		}
		b, _, err := git.CreateBlob(ctx, p.Owner, p.Repo, blob)
		if err != nil {
			return "", fmt.Errorf("push: create blob for %s: %w", c.Path, ghclient.Explained(err))
		}
		if want := BlobID(c.New); b.GetSHA() != want {
			return "", fmt.Errorf("push: blob for %s created as %q, expected %s", c.Path, b.GetSHA(), want)
		}
		entries = append(entries, &github.TreeEntry{Path: github.String(c.Path), Mode: github.String(mode), Type: github.String("blob"), SHA: github.String(b.GetSHA())})
	}

	tree, _, err := git.CreateTree(ctx, p.Owner, p.Repo, base, entries)
	if err != nil {
		return "", fmt.Errorf("push: create tree on %s: %w", base, ghclient.Explained(err))
	}
	switch tree.GetSHA() {
	case "":
		return "", fmt.Errorf("push: create tree on %s: no sha in the response", base)
	case base:
		return "", fmt.Errorf("push: the new tree equals the head commit's tree %s: %w", base, ErrNoChanges)
	}

	commit := &github.Commit{
		Message: github.String(p.Message),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(p.HeadSHA)}},
	}
	made, _, err := git.CreateCommit(ctx, p.Owner, p.Repo, commit, nil)
	if err != nil {
		return "", fmt.Errorf("push: create commit on %s: %w", p.HeadSHA, ghclient.Explained(err))
	}
	sha := made.GetSHA()
	if sha == "" {
		return "", fmt.Errorf("push: create commit on %s: no sha in the response", p.HeadSHA)
	}

	upd := &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}}
	_, _, err = git.UpdateRef(ctx, p.Owner, p.Repo, upd, false)
	if err != nil {
		if notFastForward(err) {
			return "", fmt.Errorf("push: update %s of %s/%s from %s to %s: %w (%w)", ref, p.Owner, p.Repo, p.HeadSHA, sha, ErrHeadMoved, ghclient.Explained(err))
		}
		return "", fmt.Errorf("push: update %s of %s/%s to %s: %w", ref, p.Owner, p.Repo, sha, ghclient.Explained(err))
	}
	return sha, nil
}

// notFastForward reports GitHub's refusal of a ref update that is not a
// fast forward: 422 with the message "Update is not a fast forward".
func notFastForward(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || statusOf(err) != 422 {
		return false
	}
	return strings.Contains(strings.ToLower(er.Message), "fast forward") || strings.Contains(strings.ToLower(er.Message), "fast-forward")
}

// validate checks a change set before anything is created and returns the
// real changes in path order.
func validate(cs []guard.Change, modes map[string]string) ([]guard.Change, error) {
	seen := map[string]bool{}
	var out []guard.Change
	for _, c := range cs {
		if !c.OldExists && !c.NewExists {
			continue
		}
		if c.OldExists && c.NewExists && bytes.Equal(c.Old, c.New) {
			continue
		}
		if !safePath(c.Path) || cleanRel(c.Path) != c.Path {
			return nil, fmt.Errorf("push: path %q is not a clean repository-relative path: %w", c.Path, ErrRefused)
		}
		if seen[c.Path] {
			return nil, fmt.Errorf("push: path %q changed twice: %w", c.Path, ErrRefused)
		}
		seen[c.Path] = true
		if first, _, _ := strings.Cut(c.Path, "/"); strings.EqualFold(first, ".github") {
			return nil, fmt.Errorf("push: %s is under .github/, which GITHUB_TOKEN can never push (no workflows permission): %w", c.Path, ErrRefused)
		}
		switch m := modeOf(modes, c.Path); m {
		case ModeFile, ModeExecutable:
		case ModeSymlink:
			return nil, fmt.Errorf("push: %s is a symbolic link, never pushed: %w", c.Path, ErrRefused)
		case ModeSubmodule:
			return nil, fmt.Errorf("push: %s is a submodule, never pushed: %w", c.Path, ErrRefused)
		default:
			return nil, fmt.Errorf("push: %s has mode %q, expected 100644 or 100755: %w", c.Path, m, ErrRefused)
		}
		if len(c.New) > MaxFileSize {
			return nil, fmt.Errorf("push: %s is %d bytes, over GitHub's %d-byte limit: %w", c.Path, len(c.New), MaxFileSize, ErrRefused)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("push: no file changes: %w", ErrNoChanges)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// modeOf is the mode of path, 100644 when modes has none.
func modeOf(modes map[string]string, p string) string {
	if m, ok := modes[p]; ok && m != "" {
		return m
	}
	return ModeFile
}

// isSHA reports whether s is a full hex SHA-1 commit id.
func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// statusOf returns the HTTP status of a go-github error, 0 when it has none.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

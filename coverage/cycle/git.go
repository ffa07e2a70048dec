package cycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gcloop/gcloop/coverage/guard"
)

// snapshot is the working tree recorded as a Git tree, with the temporary
// index that holds it.
type snapshot struct {
	tree  string
	index string // path of the temporary index file
}

// snapshot records the working tree — tracked and untracked files, not
// ignored ones — as a tree object, through a temporary index so the
// user's index stays untouched. The user's index is copied first so that
// Git can reuse its file stat data instead of hashing every file.
func (r *runner) snapshot(ctx context.Context, index string) (snapshot, error) {
	out, err := guard.Git(ctx, r.top, nil, "rev-parse", "--git-path", "index")
	if err != nil {
		return snapshot{}, fmt.Errorf("cycle: %w", err)
	}
	userIndex := strings.TrimRight(string(out), "\r\n")
	if !filepath.IsAbs(userIndex) {
		userIndex = filepath.Join(r.top, userIndex)
	}
	if err := copyFile(userIndex, index); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return snapshot{}, fmt.Errorf("cycle: copying the index: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := guard.Git(ctx, r.top, env, "add", "-A", "--", "."); err != nil {
		return snapshot{}, fmt.Errorf("cycle: snapshot: %w", err)
	}
	out, err = guard.Git(ctx, r.top, env, "write-tree")
	if err != nil {
		return snapshot{}, fmt.Errorf("cycle: snapshot: %w", err)
	}
	return snapshot{tree: strings.TrimSpace(string(out)), index: index}, nil
}

// head returns the commit HEAD names, "" when there is none.
func (r *runner) head(ctx context.Context) string {
	out, err := guard.Git(ctx, r.top, nil, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// revert undoes exactly the given changes: files the fixer added are
// removed (with the directories that became empty because of it), files it
// changed or deleted get their snapshot content and mode back. It then
// checks that those paths match the snapshot again.
func (r *runner) revert(ctx context.Context, snap snapshot, changes []guard.Change) error {
	var restore []string
	for _, c := range changes {
		if c.OldExists {
			restore = append(restore, c.Path)
			continue
		}
		full := filepath.Join(r.top, filepath.FromSlash(c.Path))
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cycle: revert: %w", err)
		}
		r.removeEmptyParents(filepath.Dir(full))
	}
	if len(restore) > 0 {
		// A path the fixer turned from a file into a directory: clear it.
		for _, p := range restore {
			full := filepath.Join(r.top, filepath.FromSlash(p))
			if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
				if err := os.RemoveAll(full); err != nil {
					return fmt.Errorf("cycle: revert: %w", err)
				}
			}
		}
		var in bytes.Buffer
		for _, p := range restore {
			in.WriteString(p)
			in.WriteByte(0)
		}
		if _, err := guard.GitInput(ctx, r.top, []string{"GIT_INDEX_FILE=" + snap.index}, &in, "checkout-index", "-f", "-z", "--stdin"); err != nil {
			return fmt.Errorf("cycle: revert: %w", err)
		}
	}
	// Verify: the reverted paths must read as in the snapshot.
	check, err := r.snapshot(ctx, snap.index+".check")
	if err != nil {
		return err
	}
	left, err := guard.FromTrees(ctx, r.top, snap.tree, check.tree)
	if err != nil {
		return fmt.Errorf("cycle: revert check: %w", err)
	}
	touched := map[string]bool{}
	for _, c := range changes {
		touched[c.Path] = true
	}
	for _, c := range left {
		if touched[c.Path] {
			return fmt.Errorf("cycle: revert: %s still differs from the snapshot", c.Path)
		}
	}
	return nil
}

// removeEmptyParents removes dir and its parents up to the repository root
// while they are empty. (A directory that was empty before the fixer ran
// and received a file from it goes too: Git does not record empty
// directories.)
func (r *runner) removeEmptyParents(dir string) {
	for dir != r.top && strings.HasPrefix(dir, r.top+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// copyFile copies src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

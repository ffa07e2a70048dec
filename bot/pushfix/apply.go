package pushfix

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/gcloop/gcloop/coverage/guard"
)

// ErrConflict is wrapped by the error of a patch that does not apply
// exactly to the commit it is applied to: a hunk whose context or removed
// lines differ, a file to add that exists, a file to change that does not,
// an index line naming another blob. Nothing is ever applied fuzzily.
var ErrConflict = errors.New("the patch does not apply exactly")

// ApplyPatch applies p to the tree of commit headSHA of owner/repo, in
// memory, and returns what it changes as a Snapshot: the same change set
// Scan returns for a workspace, for the same guard (guard.Check through
// Plan) and the same Push. No git binary and no checkout are involved:
// the tree is listed through the Git Data API and the old content of each
// file the patch touches is read through the contents API, checked
// against the tree's blob id (see Scan).
//
// Each file change applies exactly or the whole patch is a conflict
// (ErrConflict): text hunks in go-gitdiff's strict mode (context and
// removed lines must match at the hunk's position; no fuzz, no offset), a
// binary change (literal or delta) onto the exact old bytes, and where the
// patch's index line names blob ids, the old blob must be the tree's and
// the result the one the generator had. A mode in the patch's header must
// be the tree's mode. A rename is a deletion and an addition, a copy an
// addition. Mode changes, symbolic links and submodules come out as
// changes the guard refuses (and Unpushable, which Push never pushes).
func ApplyPatch(ctx context.Context, git gitAPI, contents contentsAPI, owner, repo, headSHA string, p *Patch) (*Snapshot, error) {
	if p == nil {
		return nil, errors.New("apply patch: no patch given")
	}
	treeSHA, tree, err := headTree(ctx, git, owner, repo, headSHA)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{HeadSHA: headSHA, BaseTree: treeSHA, Modes: map[string]string{}}
	sc := scanner{ctx: ctx, contents: contents, owner: owner, repo: repo, headSHA: headSHA, snap: s}
	a := applier{tree: tree, dirs: treeDirs(tree), old: func(path string, e treeFile) ([]byte, error) {
		if e.mode == ModeSubmodule {
			return []byte("Subproject commit " + e.sha + "\n"), nil
		}
		return sc.fetch(path, e)
	}}
	for i, f := range p.Files {
		cs, err := a.file(f)
		if err != nil {
			return nil, fmt.Errorf("%s: file %d (%s): %w", p.Name, i+1, fileName(f), err)
		}
		for _, c := range cs {
			s.Changes = append(s.Changes, c)
			s.Modes[c.Path] = cmp.Or(c.NewMode, c.OldMode)
			if r := unpushableChange(c); r != "" {
				s.Unpushable = append(s.Unpushable, Unpushable{Path: c.Path, Reason: r})
			}
		}
	}
	sort.SliceStable(s.Changes, func(i, j int) bool { return s.Changes[i].Path < s.Changes[j].Path })
	sort.SliceStable(s.Unpushable, func(i, j int) bool { return s.Unpushable[i].Path < s.Unpushable[j].Path })
	sort.Strings(s.Notes)
	return s, nil
}

// applier applies file changes onto a tree whose old contents old reads.
type applier struct {
	tree map[string]treeFile
	dirs map[string]bool // the tree's directories
	old  func(path string, e treeFile) ([]byte, error)
}

// treeDirs lists the directories of a tree's files.
func treeDirs(tree map[string]treeFile) map[string]bool {
	dirs := map[string]bool{}
	for p := range tree {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

// placeable refuses a new file where the tree has a directory, or below
// one of the tree's files: a workspace cannot hold either, and a tree
// built with it would replace a directory or a file wholesale.
func (a applier) placeable(p string) error {
	if a.dirs[p] {
		return fmt.Errorf("%s is a directory in the head commit's tree: %w", p, ErrConflict)
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, ok := a.tree[d]; ok {
			return fmt.Errorf("%s lies under %s, a file in the head commit's tree: %w", p, d, ErrConflict)
		}
	}
	return nil
}

// file applies one file change and returns the changes it makes: one, or
// two for a rename (the old path deleted, the new one added).
func (a applier) file(f *gitdiff.File) ([]guard.Change, error) {
	var (
		src     []byte
		srcMode string
	)
	if !f.IsNew {
		e, ok := a.tree[f.OldName]
		if !ok {
			return nil, fmt.Errorf("%s is not in the head commit's tree: %w", f.OldName, ErrConflict)
		}
		if err := sameBlob(f.OldOIDPrefix, e.sha, "old", f.OldName); err != nil {
			return nil, err
		}
		if f.OldMode != 0 && gitMode(uint32(f.OldMode)) != e.mode {
			return nil, fmt.Errorf("%s has mode %s in the head commit, the patch says %s: %w", f.OldName, e.mode, gitMode(uint32(f.OldMode)), ErrConflict)
		}
		data, err := a.old(f.OldName, e)
		if err != nil {
			return nil, err
		}
		src, srcMode = data, e.mode
	}
	if f.IsDelete {
		// Deleting applies the hunks too: the file must hold exactly what
		// the patch removes.
		if _, err := apply(f, src, MaxFileSize); err != nil {
			return nil, err
		}
		return []guard.Change{{Path: f.OldName, Old: src, OldExists: true, OldMode: srcMode}}, nil
	}
	if f.IsNew || f.IsRename || f.IsCopy {
		if _, exists := a.tree[f.NewName]; exists {
			return nil, fmt.Errorf("%s is already in the head commit's tree: %w", f.NewName, ErrConflict)
		}
		if err := a.placeable(f.NewName); err != nil {
			return nil, err
		}
	}
	out, err := apply(f, src, MaxFileSize)
	if err != nil {
		return nil, err
	}
	if err := sameBlobOf(f.NewOIDPrefix, out, f.NewName); err != nil {
		return nil, err
	}
	newMode := srcMode
	if f.NewMode != 0 {
		newMode = gitMode(uint32(f.NewMode))
	}
	if newMode == "" {
		newMode = ModeFile
	}
	switch {
	case f.IsNew || f.IsCopy:
		return []guard.Change{{Path: f.NewName, New: out, NewExists: true, NewMode: newMode}}, nil
	case f.IsRename:
		return []guard.Change{
			{Path: f.OldName, Old: src, OldExists: true, OldMode: srcMode},
			{Path: f.NewName, New: out, NewExists: true, NewMode: newMode},
		}, nil
	}
	return []guard.Change{{Path: f.NewName, Old: src, OldExists: true, OldMode: srcMode, New: out, NewExists: true, NewMode: newMode}}, nil
}

// errTooLarge ends an apply whose result grows past its limit.
var errTooLarge = errors.New("the result is too large")

// cappedBuffer is a buffer that refuses to grow past max bytes: a binary
// delta of a few bytes can copy the old file over and over.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, errTooLarge
	}
	return c.Buffer.Write(p)
}

// apply applies f's hunks (or binary fragment) to src exactly; the result
// may be at most max bytes.
func apply(f *gitdiff.File, src []byte, max int) ([]byte, error) {
	dst := &cappedBuffer{max: max}
	err := gitdiff.Apply(dst, bytes.NewReader(src), f)
	if err == nil {
		return dst.Bytes(), nil
	}
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("more than %d bytes after the patch, over GitHub's file limit: %w", max, ErrPatch)
	}
	var ae *gitdiff.ApplyError
	where := ""
	if errors.As(err, &ae) {
		switch {
		case ae.Fragment > 0 && ae.Line > 0:
			where = fmt.Sprintf("hunk %d, at line %d of the old file: ", ae.Fragment, ae.Line)
		case ae.Fragment > 0:
			where = fmt.Sprintf("hunk %d: ", ae.Fragment)
		case ae.Line > 0:
			where = fmt.Sprintf("at line %d of the old file: ", ae.Line)
		}
	}
	// The patch was checked as it was read (ReadPatch): what fails now
	// is the old content, which is not what the patch was made on — a
	// hunk past its end as much as one whose lines differ.
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "gitdiff: "), "conflict: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the old file ends before the hunk does"
	}
	return nil, fmt.Errorf("%s%s: %w", where, msg, ErrConflict)
}

// sameBlob checks an index line's blob id (prefix) against the tree's.
func sameBlob(prefix, sha, side, p string) error {
	if prefix == "" || strings.Trim(prefix, "0") == "" {
		return nil
	}
	if !strings.HasPrefix(sha, strings.ToLower(prefix)) {
		return fmt.Errorf("the patch was made against blob %s of %s, the head commit has %s: %w", prefix, p, shortID(sha), ErrConflict)
	}
	return nil
}

// sameBlobOf checks that the result of applying is the blob the index
// line names.
func sameBlobOf(prefix string, content []byte, p string) error {
	if prefix == "" || strings.Trim(prefix, "0") == "" {
		return nil
	}
	if id := BlobID(content); !strings.HasPrefix(id, strings.ToLower(prefix)) {
		return fmt.Errorf("the patch applied gives blob %s for %s, its index line says %s: %w", shortID(id), p, prefix, ErrConflict)
	}
	return nil
}

// unpushableChange is why a change of the patch can never be pushed; "".
func unpushableChange(c guard.Change) string {
	for _, m := range []string{c.OldMode, c.NewMode} {
		switch m {
		case ModeSymlink:
			return "a symbolic link; symbolic links are never pushed"
		case ModeSubmodule:
			return "a submodule; submodules are never pushed"
		}
	}
	return ""
}

func shortID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

package pushfix

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/coverage/guard"
	"github.com/google/go-github/v62/github"
)

// Git modes of tree entries.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
	ModeSubmodule  = "160000"
	modeTree       = "040000"
)

// MaxFileSize is GitHub's limit on one file (100 MiB): a changed file
// larger than this cannot be pushed, and an old content larger than this
// cannot be read through the contents API.
const MaxFileSize = 100 << 20

// Workspace is a checkout of the head commit that the generator changed.
type Workspace struct {
	// Dir is the root of the checkout (GITHUB_WORKSPACE).
	Dir string
	// Ignore, when set, hides slash-separated repository-relative paths
	// from the comparison entirely: an ignored tracked file is neither
	// compared nor reported deleted, an ignored directory is not walked
	// and hides every path below it.
	// Use it for files the action itself wrote into the workspace.
	Ignore func(path string) bool
}

// hidden reports whether ws.Ignore hides p or one of its directories.
func (ws Workspace) hidden(p string) bool {
	if ws.Ignore == nil {
		return false
	}
	for d := p; d != "."; d = path.Dir(d) {
		if ws.Ignore(d) {
			return true
		}
	}
	return false
}

// Unpushable is a changed path that the guard may judge but that pushfix
// never pushes, with the reason.
type Unpushable struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Snapshot is what changed in a workspace against a head commit.
type Snapshot struct {
	// HeadSHA is the commit compared against; BaseTree its tree.
	HeadSHA, BaseTree string
	// Changes are the changed files in path order, for guard.Check.
	Changes []guard.Change
	// Modes holds the Git mode of every changed path: the tree's mode for
	// a modified or deleted file, 100755 or 100644 (the owner's executable
	// bit) for an added one, 120000 for a symbolic link on disk. Pass it to
	// PushSpec.Modes.
	Modes map[string]string
	// Unpushable lists changed paths that cannot be pushed (symbolic
	// links, submodules, Git LFS pointers, files over MaxFileSize). A
	// change set with any of them cannot become a commit.
	Unpushable []Unpushable
	// Notes say what was not compared (submodules, nested repositories).
	Notes []string
}

// Changes lists the files of workspace ws that differ from the tree of
// commit headSHA: see Scan. It is Scan without the modes and notes.
func Changes(ctx context.Context, git gitAPI, contents contentsAPI, owner, repo, headSHA string, ws Workspace) ([]guard.Change, error) {
	s, err := Scan(ctx, git, contents, owner, repo, headSHA, ws)
	if err != nil {
		return nil, err
	}
	return s.Changes, nil
}

// treeFile is one non-tree entry of the head commit's tree.
type treeFile struct {
	mode, sha string
}

// diskFile is one regular file or symbolic link in the workspace.
type diskFile struct {
	symlink bool
	exec    bool
	size    int64
	ignored bool // by .gitignore or .git/info/exclude
}

// Scan compares workspace ws with the tree of commit headSHA, as
// `git status` would, without a git binary:
//
//   - The head commit's tree is listed recursively; when GitHub truncates
//     the listing, it is walked one tree at a time instead.
//   - The workspace is walked without following symbolic links, skipping
//     every ".git" entry, submodule directories and nested repositories,
//     and the paths ws.Ignore hides. .gitignore files (and
//     .git/info/exclude) apply to untracked files only, as in Git; see
//     Gitignore for the rules supported.
//   - Each file is hashed with BlobID and compared with the tree entry:
//     same id, unchanged; different, modified; in the tree only, deleted;
//     on disk only and not ignored, added. A mode change alone (the
//     owner's executable bit against 100644/100755) is a change, with the
//     same content on both sides, so the guard can refuse it. Each change
//     carries both sides' modes. Old contents come from the contents API
//     at headSHA and are checked against the tree's blob id.
//   - Symbolic links and submodules are judged by path (a link's content
//     is its target, a submodule's "Subproject commit <sha>"), never
//     pushed: a changed one is listed in Unpushable. A submodule
//     directory is not compared (its checked-out commit needs git); it is
//     noted.
func Scan(ctx context.Context, git gitAPI, contents contentsAPI, owner, repo, headSHA string, ws Workspace) (*Snapshot, error) {
	if ws.Dir == "" {
		return nil, errors.New("scan workspace: no workspace directory given")
	}
	treeSHA, tree, err := headTree(ctx, git, owner, repo, headSHA)
	if err != nil {
		return nil, err
	}

	root, err := os.OpenRoot(ws.Dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()

	s := &Snapshot{HeadSHA: headSHA, BaseTree: treeSHA, Modes: map[string]string{}}
	w := walker{root: root, fsys: root.FS(), ws: ws, tree: tree, trackedDirs: map[string]bool{}, disk: map[string]diskFile{}, snap: s}
	for p, e := range tree {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if w.trackedDirs[d] {
				break
			}
			w.trackedDirs[d] = true
		}
		if e.mode == ModeSubmodule {
			w.submodules = append(w.submodules, p)
		}
	}
	if data, err := root.ReadFile(".git/info/exclude"); err == nil {
		w.ignore.AddExclude(data)
	}
	if err := w.walk("", false); err != nil {
		return nil, err
	}

	sc := scanner{ctx: ctx, contents: contents, owner: owner, repo: repo, headSHA: headSHA, root: root, snap: s}
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if ws.hidden(p) {
			continue
		}
		if err := sc.tracked(p, tree[p], w.disk); err != nil {
			return nil, err
		}
	}
	added := make([]string, 0)
	for p, d := range w.disk {
		if _, ok := tree[p]; !ok && !d.ignored {
			added = append(added, p)
		}
	}
	sort.Strings(added)
	for _, p := range added {
		if err := sc.added(p, w.disk[p]); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(s.Changes, func(i, j int) bool { return s.Changes[i].Path < s.Changes[j].Path })
	sort.SliceStable(s.Unpushable, func(i, j int) bool { return s.Unpushable[i].Path < s.Unpushable[j].Path })
	sort.Strings(s.Notes)
	return s, nil
}

// scanner compares files and fetches old contents.
type scanner struct {
	ctx         context.Context
	contents    contentsAPI
	owner, repo string
	headSHA     string
	root        *os.Root
	snap        *Snapshot
}

func (sc *scanner) unpushable(p, reason string) {
	sc.snap.Unpushable = append(sc.snap.Unpushable, Unpushable{Path: p, Reason: reason})
}

// tracked compares one entry of the tree with the workspace.
func (sc *scanner) tracked(p string, e treeFile, disk map[string]diskFile) error {
	d, onDisk := disk[p]
	if e.mode == ModeSubmodule {
		if !onDisk {
			sc.snap.Notes = append(sc.snap.Notes, fmt.Sprintf("%s: a submodule, not compared", p))
			return nil
		}
		c := guard.Change{Path: p, Old: []byte("Subproject commit " + e.sha + "\n"), OldExists: true, OldMode: e.mode, NewMode: diskMode(d)}
		if err := sc.readNew(&c, d); err != nil {
			return err
		}
		sc.snap.Changes = append(sc.snap.Changes, c)
		sc.snap.Modes[p] = diskMode(d)
		sc.unpushable(p, "a submodule replaced by a file; submodules are never pushed")
		return nil
	}
	if !onDisk {
		c := guard.Change{Path: p, OldExists: true, OldMode: e.mode}
		if err := sc.readOld(&c, e); err != nil {
			return err
		}
		sc.snap.Changes = append(sc.snap.Changes, c)
		sc.snap.Modes[p] = e.mode
		if e.mode == ModeSymlink {
			sc.unpushable(p, "a symbolic link deleted; symbolic links are never pushed")
		}
		return nil
	}
	id, err := sc.diskID(p, d)
	if err != nil {
		return err
	}
	if id == e.sha && diskMode(d) == e.mode {
		return nil
	}
	c := guard.Change{Path: p, OldExists: true, OldMode: e.mode, NewMode: diskMode(d)}
	if err := sc.readNew(&c, d); err != nil {
		return err
	}
	if err := sc.readOld(&c, e); err != nil {
		return err
	}
	sc.snap.Changes = append(sc.snap.Changes, c)
	switch {
	case e.mode == ModeSymlink || d.symlink:
		sc.snap.Modes[p] = diskMode(d)
		sc.unpushable(p, "a symbolic link changed; symbolic links are never pushed")
	default:
		sc.snap.Modes[p] = e.mode
	}
	return nil
}

// added records an untracked, unignored file.
func (sc *scanner) added(p string, d diskFile) error {
	c := guard.Change{Path: p, NewMode: diskMode(d)}
	if err := sc.readNew(&c, d); err != nil {
		return err
	}
	sc.snap.Changes = append(sc.snap.Changes, c)
	sc.snap.Modes[p] = diskMode(d)
	if d.symlink {
		sc.unpushable(p, "a symbolic link added; symbolic links are never pushed")
	}
	return nil
}

// diskMode is the Git mode a workspace file would get.
func diskMode(d diskFile) string {
	switch {
	case d.symlink:
		return ModeSymlink
	case d.exec:
		return ModeExecutable
	}
	return ModeFile
}

// diskID hashes a workspace file as a blob, streaming.
func (sc *scanner) diskID(p string, d diskFile) (string, error) {
	if d.symlink {
		target, err := sc.root.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("read symbolic link %q: %w", p, err)
		}
		return BlobID([]byte(target)), nil
	}
	f, err := sc.root.Open(p)
	if err != nil {
		return "", fmt.Errorf("open workspace file %q: %w", p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("stat workspace file %q: %w", p, err)
	}
	h := newBlobHash(info.Size())
	n, err := io.Copy(h, f)
	if err != nil {
		return "", fmt.Errorf("read workspace file %q: %w", p, err)
	}
	if n != info.Size() {
		return "", fmt.Errorf("read workspace file %q: %d bytes read, expected %d (changed while read)", p, n, info.Size())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readNew fills the new side of a change from the workspace.
func (sc *scanner) readNew(c *guard.Change, d diskFile) error {
	c.NewExists = true
	if d.symlink {
		target, err := sc.root.Readlink(c.Path)
		if err != nil {
			return fmt.Errorf("read symbolic link %q: %w", c.Path, err)
		}
		c.New = []byte(target)
		return nil
	}
	if d.size > MaxFileSize {
		sc.unpushable(c.Path, fmt.Sprintf("%d bytes, over GitHub's %d-byte file limit; content not read", d.size, MaxFileSize))
		return nil
	}
	f, err := sc.root.Open(c.Path)
	if err != nil {
		return fmt.Errorf("open workspace file %q: %w", c.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return fmt.Errorf("read workspace file %q: %w", c.Path, err)
	}
	if len(data) > MaxFileSize {
		sc.unpushable(c.Path, fmt.Sprintf("over GitHub's %d-byte file limit; content not read", MaxFileSize))
		data = nil
	}
	c.New = data
	return nil
}

// lfsPointer starts every Git LFS pointer file.
const lfsPointer = "version https://git-lfs.github.com/spec/v1\n"

// readOld fills the old side of a change from the contents API at the
// head commit, checked against the tree's blob id.
func (sc *scanner) readOld(c *guard.Change, e treeFile) error {
	data, err := sc.fetch(c.Path, e)
	if err != nil {
		return err
	}
	c.Old = data
	if e.mode != ModeSymlink && strings.HasPrefix(string(data), lfsPointer) && c.NewExists {
		sc.unpushable(c.Path, "a Git LFS pointer at the head commit; pushing the file would replace the pointer with the content")
	}
	return nil
}

// fetch reads a blob's content at the head commit through the contents
// API. Files up to 1 MB come base64-encoded in the JSON; larger ones come
// with encoding "none" and no content, and are downloaded from their
// download_url (DownloadContents lists the parent directory, which the API
// caps at 1,000 entries). A path holding ".." cannot be asked for directly
// (go-github refuses it), so it is downloaded through its directory too.
// A symbolic link is read as its target when the API describes the link;
// when the API follows it to a file, the old side is left empty and noted.
func (sc *scanner) fetch(p string, e treeFile) ([]byte, error) {
	opts := &github.RepositoryContentGetOptions{Ref: sc.headSHA}
	var rc *github.RepositoryContent
	if !strings.Contains(p, "..") {
		var err error
		rc, _, _, err = sc.contents.GetContents(sc.ctx, sc.owner, sc.repo, p, opts)
		if err != nil {
			return nil, fmt.Errorf("get content of %s at %s: %w", p, sc.headSHA, ghclient.Explained(err))
		}
		if rc == nil {
			return nil, fmt.Errorf("get content of %s at %s: a directory listing, expected a file", p, sc.headSHA)
		}
	}
	if e.mode == ModeSymlink {
		if rc != nil && rc.GetType() == "symlink" && rc.Target != nil && BlobID([]byte(rc.GetTarget())) == e.sha {
			return []byte(rc.GetTarget()), nil
		}
		sc.snap.Notes = append(sc.snap.Notes, fmt.Sprintf("%s: the old target of the symbolic link is not available through the contents API", p))
		return nil, nil
	}
	var data []byte
	raw := ""
	if rc != nil && rc.Content != nil {
		raw = *rc.Content
	}
	switch enc := rc.GetEncoding(); {
	case rc == nil, enc == "none", raw == "" && rc.GetSize() > 0:
		var err error
		if data, err = sc.download(p, opts); err != nil {
			return nil, err
		}
	case enc == "base64":
		var err error
		data, err = base64.StdEncoding.DecodeString(raw)
		if err != nil {
			return nil, fmt.Errorf("get content of %s at %s: base64: %w", p, sc.headSHA, err)
		}
	case enc == "":
		data = []byte(raw)
	default:
		return nil, fmt.Errorf("get content of %s at %s: encoding %q, expected base64 or none", p, sc.headSHA, enc)
	}
	if got := BlobID(data); got != e.sha {
		return nil, fmt.Errorf("content of %s at %s has blob id %s, expected %s as in the tree", p, sc.headSHA, got, e.sha)
	}
	return data, nil
}

// download fetches a file's raw content through its download_url.
func (sc *scanner) download(p string, opts *github.RepositoryContentGetOptions) ([]byte, error) {
	body, resp, err := sc.contents.DownloadContents(sc.ctx, sc.owner, sc.repo, p, opts)
	if err != nil {
		return nil, fmt.Errorf("download %s at %s: %w", p, sc.headSHA, ghclient.Explained(err))
	}
	defer body.Close()
	if resp != nil && resp.Response != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		return nil, fmt.Errorf("download %s at %s: HTTP status %d, expected 200", p, sc.headSHA, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(body, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("download %s at %s: %w", p, sc.headSHA, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("download %s at %s: over %d bytes, GitHub's file limit", p, sc.headSHA, MaxFileSize)
	}
	return data, nil
}

package pushfix

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"
)

// fakeFile is one file of a fake repository: its mode and content.
type fakeFile struct {
	mode    string
	content string
}

type fakeEntry struct {
	name, mode, sha string
}

type fakeCommit struct {
	tree    string
	parents []string
	message string
	// What the create-commit request carried that it must not.
	author, committer, signature bool
}

// fakeGit is an in-memory Git object store behind the gitAPI and
// contentsAPI interfaces, failing the way GitHub fails. Tree and blob ids
// are Git's real object ids.
type fakeGit struct {
	mu      sync.Mutex
	blobs   map[string][]byte
	trees   map[string][]fakeEntry
	commits map[string]fakeCommit
	refs    map[string]string // "heads/x" → commit sha
	calls   []string

	truncate     bool // recursive GetTree answers truncated
	contentLimit int  // GetContents answers encoding "none" above this size
	// hooks, called with the lock held
	beforeUpdate func(f *fakeGit)
	failNext     map[string]error // method → error returned once
}

func newFakeGit() *fakeGit {
	return &fakeGit{
		blobs:        map[string][]byte{},
		trees:        map[string][]fakeEntry{},
		commits:      map[string]fakeCommit{},
		refs:         map[string]string{},
		contentLimit: 1 << 20,
		failNext:     map[string]error{},
	}
}

// seed makes a commit of files on branch and returns its sha.
func (f *fakeGit) seed(branch string, files map[string]fakeFile) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	flat := map[string]fakeEntry{}
	for p, ff := range files {
		sha := gitBlobID([]byte(ff.content))
		if ff.mode != ModeSubmodule {
			f.blobs[sha] = []byte(ff.content)
		} else {
			sha = ff.content
		}
		flat[p] = fakeEntry{name: p, mode: ff.mode, sha: sha}
	}
	tree := f.writeTree(flat)
	sha := f.writeCommit(fakeCommit{tree: tree, message: "seed"})
	f.refs["heads/"+branch] = sha
	return sha
}

func gitBlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func (f *fakeGit) writeCommit(c fakeCommit) string {
	h := sha1.New()
	fmt.Fprintf(h, "tree %s\nparents %v\n\n%s", c.tree, c.parents, c.message)
	sha := hex.EncodeToString(h.Sum(nil))
	f.commits[sha] = c
	return sha
}

// writeTree stores the nested trees of a flat path → entry map and returns
// the root tree's id, computed as Git does.
func (f *fakeGit) writeTree(flat map[string]fakeEntry) string {
	direct := map[string]fakeEntry{}
	sub := map[string]map[string]fakeEntry{}
	for p, e := range flat {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if sub[dir] == nil {
				sub[dir] = map[string]fakeEntry{}
			}
			sub[dir][rest] = e
			continue
		}
		e.name = p
		direct[p] = e
	}
	for dir, m := range sub {
		direct[dir] = fakeEntry{name: dir, mode: modeTree, sha: f.writeTree(m)}
	}
	entries := make([]fakeEntry, 0, len(direct))
	for _, e := range direct {
		entries = append(entries, e)
	}
	key := func(e fakeEntry) string {
		if e.mode == modeTree {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var body bytes.Buffer
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&body, "%s %s\x00", strings.TrimPrefix(e.mode, "0"), e.name)
		body.Write(raw)
	}
	h := sha1.New()
	fmt.Fprintf(h, "tree %d\x00", body.Len())
	h.Write(body.Bytes())
	sha := hex.EncodeToString(h.Sum(nil))
	f.trees[sha] = entries
	return sha
}

// flatten lists every non-tree entry below tree sha by path.
func (f *fakeGit) flatten(sha, prefix string, out map[string]fakeEntry) {
	for _, e := range f.trees[sha] {
		p := path.Join(prefix, e.name)
		if e.mode == modeTree {
			f.flatten(e.sha, p, out)
			continue
		}
		out[p] = e
	}
}

// files returns the files of a commit, for assertions.
func (f *fakeGit) files(commit string) map[string]fakeFile {
	f.mu.Lock()
	defer f.mu.Unlock()
	flat := map[string]fakeEntry{}
	f.flatten(f.commits[commit].tree, "", flat)
	out := map[string]fakeFile{}
	for p, e := range flat {
		out[p] = fakeFile{mode: e.mode, content: string(f.blobs[e.sha])}
	}
	return out
}

func (f *fakeGit) record(format string, args ...any) error {
	call := fmt.Sprintf(format, args...)
	f.calls = append(f.calls, call)
	method, _, _ := strings.Cut(call, " ")
	if err, ok := f.failNext[method]; ok {
		delete(f.failNext, method)
		return err
	}
	return nil
}

// ghError builds the error go-github returns for an HTTP status.
func ghError(method, u string, status int, msg string) *github.ErrorResponse {
	req, _ := http.NewRequest(method, "https://api.github.com/"+u, nil)
	return &github.ErrorResponse{Response: &http.Response{StatusCode: status, Request: req, Header: http.Header{}}, Message: msg}
}

func (f *fakeGit) GetRef(_ context.Context, owner, repo, ref string) (*github.Reference, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("GetRef %s", ref); err != nil {
		return nil, nil, err
	}
	sha, ok := f.refs[ref]
	if !ok {
		return nil, nil, ghError("GET", "repos/"+owner+"/"+repo+"/git/ref/"+ref, 404, "Not Found")
	}
	return &github.Reference{Ref: github.String("refs/" + ref), Object: &github.GitObject{Type: github.String("commit"), SHA: github.String(sha)}}, nil, nil
}

func (f *fakeGit) GetCommit(_ context.Context, owner, repo, sha string) (*github.Commit, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("GetCommit %s", sha); err != nil {
		return nil, nil, err
	}
	c, ok := f.commits[sha]
	if !ok {
		return nil, nil, ghError("GET", "repos/"+owner+"/"+repo+"/git/commits/"+sha, 404, "Not Found")
	}
	return &github.Commit{SHA: github.String(sha), Tree: &github.Tree{SHA: github.String(c.tree)}}, nil, nil
}

func (f *fakeGit) GetTree(_ context.Context, owner, repo, sha string, recursive bool) (*github.Tree, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("GetTree %s %v", sha, recursive); err != nil {
		return nil, nil, err
	}
	entries, ok := f.trees[sha]
	if !ok {
		return nil, nil, ghError("GET", "repos/"+owner+"/"+repo+"/git/trees/"+sha, 404, "Not Found")
	}
	out := &github.Tree{SHA: github.String(sha), Truncated: github.Bool(false)}
	var walk func(prefix string, es []fakeEntry)
	walk = func(prefix string, es []fakeEntry) {
		for _, e := range es {
			p := path.Join(prefix, e.name)
			typ := "blob"
			switch e.mode {
			case modeTree:
				typ = "tree"
			case ModeSubmodule:
				typ = "commit"
			}
			out.Entries = append(out.Entries, &github.TreeEntry{Path: github.String(p), Mode: github.String(e.mode), Type: github.String(typ), SHA: github.String(e.sha)})
			if recursive && e.mode == modeTree {
				walk(p, f.trees[e.sha])
			}
		}
	}
	walk("", entries)
	if recursive && f.truncate {
		out.Entries = out.Entries[:len(out.Entries)/2]
		out.Truncated = github.Bool(true)
	}
	return out, nil, nil
}

func (f *fakeGit) CreateBlob(_ context.Context, owner, repo string, blob *github.Blob) (*github.Blob, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("CreateBlob %s", blob.GetEncoding()); err != nil {
		return nil, nil, err
	}
	var data []byte
	switch blob.GetEncoding() {
	case "utf-8":
		data = []byte(blob.GetContent())
	case "base64":
		var err error
		if data, err = base64.StdEncoding.DecodeString(blob.GetContent()); err != nil {
			return nil, nil, ghError("POST", "repos/"+owner+"/"+repo+"/git/blobs", 422, "Invalid base64")
		}
	default:
		return nil, nil, ghError("POST", "repos/"+owner+"/"+repo+"/git/blobs", 422, "Invalid encoding")
	}
	sha := gitBlobID(data)
	f.blobs[sha] = data
	return &github.Blob{SHA: github.String(sha), Size: github.Int(len(data))}, nil, nil
}

func (f *fakeGit) CreateTree(_ context.Context, owner, repo, baseTree string, entries []*github.TreeEntry) (*github.Tree, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("CreateTree %s %d", baseTree, len(entries)); err != nil {
		return nil, nil, err
	}
	u := "repos/" + owner + "/" + repo + "/git/trees"
	flat := map[string]fakeEntry{}
	if baseTree != "" {
		if _, ok := f.trees[baseTree]; !ok {
			return nil, nil, ghError("POST", u, 422, "base_tree is not a valid tree")
		}
		f.flatten(baseTree, "", flat)
	}
	for _, e := range entries {
		p := e.GetPath()
		if e.SHA == nil && e.Content == nil {
			if _, ok := flat[p]; !ok {
				return nil, nil, ghError("POST", u, 422, "path to delete does not exist: "+p)
			}
			delete(flat, p)
			continue
		}
		if e.GetType() != "blob" || (e.GetMode() != ModeFile && e.GetMode() != ModeExecutable) {
			return nil, nil, ghError("POST", u, 422, "bad entry "+p)
		}
		if _, ok := f.blobs[e.GetSHA()]; !ok {
			return nil, nil, ghError("POST", u, 422, "unknown blob "+e.GetSHA())
		}
		flat[p] = fakeEntry{mode: e.GetMode(), sha: e.GetSHA()}
	}
	return &github.Tree{SHA: github.String(f.writeTree(flat))}, nil, nil
}

func (f *fakeGit) CreateCommit(_ context.Context, owner, repo string, c *github.Commit, opts *github.CreateCommitOptions) (*github.Commit, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("CreateCommit %s", c.GetTree().GetSHA()); err != nil {
		return nil, nil, err
	}
	fc := fakeCommit{tree: c.GetTree().GetSHA(), message: c.GetMessage(),
		author: c.Author != nil, committer: c.Committer != nil, signature: c.Verification != nil || (opts != nil && opts.Signer != nil)}
	if _, ok := f.trees[fc.tree]; !ok {
		return nil, nil, ghError("POST", "repos/"+owner+"/"+repo+"/git/commits", 422, "Tree SHA does not exist")
	}
	for _, p := range c.Parents {
		if _, ok := f.commits[p.GetSHA()]; !ok {
			return nil, nil, ghError("POST", "repos/"+owner+"/"+repo+"/git/commits", 422, "Parent SHA does not exist")
		}
		fc.parents = append(fc.parents, p.GetSHA())
	}
	return &github.Commit{SHA: github.String(f.writeCommit(fc))}, nil, nil
}

// ancestor reports whether a is b or an ancestor of b.
func (f *fakeGit) ancestor(a, b string) bool {
	if a == b {
		return true
	}
	for _, p := range f.commits[b].parents {
		if f.ancestor(a, p) {
			return true
		}
	}
	return false
}

func (f *fakeGit) UpdateRef(_ context.Context, owner, repo string, ref *github.Reference, force bool) (*github.Reference, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("UpdateRef %s %s force=%v", ref.GetRef(), ref.GetObject().GetSHA(), force); err != nil {
		return nil, nil, err
	}
	if f.beforeUpdate != nil {
		f.beforeUpdate(f)
	}
	name := strings.TrimPrefix(ref.GetRef(), "refs/")
	u := "repos/" + owner + "/" + repo + "/git/refs/" + name
	cur, ok := f.refs[name]
	if !ok {
		return nil, nil, ghError("PATCH", u, 422, "Reference does not exist")
	}
	to := ref.GetObject().GetSHA()
	if _, ok := f.commits[to]; !ok {
		return nil, nil, ghError("PATCH", u, 422, "Object does not exist")
	}
	if !force && !f.ancestor(cur, to) {
		return nil, nil, ghError("PATCH", u, 422, "Update is not a fast forward")
	}
	f.refs[name] = to
	return &github.Reference{Ref: github.String("refs/" + name), Object: &github.GitObject{SHA: github.String(to)}}, nil, nil
}

// GetContents answers like the contents API: base64 with line breaks up to
// contentLimit bytes, encoding "none" above; a symbolic link as its target.
func (f *fakeGit) GetContents(_ context.Context, owner, repo, p string, opts *github.RepositoryContentGetOptions) (*github.RepositoryContent, []*github.RepositoryContent, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("GetContents %s %s", p, opts.Ref); err != nil {
		return nil, nil, nil, err
	}
	u := "repos/" + owner + "/" + repo + "/contents/" + p
	c, ok := f.commits[opts.Ref]
	if !ok {
		return nil, nil, nil, ghError("GET", u, 404, "No commit found for the ref")
	}
	flat := map[string]fakeEntry{}
	f.flatten(c.tree, "", flat)
	e, ok := flat[p]
	if !ok {
		return nil, nil, nil, ghError("GET", u, 404, "Not Found")
	}
	data := f.blobs[e.sha]
	rc := &github.RepositoryContent{Type: github.String("file"), Path: github.String(p), Name: github.String(path.Base(p)), SHA: github.String(e.sha), Size: github.Int(len(data))}
	switch {
	case e.mode == ModeSymlink:
		rc.Type = github.String("symlink")
		rc.Target = github.String(string(data))
	case len(data) > f.contentLimit:
		rc.Encoding = github.String("none")
		rc.Content = github.String("")
	default:
		enc := base64.StdEncoding.EncodeToString(data)
		var b strings.Builder
		for len(enc) > 60 {
			b.WriteString(enc[:60] + "\n")
			enc = enc[60:]
		}
		b.WriteString(enc)
		rc.Encoding = github.String("base64")
		rc.Content = github.String(b.String())
	}
	return rc, nil, nil, nil
}

func (f *fakeGit) DownloadContents(_ context.Context, owner, repo, p string, opts *github.RepositoryContentGetOptions) (io.ReadCloser, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("DownloadContents %s %s", p, opts.Ref); err != nil {
		return nil, nil, err
	}
	flat := map[string]fakeEntry{}
	f.flatten(f.commits[opts.Ref].tree, "", flat)
	e, ok := flat[p]
	if !ok {
		return nil, nil, fmt.Errorf("no file named %s found in %s", path.Base(p), path.Dir(p))
	}
	resp := &github.Response{Response: &http.Response{StatusCode: 200, Request: &http.Request{URL: &url.URL{Path: "/raw/" + p}}}}
	return io.NopCloser(bytes.NewReader(f.blobs[e.sha])), resp, nil
}

// methods lists the recorded calls' method names.
func (f *fakeGit) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		m, _, _ := strings.Cut(c, " ")
		out = append(out, m)
	}
	return out
}

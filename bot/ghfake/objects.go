package ghfake

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// gitObject is one object of a repository's store, kept in git's own
// encoding so its id is the real git object id.
type gitObject struct {
	typ     string // blob, tree, commit
	data    []byte // payload without the "<type> <len>\x00" header
	entries []treeEntry
	commit  *commitObject
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name string
	mode string // as the API shows it: 100644, 100755, 040000, 160000, 120000
	typ  string
	sha  string
}

// commitObject is a decoded commit.
type commitObject struct {
	tree      string
	parents   []string
	author    Signature
	committer Signature
	message   string
	// sentAuthor and sentCommitter are what the request carried (nil: none).
	sentAuthor, sentCommitter *Signature
	verified                  bool
}

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	Date  time.Time
}

// hashObject returns git's object id of a payload of type typ.
func hashObject(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// objectStore is a repository's git object database.
type objectStore map[string]*gitObject

func (st objectStore) putBlob(content []byte) string {
	sha := hashObject("blob", content)
	if _, ok := st[sha]; !ok {
		st[sha] = &gitObject{typ: "blob", data: bytes.Clone(content)}
	}
	return sha
}

// putTree stores a tree of entries and returns its id. Entries are sorted
// the way git sorts them (a tree's name compares as if it ended in "/").
func (st objectStore) putTree(entries []treeEntry) string {
	sorted := append([]treeEntry(nil), entries...)
	key := func(e treeEntry) string {
		if e.typ == "tree" {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var buf bytes.Buffer
	for _, e := range sorted {
		mode := strings.TrimPrefix(e.mode, "0")
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&buf, "%s %s\x00", mode, e.name)
		buf.Write(raw)
	}
	sha := hashObject("tree", buf.Bytes())
	if _, ok := st[sha]; !ok {
		st[sha] = &gitObject{typ: "tree", data: buf.Bytes(), entries: sorted}
	}
	return sha
}

func formatSignature(sig Signature) string {
	_, off := sig.Date.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", sig.Name, sig.Email, sig.Date.Unix(), sign, off/3600, off%3600/60)
}

func (st objectStore) putCommit(c *commitObject) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	fmt.Fprintf(&buf, "author %s\n", formatSignature(c.author))
	fmt.Fprintf(&buf, "committer %s\n", formatSignature(c.committer))
	buf.WriteString("\n")
	buf.WriteString(c.message)
	sha := hashObject("commit", buf.Bytes())
	if _, ok := st[sha]; !ok {
		st[sha] = &gitObject{typ: "commit", data: buf.Bytes(), commit: c}
	}
	return sha
}

// fileEntry is a flattened tree leaf.
type fileEntry struct {
	mode, typ, sha string
}

// flatten lists every non-tree entry under tree sha by full path.
func (st objectStore) flatten(sha string) (map[string]fileEntry, error) {
	out := map[string]fileEntry{}
	var walk func(sha, prefix string) error
	walk = func(sha, prefix string) error {
		obj, ok := st[sha]
		if !ok || obj.typ != "tree" {
			return fmt.Errorf("tree %s not found", sha)
		}
		for _, e := range obj.entries {
			if e.typ == "tree" {
				if err := walk(e.sha, prefix+e.name+"/"); err != nil {
					return err
				}
				continue
			}
			out[prefix+e.name] = fileEntry{mode: e.mode, typ: e.typ, sha: e.sha}
		}
		return nil
	}
	return out, walk(sha, "")
}

// build stores the nested trees for flattened files and returns the root.
func (st objectStore) build(files map[string]fileEntry) string {
	type dir struct {
		files map[string]fileEntry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]fileEntry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, f := range files {
		parts := strings.Split(p, "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			sub, ok := d.dirs[part]
			if !ok {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = f
	}
	var write func(d *dir) string
	write = func(d *dir) string {
		var entries []treeEntry
		for name, f := range d.files {
			entries = append(entries, treeEntry{name: name, mode: f.mode, typ: f.typ, sha: f.sha})
		}
		for name, sub := range d.dirs {
			entries = append(entries, treeEntry{name: name, mode: "040000", typ: "tree", sha: write(sub)})
		}
		return st.putTree(entries)
	}
	return write(root)
}

// isAncestor reports whether anc is commit or one of its ancestors.
func (st objectStore) isAncestor(anc, commit string) bool {
	seen := map[string]bool{}
	stack := []string{commit}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == anc {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if obj, ok := st[c]; ok && obj.commit != nil {
			stack = append(stack, obj.commit.parents...)
		}
	}
	return false
}

package ghfake

// Git data: refs, blobs, trees and commits.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

func (c *call) getRef() {
	ref := strings.TrimPrefix(c.params["ref"], "refs/")
	sha, ok := c.repo.refs[ref]
	if !ok {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.refJSON(c.repo, ref, sha))
}

func (c *call) updateRef() {
	ref := strings.TrimPrefix(c.params["ref"], "refs/")
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !c.decode(&in) {
		return
	}
	old, ok := c.repo.refs[ref]
	if !ok {
		c.invalid("Reference does not exist")
		return
	}
	o, ok := c.repo.objects[in.SHA]
	if !ok || o.commit == nil {
		c.invalid("Object does not exist")
		return
	}
	if !in.Force && !c.repo.objects.isAncestor(old, in.SHA) {
		c.invalid("Update is not a fast forward")
		return
	}
	c.repo.refs[ref] = in.SHA
	c.json(http.StatusOK, c.s.refJSON(c.repo, ref, in.SHA))
}

func (c *call) createBlob() {
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Content == nil {
		c.invalid("Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	data := []byte(*in.Content)
	switch in.Encoding {
	case "", "utf-8":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(*in.Content, "\n", ""))
		if err != nil {
			c.invalid("Invalid request.\n\ncontent is not valid Base64.")
			return
		}
		data = b
	default:
		c.invalid("encoding must be one of utf-8 or base64")
		return
	}
	sha := c.repo.objects.putBlob(data)
	u := c.s.repoAPI(c.repo) + "/git/blobs/" + sha
	c.created(u, obj{"url": u, "sha": sha})
}

func (c *call) treeJSON(sha string, recursive bool) obj {
	var entries []any
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		for _, e := range c.repo.objects[sha].entries {
			item := obj{"path": prefix + e.name, "mode": e.mode, "type": e.typ, "sha": e.sha}
			switch e.typ {
			case "blob":
				item["size"] = len(c.repo.objects[e.sha].data)
				item["url"] = c.s.repoAPI(c.repo) + "/git/blobs/" + e.sha
			case "tree":
				item["url"] = c.s.repoAPI(c.repo) + "/git/trees/" + e.sha
			}
			entries = append(entries, item)
			if recursive && e.typ == "tree" {
				walk(e.sha, prefix+e.name+"/")
			}
		}
	}
	walk(sha, "")
	if entries == nil {
		entries = []any{}
	}
	return obj{"sha": sha, "url": c.s.repoAPI(c.repo) + "/git/trees/" + sha, "tree": entries, "truncated": false}
}

func (c *call) createTree() {
	var in struct {
		BaseTree string                       `json:"base_tree"`
		Tree     []map[string]json.RawMessage `json:"tree"`
	}
	if !c.decode(&in) {
		return
	}
	files := map[string]fileEntry{}
	if in.BaseTree != "" {
		base := in.BaseTree
		if o, ok := c.repo.objects[base]; ok && o.commit != nil {
			base = o.commit.tree
		}
		flat, err := c.repo.objects.flatten(base)
		if err != nil {
			c.invalid("Invalid request.\n\nbase_tree " + in.BaseTree + " is not a valid tree")
			return
		}
		files = flat
	}
	for i, e := range in.Tree {
		var path, mode, typ string
		_ = json.Unmarshal(e["path"], &path)
		_ = json.Unmarshal(e["mode"], &mode)
		_ = json.Unmarshal(e["type"], &typ)
		shaRaw, hasSHA := e["sha"]
		contentRaw, hasContent := e["content"]
		if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "//") {
			c.invalid(fmt.Sprintf("tree.path %q is not a valid path", path), obj{"resource": "Tree", "field": "path", "code": "invalid", "index": i})
			return
		}
		if hasSHA && hasContent && string(shaRaw) != "null" {
			c.invalid("Invalid request.\n\nOnly one of \"content\" or \"sha\" may be supplied.", obj{"resource": "Tree", "field": "sha", "code": "invalid", "index": i})
			return
		}
		if hasSHA && string(shaRaw) == "null" {
			deleted := false
			for p := range files {
				if p == path || strings.HasPrefix(p, path+"/") {
					delete(files, p)
					deleted = true
				}
			}
			if !deleted {
				c.invalid("Invalid request.\n\ntree.path " + path + " does not exist in base_tree")
				return
			}
			continue
		}
		if mode == "" {
			mode = "100644"
		}
		if typ == "" {
			typ = "blob"
		}
		if hasContent {
			var content string
			if err := json.Unmarshal(contentRaw, &content); err != nil {
				c.invalid("Invalid request.\n\ntree.content is not a string")
				return
			}
			files[path] = fileEntry{mode: mode, typ: "blob", sha: c.repo.objects.putBlob([]byte(content))}
			continue
		}
		var sha string
		if err := json.Unmarshal(shaRaw, &sha); err != nil || sha == "" {
			c.invalid("Invalid request.\n\ntree entry needs \"sha\" or \"content\"")
			return
		}
		o, ok := c.repo.objects[sha]
		if !ok || o.typ != typ {
			c.invalid(fmt.Sprintf("Invalid request.\n\ntree.sha %s is not a valid %s", sha, typ))
			return
		}
		if typ == "tree" {
			sub, _ := c.repo.objects.flatten(sha)
			for p := range files {
				if strings.HasPrefix(p, path+"/") {
					delete(files, p)
				}
			}
			for p, f := range sub {
				files[path+"/"+p] = f
			}
			continue
		}
		files[path] = fileEntry{mode: mode, typ: typ, sha: sha}
	}
	sha := c.repo.objects.build(files)
	out := c.treeJSON(sha, false)
	c.created(out["url"].(string), out)
}

// resolveCommitish maps a sha, branch, or ref to a commit sha.
func (c *call) resolveCommitish(ref string) (string, bool) {
	if o, ok := c.repo.objects[ref]; ok && o.commit != nil {
		return ref, true
	}
	ref = strings.TrimPrefix(ref, "refs/")
	for _, k := range []string{ref, "heads/" + ref, "tags/" + ref} {
		if sha, ok := c.repo.refs[k]; ok {
			return sha, true
		}
	}
	return "", false
}

func (c *call) getTree() {
	id := c.params["tree_sha"]
	sha := ""
	if o, ok := c.repo.objects[id]; ok && o.typ == "tree" {
		sha = id
	} else if commit, ok := c.resolveCommitish(id); ok {
		sha = c.repo.objects[commit].commit.tree
	} else {
		c.notFound()
		return
	}
	_, recursive := c.req.URL.Query()["recursive"]
	c.json(http.StatusOK, c.treeJSON(sha, recursive))
}

type sigInput struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (c *call) createCommit() {
	var in struct {
		Message   *string   `json:"message"`
		Tree      string    `json:"tree"`
		Parents   []string  `json:"parents"`
		Author    *sigInput `json:"author"`
		Committer *sigInput `json:"committer"`
		Signature *string   `json:"signature"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Message == nil {
		c.invalid("Invalid request.\n\n\"message\" wasn't supplied.")
		return
	}
	if o, ok := c.repo.objects[in.Tree]; !ok || o.typ != "tree" {
		c.invalid("Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if o, ok := c.repo.objects[p]; !ok || o.commit == nil {
			c.invalid("Parent SHA does not exist or is not a commit object")
			return
		}
	}
	now := c.s.now()
	u := c.s.user(c.login)
	def := Signature{Name: u.login, Email: fmt.Sprintf("%d+%s@users.noreply.github.com", u.id, u.login), Date: now}
	toSig := func(in *sigInput) (*Signature, bool) {
		if in == nil {
			return nil, true
		}
		sig := Signature{Name: in.Name, Email: in.Email, Date: now}
		if in.Date != "" {
			t, err := time.Parse(time.RFC3339, in.Date)
			if err != nil {
				return nil, false
			}
			sig.Date = t
		}
		return &sig, true
	}
	sentA, okA := toSig(in.Author)
	sentC, okC := toSig(in.Committer)
	if !okA || !okC {
		c.invalid("Invalid request.\n\ndate is not a valid ISO 8601 time")
		return
	}
	author, committer := def, def
	if sentA != nil {
		author, committer = *sentA, *sentA
	}
	if sentC != nil {
		committer = *sentC
	}
	co := &commitObject{tree: in.Tree, parents: append([]string{}, in.Parents...), author: author, committer: committer,
		message: *in.Message, sentAuthor: sentA, sentCommitter: sentC,
		verified: sentA == nil && sentC == nil && in.Signature == nil && u.bot}
	sha := c.repo.objects.putCommit(co)
	out := c.s.commitJSON(c.repo, sha, c.repo.objects[sha].commit)
	c.created(out["url"].(string), out)
}

func (c *call) getCommit() {
	sha := c.params["commit_sha"]
	o, ok := c.repo.objects[sha]
	if !ok || o.commit == nil {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.commitJSON(c.repo, sha, o.commit))
}

package ghfake

// Repository contents.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// fileAt finds path at ref in the git store.
func (c *call) fileAt(ref, path string) ([]byte, bool) {
	commit, ok := c.resolveCommitish(ref)
	if !ok {
		return nil, false
	}
	flat, err := c.repo.objects.flatten(c.repo.objects[commit].commit.tree)
	if err != nil {
		return nil, false
	}
	f, ok := flat[path]
	if !ok || f.typ != "blob" {
		return nil, false
	}
	return c.repo.objects[f.sha].data, true
}

// dirAt lists the direct children of dir at ref in the git store.
func (c *call) dirAt(ref, dir string) ([]treeEntry, bool) {
	commit, ok := c.resolveCommitish(ref)
	if !ok {
		return nil, false
	}
	sha := c.repo.objects[commit].commit.tree
	if dir != "" {
		for _, part := range strings.Split(dir, "/") {
			next := ""
			for _, e := range c.repo.objects[sha].entries {
				if e.name == part && e.typ == "tree" {
					next = e.sha
				}
			}
			if next == "" {
				return nil, false
			}
			sha = next
		}
	}
	return c.repo.objects[sha].entries, true
}

func (c *call) getContent() {
	path := strings.Trim(c.params["path"], "/")
	ref := c.req.URL.Query().Get("ref")
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	data, ok := c.repo.files[ref][path]
	if !ok {
		data, ok = c.fileAt(ref, path)
	}
	contentURL := func(p string) string {
		return c.s.repoAPI(c.repo) + "/contents/" + pathEscape(p) + "?ref=" + url.QueryEscape(ref)
	}
	item := func(p, typ, sha string, size int) obj {
		html := repoHTML(c.repo.fullName()) + "/blob/" + ref + "/" + p
		git := c.s.repoAPI(c.repo) + "/git/blobs/" + sha
		var download any = c.s.rawURL(c.repo, ref, p)
		if typ == "dir" {
			html = repoHTML(c.repo.fullName()) + "/tree/" + ref + "/" + p
			git = c.s.repoAPI(c.repo) + "/git/trees/" + sha
			download = nil
		}
		name := p[strings.LastIndex(p, "/")+1:]
		return obj{"type": typ, "size": size, "name": name, "path": p, "sha": sha, "url": contentURL(p),
			"git_url": git, "html_url": html, "download_url": download,
			"_links": obj{"self": contentURL(p), "git": git, "html": html}}
	}
	if ok {
		if isRawAccept(c.req.Header.Get("Accept")) {
			c.conditional("application/vnd.github.raw; charset=utf-8", data)
			return
		}
		o := item(path, "file", hashObject("blob", data), len(data))
		o["encoding"] = "base64"
		o["content"] = wrap60(base64.StdEncoding.EncodeToString(data))
		if len(data) > maxInlineContent {
			// GitHub leaves a file over 1 MB out of the JSON: the raw media
			// type or the download_url has it.
			o["encoding"], o["content"] = "none", ""
		}
		c.conditionalJSON(o)
		return
	}
	entries, ok := c.dirAt(ref, path)
	if !ok {
		c.notFound()
		return
	}
	list := []any{}
	for _, e := range entries {
		p := e.name
		if path != "" {
			p = path + "/" + e.name
		}
		typ, size := "file", 0
		switch e.typ {
		case "tree":
			typ = "dir"
		case "commit":
			typ = "submodule"
		default:
			size = len(c.repo.objects[e.sha].data)
		}
		list = append(list, item(p, typ, e.sha, size))
	}
	c.conditionalJSON(list)
}

// conditionalJSON answers v as JSON through conditional.
func (c *call) conditionalJSON(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		c.json(http.StatusOK, v) // writeJSON answers 500 for what it cannot encode
		return
	}
	c.conditional("application/json; charset=utf-8", body)
}

// conditional answers body with an ETag, or 304 Not Modified with no body
// when the request's If-None-Match names that ETag (or is "*"), as GitHub
// does. GitHub's ETag depends on the representation, so the Accept header
// is part of it; a 304 counts against no rate limit, so the request is
// taken off the caller's quota again.
func (c *call) conditional(contentType string, body []byte) {
	sum := sha256.Sum256(append([]byte(c.req.Header.Get("Accept")+"\x00"), body...))
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	c.w.Header().Set("ETag", etag)
	if etagMatch(c.req.Header.Get("If-None-Match"), etag) {
		if c.s.used[c.login] > 0 {
			c.s.used[c.login]--
			used := c.s.used[c.login]
			c.w.Header().Set("X-RateLimit-Used", strconv.Itoa(used))
			c.w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(max(rateLimit-used, 0)))
		}
		c.w.WriteHeader(http.StatusNotModified)
		return
	}
	c.w.Header().Set("Content-Type", contentType)
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(body)
}

// etagMatch is If-None-Match's weak comparison (RFC 9110 13.1.2): any
// listed tag equal to etag once W/ is dropped from both, or "*".
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	opaque := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == opaque {
			return true
		}
	}
	return false
}

// wrap60 breaks base64 text into lines of 60 characters as GitHub does.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteString("\n")
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteString("\n")
	return b.String()
}

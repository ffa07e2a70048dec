package ghfake

// Shared call plumbing: the call being handled, its answers (JSON,
// created, not found, validation failed), body decoding, path parameters
// and pagination.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxBody is GitHub's limit on comment and issue bodies, in characters.
const maxBody = 65536

// call is one request being handled; handlers run with s.mu held.
type call struct {
	s      *Server
	w      http.ResponseWriter
	req    *http.Request
	body   []byte
	params map[string]string
	login  string
	op     string
	repo   *repoState
}

func urlPathEscape(s string) string { return url.PathEscape(s) }

func (c *call) json(status int, v any) { writeJSON(c.w, status, v) }

func (c *call) created(location string, v any) {
	c.w.Header().Set("Location", location)
	writeJSON(c.w, http.StatusCreated, v)
}

func (c *call) notFound() { writeError(c.w, http.StatusNotFound, "Not Found", docsURL) }

// invalid writes a 422 validation-error. errs are GitHub's error objects.
func (c *call) invalid(msg string, errs ...obj) {
	body := obj{"message": msg, "documentation_url": docsURL}
	if len(errs) > 0 {
		list := make([]any, len(errs))
		for i, e := range errs {
			list[i] = e
		}
		body["errors"] = list
	}
	writeJSON(c.w, http.StatusUnprocessableEntity, body)
}

// decode unmarshals the request body; on failure it answers 400 like
// GitHub ("Problems parsing JSON") and returns false.
func (c *call) decode(v any) bool {
	if len(c.body) == 0 {
		c.body = []byte("{}")
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		writeJSON(c.w, http.StatusBadRequest, obj{"message": "Problems parsing JSON", "documentation_url": docsURL})
		return false
	}
	return true
}

func (c *call) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.params[name], 10, 64)
	if err != nil {
		c.notFound()
		return 0, false
	}
	return n, true
}

// byID finds the item of m named by path parameter param, answering 404
// when the parameter is no number or names none.
func byID[T any](c *call, param string, m map[int64]T) (T, bool) {
	var zero T
	id, ok := c.intParam(param)
	if !ok {
		return zero, false
	}
	item, found := m[id]
	if !found {
		c.notFound()
		return zero, false
	}
	return item, true
}

// paginate slices items to the requested page and sets the Link header.
func (c *call) paginate(items []any) []any {
	q := c.req.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	if c.s.perPage > 0 {
		per = c.s.perPage
	}
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := int(math.Max(1, math.Ceil(float64(len(items))/float64(per))))
	link := func(p int, rel string) string {
		q.Set("page", itoa(p))
		q.Set("per_page", itoa(per))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", c.s.apiBase(), c.req.URL.EscapedPath(), q.Encode(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := (page - 1) * per
	if lo >= len(items) {
		return []any{}
	}
	hi := lo + per
	if hi > len(items) {
		hi = len(items)
	}
	return items[lo:hi]
}

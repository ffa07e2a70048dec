package ghclient

import (
	"bytes"
	"container/list"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// ContentCache keeps GitHub's answers to the GET requests a caller marks
// with Revalidate — the repository configuration's — and revalidates them
// with If-None-Match: when GitHub answers 304 Not Modified, which costs no
// rate-limit quota, the kept answer is served as the 200 it was, and so is
// what the caller derived from it (Keep). Answers are kept per
// installation, Accept header and URL (repository, path and ref), the
// least recently used dropped first beyond the entries or bytes allowed.
// Safe for concurrent use; one cache serves every client.
type ContentCache struct {
	maxEntries int

	mu    sync.Mutex
	ll    *list.List // of *cachedAnswer, most recently used first
	byKey map[cacheKey]*list.Element
	bytes int

	notModified, fetched atomic.Int64 // answers to marked requests, for Stats
}

// Limits of a ContentCache's memory.
const (
	// DefaultContentCacheEntries is the answers kept when
	// NewContentCache is given 0.
	DefaultContentCacheEntries = 2048
	// maxCachedBody is the largest body kept; a larger answer is passed
	// on and not kept (a configuration file is a few KiB).
	maxCachedBody = 64 << 10
	// maxCachedBytes caps the bodies kept in all.
	maxCachedBytes = 32 << 20
)

type cacheKey struct {
	installation int64
	accept       string
	url          string
}

type cachedAnswer struct {
	key    cacheKey
	etag   string
	header http.Header // of the 200
	body   []byte
	kept   any // what the caller derived from body; guarded by the cache's mu
}

// NewContentCache returns a cache of at most entries answers;
// 0 is DefaultContentCacheEntries.
func NewContentCache(entries int) *ContentCache {
	if entries <= 0 {
		entries = DefaultContentCacheEntries
	}
	return &ContentCache{maxEntries: entries, ll: list.New(), byKey: map[cacheKey]*list.Element{}}
}

// Stats counts the marked requests answered so far: notModified served
// from the cache after a 304, fetched answered in full (a first read, a
// change, or an answer that is not kept).
func (c *ContentCache) Stats() (notModified, fetched int64) {
	return c.notModified.Load(), c.fetched.Load()
}

// Len is the number of answers kept.
func (c *ContentCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func (c *ContentCache) get(k cacheKey) *cachedAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil
	}
	c.ll.MoveToFront(e)
	return e.Value.(*cachedAnswer)
}

func (c *ContentCache) put(a *cachedAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[a.key]; ok {
		c.remove(e)
	}
	c.byKey[a.key] = c.ll.PushFront(a)
	c.bytes += len(a.body)
	for c.ll.Len() > c.maxEntries || c.bytes > maxCachedBytes {
		c.remove(c.ll.Back())
	}
}

func (c *ContentCache) drop(k cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		c.remove(e)
	}
}

func (c *ContentCache) remove(e *list.Element) {
	a := e.Value.(*cachedAnswer)
	c.ll.Remove(e)
	delete(c.byKey, a.key)
	c.bytes -= len(a.body)
}

// Revalidation marks a request for the ContentCache (Revalidate) and tells
// its caller how it went. The zero value is ready; use one per request.
type Revalidation struct {
	cache       *ContentCache
	answer      *cachedAnswer
	notModified bool
}

type revalidationKey struct{}

// Revalidate returns ctx marking a GET sent with it for the client's
// ContentCache, with r to report the outcome. Without a cache the request
// goes as it would have.
func Revalidate(ctx context.Context, r *Revalidation) context.Context {
	return context.WithValue(ctx, revalidationKey{}, r)
}

// NotModified reports whether GitHub answered 304 and the kept answer was
// served.
func (r *Revalidation) NotModified() bool { return r.notModified }

// Kept returns what the caller kept (Keep) with the answer served, when
// GitHub said it has not changed since; nil otherwise. It is shared by
// every caller: treat it as read-only.
func (r *Revalidation) Kept() any {
	if !r.notModified || r.answer == nil {
		return nil
	}
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	return r.answer.kept
}

// Keep keeps v — what the caller made of the answer, such as the parsed
// file — with the answer, for the callers that revalidate it later. It
// does nothing when the answer was not kept.
func (r *Revalidation) Keep(v any) {
	if r.answer == nil {
		return
	}
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	r.answer.kept = v
}

// revalidate sends a GET marked with r: with If-None-Match when an answer
// is kept, which a 304 then stands for; a new 200 with an ETag is kept,
// a 404 forgets what was.
func (t *Transport) revalidate(req *http.Request, r *Revalidation) (*http.Response, error) {
	c := t.contents
	r.cache = c
	key := cacheKey{installation: t.installation, accept: req.Header.Get("Accept"), url: req.URL.String()}
	old := c.get(key)
	if old != nil {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", old.etag)
	}
	resp, err := t.roundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && old != nil {
		drain(resp)
		r.answer, r.notModified = old, true
		c.notModified.Add(1)
		return served(resp, old), nil
	}
	c.fetched.Add(1)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		c.drop(key)
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
		rest := resp.Body
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		if err != nil || len(body) > maxCachedBody {
			return resp, nil // passed on whole, not kept
		}
		a := &cachedAnswer{key: key, etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: body}
		c.put(a)
		r.answer = a
	case resp.StatusCode == http.StatusOK:
		c.drop(key) // changed, and not to be revalidated
	}
	return resp, nil
}

// served is the kept answer a as the 200 it was, with the headers of the
// 304 that stands for it (the rate limit's are fresh).
func served(notModified *http.Response, a *cachedAnswer) *http.Response {
	h := a.header.Clone()
	for k, v := range notModified.Header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: notModified.Proto, ProtoMajor: notModified.ProtoMajor, ProtoMinor: notModified.ProtoMinor,
		Header: h, Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)),
		Request: notModified.Request,
	}
}

package access

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
)

type githubClient = github.Client

// Limits of the repository cache.
const (
	maxCached  = 10000            // entries; the cache is emptied beyond
	failureTTL = 30 * time.Second // a GitHub failure is asked again after
)

// repoCache remembers, per user and repository, whether the user can read
// it, for RepoTTL.
type repoCache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	ok    bool
	until time.Time
}

func newRepoCache() *repoCache { return &repoCache{m: map[string]cached{}} }

func (c *repoCache) get(k string, now time.Time) (ok, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.m[k]
	if !found || !now.Before(e.until) {
		return false, false
	}
	return e.ok, true
}

func (c *repoCache) put(k string, ok bool, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			c.m = map[string]cached{}
		}
	}
	c.m[k] = cached{ok: ok, until: until}
}

// canRead asks GitHub, as the viewer, for the repository (GET
// /repos/{owner}/{repo}): readable when GitHub shows it.
func (g *Guard) canRead(ctx context.Context, v *viewer, repo string) bool {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return false
	}
	now := g.now()
	k := v.login + "\x00" + strings.ToLower(repo)
	if ok, found := g.repos.get(k, now); found {
		return ok
	}
	gh, err := g.github(v.token)
	if err != nil {
		return false
	}
	_, _, err = gh.Repositories.Get(ctx, owner, name)
	var er *github.ErrorResponse
	switch {
	case err == nil:
		g.repos.put(k, true, now.Add(RepoTTL), now)
		return true
	case errors.As(err, &er) && er.Response != nil &&
		(er.Response.StatusCode == http.StatusNotFound || er.Response.StatusCode == http.StatusForbidden ||
			er.Response.StatusCode == http.StatusUnauthorized):
		g.repos.put(k, false, now.Add(RepoTTL), now)
		return false
	default:
		if ctx.Err() == nil {
			g.log.Warn("access: asking GitHub whether a user can read a repository failed", "login", v.login, "repo", repo, "err", err)
			g.repos.put(k, false, now.Add(failureTTL), now)
		}
		return false
	}
}

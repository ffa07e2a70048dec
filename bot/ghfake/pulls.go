package ghfake

// Pull requests, and the pull requests of a commit.

import (
	"net/http"
	"sort"
	"strings"
)

func (c *call) sortedPulls() []*pullState {
	var list []*pullState
	for _, p := range c.repo.pulls {
		list = append(list, p)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].spec.Number > list[j].spec.Number })
	return list
}

func (c *call) listPulls() {
	q := c.req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head, base := q.Get("head"), q.Get("base")
	var items []any
	for _, p := range c.sortedPulls() {
		is := c.repo.issues[p.spec.Number]
		if state != "all" && is.state != state {
			continue
		}
		if head != "" {
			owner, ref, ok := strings.Cut(head, ":")
			headOwner, _, _ := strings.Cut(p.spec.HeadRepo, "/")
			if !ok || !strings.EqualFold(owner, headOwner) || ref != p.spec.HeadRef {
				continue
			}
		}
		if base != "" && base != p.spec.BaseRef {
			continue
		}
		items = append(items, c.s.pullJSON(c.repo, p, false))
	}
	c.json(http.StatusOK, c.paginate(items))
}

func (c *call) getPull() {
	n, ok := c.intParam("pull_number")
	if !ok {
		return
	}
	p, found := c.repo.pulls[int(n)]
	if !found {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.pullJSON(c.repo, p, true))
}

func (c *call) commitPulls() {
	sha := c.params["commit_sha"]
	var items []any
	for _, p := range c.sortedPulls() {
		if p.spec.HeadSHA == sha || (p.spec.HeadSHA != "" && c.repo.objects.isAncestor(sha, p.spec.HeadSHA)) || c.s.associatedWith(c.repo, sha, p.spec.Number) {
			items = append(items, c.s.pullJSON(c.repo, p, false))
		}
	}
	c.json(http.StatusOK, c.paginate(items))
}

// MovePullHead moves the head of pull request number to sha, as a push to
// its branch does; the branch's ref moves with it.
func (s *Server) MovePullHead(owner, repo string, number int, sha string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	p, ok := r.pulls[number]
	if !ok {
		s.t.Fatalf("ghfake: %s/%s has no pull request #%d", owner, repo, number)
	}
	p.spec.HeadSHA = sha
	if p.spec.HeadRef != "" {
		r.refs["heads/"+p.spec.HeadRef] = sha
	}
}

package ghfake

// The repository and its branches: GET /repos/{owner}/{repo} (the default
// branch) and GET /repos/{owner}/{repo}/branches/{branch} (whether branch
// protection guards it).

import (
	"net/http"
	"strings"
)

// Protect marks branch of a repository as protected (or not): GET
// …/branches/{branch} then answers "protected": true with an enabled
// protection, as GitHub does for a branch under a protection rule.
func (s *Server) Protect(owner, repo, branch string, protected bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if r.protected == nil {
		r.protected = map[string]bool{}
	}
	r.protected[branch] = protected
}

// getRepo answers repos/get: the full repository, with its default
// branch.
func (c *call) getRepo() {
	c.json(http.StatusOK, c.s.fullRepoJSON(c.repo))
}

// getBranch answers repos/get-branch: the branch's head commit and its
// protection. An unknown branch is 404, as on GitHub.
func (c *call) getBranch() {
	name := c.params["branch"]
	sha, ok := c.repo.refs["heads/"+name]
	if !ok {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.branchJSON(c.repo, name, sha))
}

// fullRepoJSON renders a full-repository: a repository object and the
// counts only GET /repos/{owner}/{repo} carries. Callers hold s.mu.
func (s *Server) fullRepoJSON(r *repoState) obj {
	o := s.repoJSON(r.fullName(), r.id, false)
	o["has_discussions"] = false
	o["network_count"] = 0
	o["subscribers_count"] = 0
	return o
}

// branchJSON renders a branch-with-protection. Callers hold s.mu.
func (s *Server) branchJSON(r *repoState, name, sha string) obj {
	api := s.repoAPI(r) + "/branches/" + urlPathEscape(name)
	protected := r.protected[name]
	commit := obj{
		"sha": sha, "node_id": nodeID("Commit", int64(len(sha))) + sha[:min(7, len(sha))], "url": s.repoAPI(r) + "/commits/" + sha,
		"html_url": repoHTML(r.fullName()) + "/commit/" + sha, "comments_url": s.repoAPI(r) + "/commits/" + sha + "/comments",
		"author": nil, "committer": nil, "parents": []any{},
	}
	inner := obj{"author": nil, "committer": nil, "comment_count": 0, "message": "", "url": s.repoAPI(r) + "/git/commits/" + sha,
		"tree": obj{"sha": "", "url": ""}}
	if c, ok := r.objects[sha]; ok && c.commit != nil {
		sig := func(g Signature) obj { return obj{"name": g.Name, "email": g.Email, "date": ts(g.Date)} }
		inner["author"], inner["committer"], inner["message"] = sig(c.commit.author), sig(c.commit.committer), c.commit.message
		inner["tree"] = obj{"sha": c.commit.tree, "url": s.repoAPI(r) + "/git/trees/" + c.commit.tree}
		parents := []any{}
		for _, p := range c.commit.parents {
			parents = append(parents, obj{"sha": p, "url": s.repoAPI(r) + "/commits/" + p, "html_url": repoHTML(r.fullName()) + "/commit/" + p})
		}
		commit["parents"] = parents
	}
	commit["commit"] = inner
	protection := obj{"enabled": protected, "required_status_checks": obj{"enforcement_level": "off", "contexts": []any{}, "checks": []any{}}}
	if protected {
		protection["required_status_checks"] = obj{"enforcement_level": "non_admins", "contexts": []any{}, "checks": []any{}}
	}
	return obj{
		"name": name, "commit": commit, "_links": obj{"html": repoHTML(r.fullName()) + "/tree/" + strings.ReplaceAll(name, "%", "%25"), "self": api},
		"protected": protected, "protection": protection, "protection_url": api + "/protection",
	}
}

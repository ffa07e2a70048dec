package ghfake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// obj is a JSON object under construction.
type obj = map[string]any

const docsURL = "https://docs.github.com/rest"

func itoa(n int) string { return strconv.Itoa(n) }

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func nodeID(kind string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatInt(id, 10)))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"message":"ghfake: encode response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes GitHub's basic error body.
func writeError(w http.ResponseWriter, status int, msg, doc string) {
	writeJSON(w, status, obj{"message": msg, "documentation_url": doc, "status": itoa(status)})
}

func (s *Server) apiBase() string { return strings.TrimSuffix(s.api.URL, "/") }

func (s *Server) repoAPI(r *repoState) string { return s.apiBase() + "/repos/" + r.fullName() }

func repoHTML(full string) string { return "https://github.com/" + full }

// userJSON renders a simple-user. Callers hold s.mu.
func (s *Server) userJSON(login string) obj {
	u := s.user(login)
	api := s.apiBase() + "/users/" + u.login
	typ := "User"
	if u.bot {
		typ = "Bot"
	}
	return obj{
		"login": u.login, "id": u.id, "node_id": nodeID("User", u.id),
		"avatar_url":          "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(u.id, 10) + "?v=4",
		"gravatar_id":         "",
		"url":                 api,
		"html_url":            "https://github.com/" + u.login,
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
		"organizations_url":   api + "/orgs",
		"repos_url":           api + "/repos",
		"events_url":          api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
		"type":                typ,
		"site_admin":          false,
	}
}

// repoURLFields are the templated *_url fields of a repository object.
var repoURLFields = map[string]string{
	"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
	"branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}",
	"comments_url": "/comments{/number}", "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
	"contents_url": "/contents/{+path}", "contributors_url": "/contributors", "deployments_url": "/deployments",
	"downloads_url": "/downloads", "events_url": "/events", "forks_url": "/forks", "git_commits_url": "/git/commits{/sha}",
	"git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
	"issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
	"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
	"languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
	"notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
	"releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
	"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
	"teams_url": "/teams", "trees_url": "/git/trees{/sha}",
}

// repoJSON renders a full repository object for full name and id; a
// repository the fake holds contributes its default branch. Callers hold
// s.mu.
func (s *Server) repoJSON(full string, id int64, fork bool) obj {
	owner, name, _ := strings.Cut(full, "/")
	api := s.apiBase() + "/repos/" + full
	branch := "main"
	private := false
	if r, ok := s.repos[strings.ToLower(full)]; ok {
		branch, private = r.defaultBranch, r.private
	}
	o := obj{
		"id": id, "node_id": nodeID("Repository", id), "name": name, "full_name": full,
		"owner": s.userJSON(owner), "private": private, "html_url": repoHTML(full), "description": nil,
		"fork": fork, "url": api, "clone_url": repoHTML(full) + ".git", "git_url": "git://github.com/" + full + ".git",
		"ssh_url": "git@github.com:" + full + ".git", "svn_url": repoHTML(full), "mirror_url": nil, "homepage": nil,
		"default_branch": branch, "forks": 0, "forks_count": 0, "has_downloads": true, "has_issues": true,
		"has_projects": true, "has_wiki": true, "has_pages": false, "language": "Go", "archived": false,
		"disabled": false, "open_issues": 0, "open_issues_count": 0, "license": nil,
		"pushed_at": ts(s.start), "created_at": ts(s.start), "updated_at": ts(s.start), "size": 0,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0, "visibility": "public",
	}
	if private {
		o["visibility"] = "private"
	}
	for k, suffix := range repoURLFields {
		o[k] = api + suffix
	}
	return o
}

func labelJSON(s *Server, r *repoState, l *labelState) obj {
	var descr any
	if l.descr != "" {
		descr = l.descr
	}
	return obj{"id": l.id, "node_id": nodeID("Label", l.id), "url": s.repoAPI(r) + "/labels/" + pathEscape(l.name),
		"name": l.name, "description": descr, "color": l.color, "default": false}
}

func (s *Server) issueJSON(r *repoState, is *issueState) obj {
	api := s.repoAPI(r) + "/issues/" + itoa(is.number)
	labels := []any{}
	for _, name := range is.labels {
		if l := findLabel(r, name); l != nil {
			labels = append(labels, labelJSON(s, r, l))
		}
	}
	html := repoHTML(r.fullName()) + "/issues/" + itoa(is.number)
	if is.pull {
		html = repoHTML(r.fullName()) + "/pull/" + itoa(is.number)
	}
	o := obj{
		"id": is.id, "node_id": nodeID("Issue", is.id), "url": api, "repository_url": s.repoAPI(r),
		"labels_url": api + "/labels{/name}", "comments_url": api + "/comments", "events_url": api + "/events",
		"html_url": html, "number": is.number, "state": is.state, "title": is.title, "body": nilIfEmpty(is.body),
		"user": s.userJSON(is.author), "labels": labels, "assignee": nil, "assignees": []any{}, "milestone": nil,
		"locked": is.locked, "active_lock_reason": nil, "comments": is.comments, "closed_at": ts(is.closed),
		"created_at": ts(is.created), "updated_at": ts(is.updated), "author_association": is.authorAssociation,
		"state_reason": nilIfEmpty(is.reason),
	}
	if is.closedBy != "" {
		o["closed_by"] = s.userJSON(is.closedBy)
	}
	if is.pull {
		p := s.repoAPI(r) + "/pulls/" + itoa(is.number)
		o["pull_request"] = obj{"url": p, "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch", "merged_at": nil}
	}
	return o
}

func nilIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func (s *Server) commentJSON(r *repoState, c *commentState) obj {
	issue := r.issues[c.issue]
	kind := "issues"
	if issue != nil && issue.pull {
		kind = "pull"
	}
	return obj{
		"id": c.id, "node_id": nodeID("IssueComment", c.id), "url": s.repoAPI(r) + "/issues/comments/" + strconv.FormatInt(c.id, 10),
		"html_url":  repoHTML(r.fullName()) + "/" + kind + "/" + itoa(c.issue) + "#issuecomment-" + strconv.FormatInt(c.id, 10),
		"body":      c.body,
		"user":      s.userJSON(c.author),
		"issue_url": s.repoAPI(r) + "/issues/" + itoa(c.issue), "created_at": ts(c.created), "updated_at": ts(c.updated),
		"author_association": s.association(r, c.author),
		"reactions":          s.rollup(r, c),
	}
}

func (s *Server) rollup(r *repoState, c *commentState) obj {
	counts := obj{"url": s.repoAPI(r) + "/issues/comments/" + strconv.FormatInt(c.id, 10) + "/reactions", "total_count": len(c.reactions)}
	for _, k := range []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"} {
		counts[k] = 0
	}
	for _, re := range c.reactions {
		counts[re.content] = counts[re.content].(int) + 1
	}
	return counts
}

func (s *Server) association(r *repoState, login string) string {
	switch {
	case strings.EqualFold(login, r.owner):
		return "OWNER"
	case r.perms[strings.ToLower(login)] != "" && r.perms[strings.ToLower(login)] != "none":
		return "COLLABORATOR"
	}
	return "NONE"
}

func (s *Server) reactionJSON(re *reactionState) obj {
	return obj{"id": re.id, "node_id": nodeID("Reaction", re.id), "user": s.userJSON(re.user), "content": re.content, "created_at": ts(re.created)}
}

// pullJSON renders a pull request; full adds the fields of pulls/get over
// the pull-request-simple of lists.
func (s *Server) pullJSON(r *repoState, p *pullState, full bool) obj {
	is := r.issues[p.spec.Number]
	sp := p.spec
	api := s.repoAPI(r) + "/pulls/" + itoa(sp.Number)
	html := repoHTML(r.fullName()) + "/pull/" + itoa(sp.Number)
	issueAPI := s.repoAPI(r) + "/issues/" + itoa(sp.Number)
	headOwner, _, _ := strings.Cut(sp.HeadRepo, "/")
	fork := sp.HeadRepoID != r.id
	labels := []any{}
	for _, name := range is.labels {
		if l := findLabel(r, name); l != nil {
			labels = append(labels, labelJSON(s, r, l))
		}
	}
	link := func(h string) obj { return obj{"href": h} }
	o := obj{
		"url": api, "id": p.id, "node_id": nodeID("PullRequest", p.id), "html_url": html, "diff_url": html + ".diff",
		"patch_url": html + ".patch", "issue_url": issueAPI, "commits_url": api + "/commits",
		"review_comments_url": api + "/comments", "review_comment_url": s.repoAPI(r) + "/pulls/comments{/number}",
		"comments_url": issueAPI + "/comments", "statuses_url": s.repoAPI(r) + "/statuses/" + sp.HeadSHA,
		"number": sp.Number, "state": is.state, "locked": false, "title": is.title, "user": s.userJSON(sp.User),
		"body": nilIfEmpty(is.body), "labels": labels, "milestone": nil, "active_lock_reason": nil,
		"created_at": ts(is.created), "updated_at": ts(is.updated), "closed_at": ts(is.closed), "merged_at": nil,
		"merge_commit_sha": nil, "assignee": nil, "assignees": []any{}, "requested_reviewers": []any{},
		"requested_teams": []any{},
		"head": obj{"label": headOwner + ":" + sp.HeadRef, "ref": sp.HeadRef, "sha": sp.HeadSHA,
			"user": s.userJSON(headOwner), "repo": s.repoJSON(sp.HeadRepo, sp.HeadRepoID, fork)},
		"base": obj{"label": r.owner + ":" + sp.BaseRef, "ref": sp.BaseRef, "sha": sp.BaseSHA,
			"user": s.userJSON(r.owner), "repo": s.repoJSON(r.fullName(), r.id, false)},
		"_links": obj{"self": link(api), "html": link(html), "issue": link(issueAPI), "comments": link(issueAPI + "/comments"),
			"review_comments": link(api + "/comments"), "review_comment": link(s.repoAPI(r) + "/pulls/comments{/number}"),
			"commits": link(api + "/commits"), "statuses": link(s.repoAPI(r) + "/statuses/" + sp.HeadSHA)},
		"author_association": is.authorAssociation, "auto_merge": nil, "draft": sp.Draft,
	}
	if sp.Merged {
		o["merged_at"] = ts(is.closed)
	}
	if full {
		o["merged"] = sp.Merged
		o["mergeable"] = nil
		o["rebaseable"] = nil
		o["mergeable_state"] = "unknown"
		o["merged_by"] = nil
		o["comments"] = is.comments
		o["review_comments"] = 0
		o["maintainer_can_modify"] = false
		o["commits"] = 1
		o["additions"] = 0
		o["deletions"] = 0
		o["changed_files"] = 0
	}
	return o
}

// minimalRepoJSON renders a minimal-repository (workflow runs).
func (s *Server) minimalRepoJSON(full string, id int64, fork bool) obj {
	o := s.repoJSON(full, id, fork)
	for _, k := range []string{"clone_url", "default_branch", "forks", "has_downloads", "has_issues", "has_projects",
		"has_wiki", "has_pages", "language", "archived", "disabled", "mirror_url", "open_issues", "license", "size",
		"watchers", "homepage", "svn_url", "pushed_at", "created_at", "updated_at", "visibility", "stargazers_count",
		"watchers_count", "forks_count", "open_issues_count"} {
		delete(o, k)
	}
	return o
}

func (s *Server) runJSON(r *repoState, run *runState) obj {
	sp := run.spec
	api := s.repoAPI(r) + "/actions/runs/" + strconv.FormatInt(sp.ID, 10)
	prs := []any{}
	for _, n := range sp.PullRequests {
		p, ok := r.pulls[n]
		if !ok {
			continue
		}
		prs = append(prs, obj{
			"id": p.id, "number": n, "url": s.repoAPI(r) + "/pulls/" + itoa(n),
			"head": obj{"ref": p.spec.HeadRef, "sha": p.spec.HeadSHA, "repo": obj{"id": p.spec.HeadRepoID, "url": s.apiBase() + "/repos/" + p.spec.HeadRepo, "name": repoName(p.spec.HeadRepo)}},
			"base": obj{"ref": p.spec.BaseRef, "sha": p.spec.BaseSHA, "repo": obj{"id": r.id, "url": s.repoAPI(r), "name": r.name}},
		})
	}
	wfID := r.workflows[strings.TrimPrefix(sp.Path, ".github/workflows/")]
	if wfID == 0 {
		wfID = 1
	}
	var conclusion any
	if sp.Conclusion != "" {
		conclusion = sp.Conclusion
	}
	headOwner, _, _ := strings.Cut(sp.HeadRepo, "/")
	o := obj{
		"id": sp.ID, "name": sp.Name, "node_id": nodeID("WorkflowRun", sp.ID), "check_suite_id": sp.ID + 1,
		"check_suite_node_id": nodeID("CheckSuite", sp.ID+1), "head_branch": nilIfEmpty(sp.HeadBranch),
		"head_sha": sp.HeadSHA, "path": sp.Path, "run_number": sp.ID % 10000, "event": sp.Event,
		"display_title": sp.Name, "status": sp.Status, "conclusion": conclusion, "workflow_id": wfID,
		"url": api, "html_url": repoHTML(r.fullName()) + "/actions/runs/" + strconv.FormatInt(sp.ID, 10),
		"pull_requests": prs, "created_at": ts(run.created), "updated_at": ts(run.created),
		"actor": s.userJSON(headOwner), "triggering_actor": s.userJSON(headOwner), "run_attempt": run.attempt,
		"run_started_at": ts(run.created), "jobs_url": api + "/jobs", "logs_url": api + "/logs",
		"check_suite_url": s.repoAPI(r) + "/check-suites/" + strconv.FormatInt(sp.ID+1, 10),
		"artifacts_url":   api + "/artifacts", "cancel_url": api + "/cancel", "rerun_url": api + "/rerun",
		"previous_attempt_url": nil, "workflow_url": s.repoAPI(r) + "/actions/workflows/" + strconv.FormatInt(wfID, 10),
		"head_commit": obj{"id": sp.HeadSHA, "tree_id": sp.HeadSHA, "message": sp.Name, "timestamp": ts(run.created),
			"author":    obj{"name": headOwner, "email": headOwner + "@users.noreply.github.com"},
			"committer": obj{"name": "GitHub", "email": "noreply@github.com"}},
		"repository":         s.minimalRepoJSON(r.fullName(), r.id, false),
		"head_repository":    s.minimalRepoJSON(sp.HeadRepo, sp.HeadRepoID, sp.HeadRepoID != r.id),
		"head_repository_id": sp.HeadRepoID,
	}
	return o
}

func repoName(full string) string {
	_, n, _ := strings.Cut(full, "/")
	return n
}

func (s *Server) artifactJSON(r *repoState, a *artifactState) obj {
	run := r.runs[a.runID]
	api := s.repoAPI(r) + "/actions/artifacts/" + strconv.FormatInt(a.id, 10)
	wr := obj{"id": a.runID, "repository_id": r.id}
	if run != nil {
		wr["head_repository_id"] = run.spec.HeadRepoID
		wr["head_branch"] = run.spec.HeadBranch
		wr["head_sha"] = run.spec.HeadSHA
	}
	return obj{
		"id": a.id, "node_id": nodeID("Artifact", a.id), "name": a.name, "size_in_bytes": len(a.zip),
		"url": api, "archive_download_url": api + "/zip", "expired": a.expired, "created_at": ts(a.created),
		"expires_at": ts(a.created.Add(90 * 24 * time.Hour)), "updated_at": ts(a.created),
		"digest": nil, "workflow_run": wr,
	}
}

func (s *Server) commitJSON(r *repoState, sha string, c *commitObject) obj {
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, obj{"sha": p, "url": s.repoAPI(r) + "/git/commits/" + p, "html_url": repoHTML(r.fullName()) + "/commit/" + p})
	}
	sig := func(g Signature) obj { return obj{"name": g.Name, "email": g.Email, "date": ts(g.Date)} }
	reason := "unsigned"
	if c.verified {
		reason = "valid"
	}
	return obj{
		"sha": sha, "node_id": nodeID("Commit", int64(len(sha))) + sha[:7], "url": s.repoAPI(r) + "/git/commits/" + sha,
		"html_url": repoHTML(r.fullName()) + "/commit/" + sha, "author": sig(c.author), "committer": sig(c.committer),
		"tree": obj{"sha": c.tree, "url": s.repoAPI(r) + "/git/trees/" + c.tree}, "message": c.message, "parents": parents,
		"verification": obj{"verified": c.verified, "reason": reason, "signature": nil, "payload": nil, "verified_at": nil},
	}
}

func (s *Server) refJSON(r *repoState, ref, sha string) obj {
	return obj{"ref": "refs/" + ref, "node_id": nodeID("Ref", int64(len(ref))) + ref, "url": s.repoAPI(r) + "/git/refs/" + ref,
		"object": obj{"type": "commit", "sha": sha, "url": s.repoAPI(r) + "/git/commits/" + sha}}
}

func pathEscape(p string) string {
	parts := strings.Split(p, "/")
	for i, x := range parts {
		parts[i] = urlPathEscape(x)
	}
	return strings.Join(parts, "/")
}

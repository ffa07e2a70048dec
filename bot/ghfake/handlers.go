package ghfake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

// dispatch routes a validated call to its handler.
func (s *Server) dispatch(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.op == "rate-limit/get" {
		c.rateLimit()
		return
	}
	if c.op == "users/get-authenticated" {
		c.authenticatedUser()
		return
	}
	r, ok := s.repos[strings.ToLower(c.params["owner"]+"/"+c.params["repo"])]
	if !ok {
		c.notFound()
		return
	}
	c.repo = r
	h, ok := handlers[c.op]
	if !ok {
		writeError(c.w, http.StatusNotImplemented, "ghfake: operation "+c.op+" not implemented", docsURL)
		return
	}
	h(c)
}

var handlers map[string]func(*call)

func init() {
	handlers = map[string]func(*call){
		"issues/list-comments":                            (*call).listComments,
		"issues/create-comment":                           (*call).createComment,
		"issues/get-comment":                              (*call).getComment,
		"issues/update-comment":                           (*call).updateComment,
		"issues/delete-comment":                           (*call).deleteComment,
		"issues/list-for-repo":                            (*call).listIssues,
		"issues/create":                                   (*call).createIssue,
		"issues/get":                                      (*call).getIssue,
		"issues/update":                                   (*call).updateIssue,
		"issues/list-labels-for-repo":                     (*call).listLabels,
		"issues/create-label":                             (*call).createLabel,
		"issues/get-label":                                (*call).getLabel,
		"issues/add-labels":                               (*call).addLabels,
		"reactions/list-for-issue-comment":                (*call).listReactions,
		"reactions/create-for-issue-comment":              (*call).createReaction,
		"repos/get-collaborator-permission-level":         (*call).permission,
		"pulls/list":                                      (*call).listPulls,
		"pulls/get":                                       (*call).getPull,
		"repos/list-pull-requests-associated-with-commit": (*call).commitPulls,
		"actions/list-workflow-run-artifacts":             (*call).listArtifacts,
		"actions/download-artifact":                       (*call).downloadArtifact,
		"actions/get-workflow-run":                        (*call).getRun,
		"actions/create-workflow-dispatch":                (*call).dispatchWorkflow,
		"actions/re-run-workflow":                         (*call).rerun,
		"git/get-ref":                                     (*call).getRef,
		"git/update-ref":                                  (*call).updateRef,
		"git/create-blob":                                 (*call).createBlob,
		"git/create-tree":                                 (*call).createTree,
		"git/get-tree":                                    (*call).getTree,
		"git/create-commit":                               (*call).createCommit,
		"git/get-commit":                                  (*call).getCommit,
		"repos/get-content":                               (*call).getContent,
		"checks/create":                                   (*call).createCheckRun,
		"checks/update":                                   (*call).updateCheckRun,
		"checks/get":                                      (*call).getCheckRun,
		"checks/list-annotations":                         (*call).listCheckRunAnnotations,
		"checks/list-for-ref":                             (*call).listCheckRunsForRef,
		"repos/create-commit-status":                      (*call).createStatus,
		"repos/get-combined-status-for-ref":               (*call).combinedStatus,
	}
}

// ---- issue comments ----

func (c *call) issue() (*issueState, bool) {
	n, ok := c.intParam("issue_number")
	if !ok {
		return nil, false
	}
	is, found := c.repo.issues[int(n)]
	if !found {
		c.notFound()
		return nil, false
	}
	return is, true
}

func (c *call) comment() (*commentState, bool) {
	id, ok := c.intParam("comment_id")
	if !ok {
		return nil, false
	}
	cm, found := c.repo.comments[id]
	if !found {
		c.notFound()
		return nil, false
	}
	return cm, true
}

func (c *call) sinceFilter() (time.Time, bool) {
	v := c.req.URL.Query().Get("since")
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		c.invalid("Validation Failed", obj{"resource": "Search", "field": "since", "code": "invalid"})
		return time.Time{}, false
	}
	return t, true
}

func (c *call) listComments() {
	is, ok := c.issue()
	if !ok {
		return
	}
	since, ok := c.sinceFilter()
	if !ok {
		return
	}
	var items []any
	for _, cm := range sortedComments(c.repo, is.number) {
		if !since.IsZero() && cm.updated.Before(since) {
			continue
		}
		items = append(items, c.s.commentJSON(c.repo, cm))
	}
	c.json(http.StatusOK, c.paginate(items))
}

// bodyText checks a comment or issue body: present when required, a
// string, and within GitHub's length limit.
func (c *call) bodyText(raw json.RawMessage, resource string, required bool) (string, bool) {
	if raw == nil || string(raw) == "null" {
		if required {
			c.invalid("Validation Failed", obj{"resource": resource, "field": "body", "code": "missing_field"})
			return "", false
		}
		return "", true
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		c.invalid("Invalid request.\n\nFor 'properties/body', "+string(raw)+" is not a string.", obj{"resource": resource, "field": "body", "code": "invalid"})
		return "", false
	}
	if utf8.RuneCountInString(text) > maxBody {
		c.invalid("Validation Failed", obj{"resource": resource, "field": "body", "code": "custom",
			"message": fmt.Sprintf("body is too long (maximum is %d characters)", maxBody)})
		return "", false
	}
	return text, true
}

// commentBody decodes a request {"body": ...} for an issue comment; on
// failure the error answer is already sent.
func (c *call) commentBody() (string, bool) {
	var in struct {
		Body json.RawMessage `json:"body"`
	}
	if !c.decode(&in) {
		return "", false
	}
	return c.bodyText(in.Body, "IssueComment", true)
}

func (c *call) createComment() {
	is, ok := c.issue()
	if !ok {
		return
	}
	text, ok := c.commentBody()
	if !ok {
		return
	}
	now := c.s.now()
	cm := &commentState{id: c.s.id(), issue: is.number, author: c.login, body: text, created: now, updated: now}
	c.repo.comments[cm.id] = cm
	is.comments++
	is.updated = now
	out := c.s.commentJSON(c.repo, cm)
	c.created(out["url"].(string), out)
}

func (c *call) getComment() {
	if cm, ok := c.comment(); ok {
		c.json(http.StatusOK, c.s.commentJSON(c.repo, cm))
	}
}

func (c *call) updateComment() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	text, ok := c.commentBody()
	if !ok {
		return
	}
	cm.body = text
	cm.updated = c.s.now()
	c.json(http.StatusOK, c.s.commentJSON(c.repo, cm))
}

func (c *call) deleteComment() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	delete(c.repo.comments, cm.id)
	if is := c.repo.issues[cm.issue]; is != nil {
		is.comments--
	}
	c.w.WriteHeader(http.StatusNoContent)
}

// ---- issues ----

func (c *call) listIssues() {
	q := c.req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	since, ok := c.sinceFilter()
	if !ok {
		return
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	creator := q.Get("creator")
	var list []*issueState
	for _, is := range c.repo.issues {
		if state != "all" && is.state != state {
			continue
		}
		if creator != "" && !strings.EqualFold(is.author, creator) {
			continue
		}
		if !since.IsZero() && is.updated.Before(since) {
			continue
		}
		if !hasLabels(is.labels, want) {
			continue
		}
		list = append(list, is)
	}
	sortKey := q.Get("sort")
	asc := q.Get("direction") == "asc"
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		var less bool
		switch sortKey {
		case "updated":
			less = a.updated.Before(b.updated) || (a.updated.Equal(b.updated) && a.number < b.number)
		case "comments":
			less = a.comments < b.comments || (a.comments == b.comments && a.number < b.number)
		default:
			less = a.number < b.number
		}
		if asc {
			return less
		}
		return !less
	})
	items := make([]any, len(list))
	for i, is := range list {
		items[i] = c.s.issueJSON(c.repo, is)
	}
	c.json(http.StatusOK, c.paginate(items))
}

func hasLabels(have, want []string) bool {
	for _, w := range want {
		w = strings.TrimSpace(w)
		found := false
		for _, h := range have {
			if strings.EqualFold(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// labelNames reads labels given as strings or {name} objects.
func labelNames(raw []json.RawMessage) ([]string, bool) {
	var out []string
	for _, r := range raw {
		var name string
		if err := json.Unmarshal(r, &name); err == nil {
			out = append(out, name)
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(r, &o); err != nil || o.Name == "" {
			return nil, false
		}
		out = append(out, o.Name)
	}
	return out, true
}

type issueInput struct {
	Title       json.RawMessage   `json:"title"`
	Body        json.RawMessage   `json:"body"`
	State       *string           `json:"state"`
	StateReason *string           `json:"state_reason"`
	Labels      []json.RawMessage `json:"labels"`
}

func rawTitle(raw json.RawMessage) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func (c *call) createIssue() {
	var in issueInput
	if !c.decode(&in) {
		return
	}
	title, ok := rawTitle(in.Title)
	if !ok || title == "" {
		c.invalid("Validation Failed", obj{"resource": "Issue", "field": "title", "code": "missing_field"})
		return
	}
	body, ok := c.bodyText(in.Body, "Issue", false)
	if !ok {
		return
	}
	labels, ok := labelNames(in.Labels)
	if !ok {
		c.invalid("Validation Failed", obj{"resource": "Issue", "field": "labels", "code": "invalid"})
		return
	}
	now := c.s.now()
	is := &issueState{id: c.s.id(), number: c.repo.nextNumber(), title: title, body: body, state: "open",
		author: c.login, created: now, updated: now, authorAssociation: c.s.association(c.repo, c.login)}
	for _, l := range labels {
		is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, l).name)
	}
	c.repo.issues[is.number] = is
	out := c.s.issueJSON(c.repo, is)
	c.created(out["url"].(string), out)
}

func (c *call) getIssue() {
	if is, ok := c.issue(); ok {
		c.json(http.StatusOK, c.s.issueJSON(c.repo, is))
	}
}

func (c *call) updateIssue() {
	is, ok := c.issue()
	if !ok {
		return
	}
	var in issueInput
	if !c.decode(&in) {
		return
	}
	if in.Title != nil && string(in.Title) != "null" {
		title, ok := rawTitle(in.Title)
		if !ok {
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "title", "code": "invalid"})
			return
		}
		is.title = title
	}
	if in.Body != nil {
		body, ok := c.bodyText(in.Body, "Issue", false)
		if !ok {
			return
		}
		is.body = body
	}
	now := c.s.now()
	if in.State != nil {
		switch *in.State {
		case "closed":
			if is.state != "closed" {
				is.closed, is.closedBy = now, c.login
			}
			is.state, is.reason = "closed", "completed"
			if in.StateReason != nil && *in.StateReason != "" {
				is.reason = *in.StateReason
			}
		case "open":
			if is.state == "closed" {
				is.reason = "reopened"
			}
			is.state, is.closed, is.closedBy = "open", time.Time{}, ""
		default:
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "state", "code": "invalid"})
			return
		}
	}
	if in.Labels != nil {
		labels, ok := labelNames(in.Labels)
		if !ok {
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "labels", "code": "invalid"})
			return
		}
		is.labels = nil
		for _, l := range labels {
			is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, l).name)
		}
	}
	is.updated = now
	c.json(http.StatusOK, c.s.issueJSON(c.repo, is))
}

// ---- labels ----

func (c *call) listLabels() {
	items := make([]any, len(c.repo.labels))
	for i, l := range c.repo.labels {
		items[i] = labelJSON(c.s, c.repo, l)
	}
	c.json(http.StatusOK, c.paginate(items))
}

func (c *call) createLabel() {
	var in struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Name == "" {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "missing_field"})
		return
	}
	if findLabel(c.repo, in.Name) != nil {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "already_exists"})
		return
	}
	color := strings.TrimPrefix(in.Color, "#")
	if color == "" {
		color = "ededed"
	}
	l := &labelState{id: c.s.id(), name: in.Name, color: color, descr: in.Description}
	c.repo.labels = append(c.repo.labels, l)
	out := labelJSON(c.s, c.repo, l)
	c.created(out["url"].(string), out)
}

func (c *call) getLabel() {
	l := findLabel(c.repo, c.params["name"])
	if l == nil {
		c.notFound()
		return
	}
	c.json(http.StatusOK, labelJSON(c.s, c.repo, l))
}

func (c *call) addLabels() {
	is, ok := c.issue()
	if !ok {
		return
	}
	var raw []json.RawMessage
	var wrapped struct {
		Labels []json.RawMessage `json:"labels"`
	}
	if json.Unmarshal(c.body, &raw) != nil {
		if !c.decode(&wrapped) {
			return
		}
		raw = wrapped.Labels
	}
	names, ok := labelNames(raw)
	if !ok {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "invalid"})
		return
	}
	for _, n := range names {
		is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, n).name)
	}
	is.updated = c.s.now()
	items := []any{}
	for _, n := range is.labels {
		items = append(items, labelJSON(c.s, c.repo, findLabel(c.repo, n)))
	}
	c.json(http.StatusOK, items)
}

// ---- reactions ----

func (c *call) listReactions() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	content := c.req.URL.Query().Get("content")
	var items []any
	for _, re := range cm.reactions {
		if content == "" || re.content == content {
			items = append(items, c.s.reactionJSON(re))
		}
	}
	c.json(http.StatusOK, c.paginate(items))
}

var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}

func (c *call) createReaction() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return
	}
	if !reactionContents[in.Content] {
		c.invalid("Validation Failed", obj{"resource": "Reaction", "field": "content", "code": "invalid"})
		return
	}
	for _, re := range cm.reactions {
		if strings.EqualFold(re.user, c.login) && re.content == in.Content {
			c.json(http.StatusOK, c.s.reactionJSON(re))
			return
		}
	}
	re := &reactionState{id: c.s.id(), user: c.login, content: in.Content, created: c.s.now()}
	cm.reactions = append(cm.reactions, re)
	c.json(http.StatusCreated, c.s.reactionJSON(re))
}

// ---- permissions ----

// legacyPermission maps a role to the permission field GitHub reports.
var legacyPermission = map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}

func (c *call) permission() {
	login := c.params["username"]
	u, known := c.s.users[strings.ToLower(login)]
	if !known {
		writeError(c.w, http.StatusNotFound, "Not Found", docsURL)
		return
	}
	role := c.repo.perms[strings.ToLower(login)]
	if role == "" {
		role = "none"
		if strings.EqualFold(login, c.repo.owner) {
			role = "admin"
		}
	}
	perm, ok := legacyPermission[role]
	if !ok {
		perm = role
	}
	user := c.s.userJSON(u.login)
	user["permissions"] = obj{"admin": role == "admin", "maintain": role == "admin" || role == "maintain",
		"push": perm == "admin" || perm == "write", "triage": perm != "none" && role != "read", "pull": perm != "none"}
	user["role_name"] = role
	c.json(http.StatusOK, obj{"permission": perm, "role_name": role, "user": user})
}

// ---- pulls ----

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
		if p.spec.HeadSHA == sha || (p.spec.HeadSHA != "" && c.repo.objects.isAncestor(sha, p.spec.HeadSHA)) {
			items = append(items, c.s.pullJSON(c.repo, p, false))
		}
	}
	c.json(http.StatusOK, c.paginate(items))
}

// ---- actions ----

func (c *call) run() (*runState, bool) {
	id, ok := c.intParam("run_id")
	if !ok {
		return nil, false
	}
	run, found := c.repo.runs[id]
	if !found {
		c.notFound()
		return nil, false
	}
	return run, true
}

func (c *call) getRun() {
	if run, ok := c.run(); ok {
		c.json(http.StatusOK, c.s.runJSON(c.repo, run))
	}
}

func (c *call) listArtifacts() {
	run, ok := c.run()
	if !ok {
		return
	}
	name := c.req.URL.Query().Get("name")
	var items []any
	for _, id := range run.artifacts {
		a := c.s.artifacts[id]
		if name != "" && a.name != name {
			continue
		}
		items = append(items, c.s.artifactJSON(c.repo, a))
	}
	total := len(items)
	page := c.paginate(items)
	c.json(http.StatusOK, obj{"total_count": total, "artifacts": page})
}

func (c *call) downloadArtifact() {
	id, ok := c.intParam("artifact_id")
	if !ok {
		return
	}
	a, found := c.s.artifacts[id]
	if !found || a.repo != strings.ToLower(c.repo.fullName()) || c.params["archive_format"] != "zip" {
		c.notFound()
		return
	}
	if a.expired {
		writeError(c.w, http.StatusGone, "Artifact has expired", docsURL)
		return
	}
	exp := c.s.now().Add(c.s.artifactTTL).Unix()
	loc := fmt.Sprintf("%s/artifacts/%d?sig=%s&se=%d&sp=r&sv=2021-12-02", c.s.blob.URL, a.id, a.token, exp)
	c.w.Header().Set("Location", loc)
	c.w.WriteHeader(http.StatusFound)
}

// knownRef reports whether ref (a branch or tag name, or refs/...) exists.
func (c *call) knownRef(ref string) bool {
	ref = strings.TrimPrefix(ref, "refs/")
	if _, ok := c.repo.refs[ref]; ok {
		return true
	}
	if _, ok := c.repo.refs["heads/"+ref]; ok {
		return true
	}
	if _, ok := c.repo.refs["tags/"+ref]; ok {
		return true
	}
	if _, ok := c.repo.files[ref]; ok {
		return true
	}
	if ref == c.repo.defaultBranch || ref == "heads/"+c.repo.defaultBranch {
		return true
	}
	for _, p := range c.repo.pulls {
		if p.spec.HeadRepoID == c.repo.id && (p.spec.HeadRef == ref || "heads/"+p.spec.HeadRef == ref) {
			return true
		}
	}
	return false
}

func (c *call) knownWorkflow(id, ref string) bool {
	for file, wid := range c.repo.workflows {
		if file == id || strconv.FormatInt(wid, 10) == id {
			return true
		}
	}
	path := ".github/workflows/" + id
	for _, r := range []string{ref, strings.TrimPrefix(ref, "refs/heads/"), c.repo.defaultBranch} {
		if _, ok := c.repo.files[r][path]; ok {
			return true
		}
		if _, ok := c.fileAt(r, path); ok {
			return true
		}
	}
	return false
}

func (c *call) dispatchWorkflow() {
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails bool           `json:"return_run_details"`
	}
	if !c.decode(&in) {
		return
	}
	wf := c.params["workflow_id"]
	if in.Ref == "" || !c.knownRef(in.Ref) {
		c.invalid("No ref found for: " + in.Ref)
		return
	}
	if !c.knownWorkflow(wf, in.Ref) {
		c.invalid("Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	if len(in.Inputs) > 25 {
		c.invalid("you may only define up to 25 `inputs` for a `workflow_dispatch` event")
		return
	}
	c.repo.dispatches = append(c.repo.dispatches, Dispatch{Workflow: wf, Ref: in.Ref, Inputs: in.Inputs, By: c.login})
	if !in.ReturnRunDetails {
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	branch := strings.TrimPrefix(in.Ref, "refs/heads/")
	sha := c.repo.refs["heads/"+branch]
	id := c.s.id()
	c.repo.runs[id] = &runState{spec: RunSpec{ID: id, Name: wf, Path: ".github/workflows/" + wf, HeadSHA: sha,
		HeadBranch: branch, Event: "workflow_dispatch", Status: "queued", HeadRepoID: c.repo.id, HeadRepo: c.repo.fullName()},
		attempt: 1, created: c.s.now()}
	c.json(http.StatusOK, obj{"workflow_run_id": id, "run_url": c.s.repoAPI(c.repo) + "/actions/runs/" + strconv.FormatInt(id, 10),
		"html_url": repoHTML(c.repo.fullName()) + "/actions/runs/" + strconv.FormatInt(id, 10)})
}

func (c *call) rerun() {
	run, ok := c.run()
	if !ok {
		return
	}
	run.attempt++
	run.spec.Status, run.spec.Conclusion = "queued", ""
	c.repo.reruns = append(c.repo.reruns, run.spec.ID)
	c.json(http.StatusCreated, obj{})
}

// ---- git data ----

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
		var download any = "https://raw.githubusercontent.com/" + c.repo.fullName() + "/" + ref + "/" + p
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
			c.w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
			c.w.WriteHeader(http.StatusOK)
			_, _ = c.w.Write(data)
			return
		}
		o := item(path, "file", hashObject("blob", data), len(data))
		o["encoding"] = "base64"
		o["content"] = wrap60(base64.StdEncoding.EncodeToString(data))
		c.json(http.StatusOK, o)
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
	c.json(http.StatusOK, list)
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

// ---- rate limit ----

func (c *call) rateLimit() {
	used := c.s.used[c.login]
	remaining := rateLimit - used
	if remaining < 0 {
		remaining = 0
	}
	reset := c.s.start.Add(time.Hour).Unix()
	core := obj{"limit": rateLimit, "used": used, "remaining": remaining, "reset": reset}
	res := obj{"core": core}
	for name, limit := range map[string]int{"search": 30, "graphql": 5000, "integration_manifest": 5000, "code_search": 10} {
		res[name] = obj{"limit": limit, "used": 0, "remaining": limit, "reset": reset}
	}
	c.json(http.StatusOK, obj{"resources": res, "rate": core})
}

// authenticatedUser answers GET /user: the token's user as a public
// profile; a bot's token (GITHUB_TOKEN, an App installation) gets 403 as
// on GitHub, whose App identity comes from GET /app instead.
func (c *call) authenticatedUser() {
	if c.s.user(c.login).bot {
		writeError(c.w, http.StatusForbidden, "Resource not accessible by integration",
			"https://docs.github.com/rest/users/users#get-the-authenticated-user")
		return
	}
	u := c.s.userJSON(c.login)
	u["user_view_type"] = "public"
	for _, k := range []string{"name", "company", "blog", "location", "email", "hireable", "bio"} {
		u[k] = nil
	}
	u["blog"] = ""
	u["public_repos"], u["public_gists"], u["followers"], u["following"] = 0, 0, 0, 0
	u["created_at"], u["updated_at"] = ts(c.s.now()), ts(c.s.now())
	c.json(http.StatusOK, u)
}

package ghfake

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The Checks API and commit statuses, as GitHub answers them: check runs
// can be written only by a GitHub App's token (GITHUB_TOKEN is the
// github-actions App's), never by a personal token; a token whose job
// lacks the permission gets 403 "Resource not accessible by integration".

// maxAnnotationsPerRequest is GitHub's limit of annotations in one create
// or update request.
const maxAnnotationsPerRequest = 50

// githubActionsAppID is the id of the github-actions App that owns the
// check runs GITHUB_TOKEN creates.
const githubActionsAppID = 15368

type checkRunState struct {
	id                   int64
	name, headSHA        string
	status, conclusion   string
	detailsURL           string
	externalID           string
	started, completed   time.Time
	title, summary, text string
	annotations          []Annotation
	by                   string
	updates              int
	actions              []CheckAction
}

type statusState struct {
	id                                int64
	sha, state, context, desc, target string
	created                           time.Time
	creator                           string
}

// CheckRun is a check run as the fake holds it, for assertions.
type CheckRun struct {
	ID          int64
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	Title       string
	Summary     string
	Text        string
	DetailsURL  string
	Annotations []Annotation
	By          string
	// Updates counts the PATCH requests the run received.
	Updates int
	// Actions are the run's buttons (requested actions).
	Actions []CheckAction
}

// Annotation is one annotation of a check run.
type Annotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"`
	Message   string `json:"message"`
	Title     string `json:"title,omitempty"`
}

// Status is a commit status, for assertions.
type Status struct {
	SHA, State, Context, Description, TargetURL, Creator string
}

// Forbid makes every request of login that needs scope ("checks" or
// "statuses") fail with 403 "Resource not accessible by integration", as
// GitHub answers a GITHUB_TOKEN whose job was not granted the permission.
func (s *Server) Forbid(login, scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forbidden == nil {
		s.forbidden = map[string]bool{}
	}
	s.forbidden[strings.ToLower(login)+" "+scope] = true
}

// CheckRuns returns the check runs of a repository in creation order.
func (s *Server) CheckRuns(owner, repo string) []CheckRun {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	var out []CheckRun
	for _, cr := range r.sortedCheckRuns() {
		out = append(out, CheckRun{ID: cr.id, Name: cr.name, HeadSHA: cr.headSHA, Status: cr.status, Conclusion: cr.conclusion,
			Title: cr.title, Summary: cr.summary, Text: cr.text, DetailsURL: cr.detailsURL,
			Annotations: append([]Annotation(nil), cr.annotations...), By: cr.by, Updates: cr.updates,
			Actions: append([]CheckAction(nil), cr.actions...)})
	}
	return out
}

// Statuses returns the commit statuses of a repository in creation order.
func (s *Server) Statuses(owner, repo string) []Status {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	var out []Status
	for _, st := range r.statuses {
		out = append(out, Status{SHA: st.sha, State: st.state, Context: st.context, Description: st.desc, TargetURL: st.target, Creator: st.creator})
	}
	return out
}

func (r *repoState) sortedCheckRuns() []*checkRunState {
	out := make([]*checkRunState, 0, len(r.checkRuns))
	for _, cr := range r.checkRuns {
		out = append(out, cr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// mayWrite answers 403 and returns false when the caller may not use scope.
func (c *call) mayWrite(scope string) bool {
	u := c.s.user(c.login)
	switch {
	case scope == "checks" && !u.bot:
		writeError(c.w, http.StatusForbidden, "You must authenticate via a GitHub App.", docsURL)
		return false
	case c.s.forbidden[strings.ToLower(c.login)+" "+scope]:
		writeError(c.w, http.StatusForbidden, "Resource not accessible by integration", docsURL)
		return false
	}
	return true
}

// checkRunInput is the body of a create or update request.
type checkRunInput struct {
	Name        *string `json:"name"`
	HeadSHA     string  `json:"head_sha"`
	DetailsURL  *string `json:"details_url"`
	ExternalID  *string `json:"external_id"`
	Status      *string `json:"status"`
	Conclusion  *string `json:"conclusion"`
	StartedAt   *string `json:"started_at"`
	CompletedAt *string `json:"completed_at"`
	Output      *struct {
		Title       *string      `json:"title"`
		Summary     *string      `json:"summary"`
		Text        *string      `json:"text"`
		Annotations []Annotation `json:"annotations"`
	} `json:"output"`
	checkActionsInput
}

// apply copies the input onto a check run, validating what GitHub
// validates; it answers 422 and returns false on a bad input.
func (c *call) applyCheckRun(cr *checkRunState, in *checkRunInput) bool {
	if in.Name != nil {
		cr.name = *in.Name
	}
	if in.DetailsURL != nil {
		cr.detailsURL = *in.DetailsURL
	}
	if in.ExternalID != nil {
		cr.externalID = *in.ExternalID
	}
	if in.Status != nil {
		cr.status = *in.Status
	}
	applyCheckActions(cr, in)
	if in.Conclusion != nil {
		cr.conclusion = *in.Conclusion
		cr.status = "completed" // GitHub: a conclusion completes the run
		cr.completed = c.s.now()
	}
	if cr.status == "completed" && cr.conclusion == "" {
		c.invalid("Validation Failed", obj{"resource": "CheckRun", "code": "missing_field", "field": "conclusion"})
		return false
	}
	if o := in.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			c.invalid("Invalid request.\n\n\"title\", \"summary\" weren't supplied.")
			return false
		}
		if len([]rune(*o.Summary)) > 65535 || (o.Text != nil && len([]rune(*o.Text)) > 65535) {
			c.invalid("Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.")
			return false
		}
		if len(o.Annotations) > maxAnnotationsPerRequest {
			c.invalid("Invalid request.\n\nNo more than 50 items may be specified for annotations.")
			return false
		}
		for _, a := range o.Annotations {
			if a.Path == "" || a.StartLine < 1 || a.EndLine < a.StartLine || a.Message == "" ||
				(a.Level != "notice" && a.Level != "warning" && a.Level != "failure") {
				c.invalid("Invalid request.\n\nAnnotation is invalid: path, start_line ≤ end_line, annotation_level and message are required.")
				return false
			}
		}
		cr.title, cr.summary = *o.Title, *o.Summary
		if o.Text != nil {
			cr.text = *o.Text
		}
		// Annotations add up across requests, as on GitHub.
		cr.annotations = append(cr.annotations, o.Annotations...)
	}
	return true
}

func (c *call) createCheckRun() {
	if !c.mayWrite("checks") {
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	if in.Name == nil || *in.Name == "" || !c.knownCommit(in.HeadSHA) {
		c.invalid("Validation Failed", obj{"resource": "CheckRun", "code": "invalid", "field": "head_sha"})
		return
	}
	now := c.s.now()
	cr := &checkRunState{id: c.s.id(), headSHA: in.HeadSHA, status: "queued", started: now, by: c.login}
	if !c.applyCheckRun(cr, &in) {
		return
	}
	if c.repo.checkRuns == nil {
		c.repo.checkRuns = map[int64]*checkRunState{}
	}
	c.repo.checkRuns[cr.id] = cr
	out := c.s.checkRunJSON(c.repo, cr)
	c.created(out["url"].(string), out)
}

func (c *call) checkRun() (*checkRunState, bool) {
	return byID(c, "check_run_id", c.repo.checkRuns)
}

func (c *call) updateCheckRun() {
	if !c.mayWrite("checks") {
		return
	}
	cr, ok := c.checkRun()
	if !ok {
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	next := *cr
	next.annotations = append([]Annotation(nil), cr.annotations...)
	if !c.applyCheckRun(&next, &in) {
		return
	}
	next.updates++
	*cr = next
	c.json(http.StatusOK, c.s.checkRunJSON(c.repo, cr))
}

func (c *call) getCheckRun() {
	if cr, ok := c.checkRun(); ok {
		c.json(http.StatusOK, c.s.checkRunJSON(c.repo, cr))
	}
}

func (c *call) listCheckRunAnnotations() {
	cr, ok := c.checkRun()
	if !ok {
		return
	}
	items := make([]any, len(cr.annotations))
	for i, a := range cr.annotations {
		items[i] = obj{"path": a.Path, "blob_href": repoHTML(c.repo.fullName()) + "/blob/" + cr.headSHA + "/" + a.Path,
			"start_line": a.StartLine, "end_line": a.EndLine, "start_column": nil, "end_column": nil,
			"annotation_level": a.Level, "title": nilIfEmpty(a.Title), "message": a.Message, "raw_details": nil}
	}
	c.json(http.StatusOK, c.paginate(items))
}

func (c *call) listCheckRunsForRef() {
	sha, ok := c.resolveCommitish(c.params["ref"])
	if !ok {
		c.invalid("No commit found for SHA: " + c.params["ref"])
		return
	}
	q := c.req.URL.Query()
	var items []any
	for _, cr := range c.repo.sortedCheckRuns() {
		if cr.headSHA != sha || (q.Get("check_name") != "" && cr.name != q.Get("check_name")) {
			continue
		}
		items = append(items, c.s.checkRunJSON(c.repo, cr))
	}
	// Newest first, as GitHub lists them.
	for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
		items[i], items[j] = items[j], items[i]
	}
	total := len(items)
	page := c.paginate(append([]any{}, items...))
	c.json(http.StatusOK, obj{"total_count": total, "check_runs": page})
}

func (c *call) createStatus() {
	if !c.mayWrite("statuses") {
		return
	}
	var in struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !c.decode(&in) {
		return
	}
	sha := c.params["sha"]
	if !c.knownCommit(sha) {
		c.invalid("No commit found for SHA: " + sha)
		return
	}
	switch in.State {
	case "error", "failure", "pending", "success":
	default:
		c.invalid("Validation Failed", obj{"resource": "Status", "code": "custom", "field": "state", "message": "state is not included in the list"})
		return
	}
	if len([]rune(in.Description)) > 140 {
		c.invalid("Validation Failed", obj{"resource": "Status", "code": "custom", "field": "description", "message": "description is too long (maximum is 140 characters)"})
		return
	}
	if in.Context == "" {
		in.Context = "default"
	}
	st := &statusState{id: c.s.id(), sha: sha, state: in.State, context: in.Context, desc: in.Description, target: in.TargetURL,
		created: c.s.now(), creator: c.login}
	c.repo.statuses = append(c.repo.statuses, st)
	out := c.s.statusJSON(c.repo, st)
	c.created(out["url"].(string), out)
}

func (c *call) combinedStatus() {
	sha, ok := c.resolveCommitish(c.params["ref"])
	if !ok {
		c.notFound()
		return
	}
	latest := map[string]*statusState{}
	var order []string
	for _, st := range c.repo.statuses {
		if st.sha != sha {
			continue
		}
		if _, seen := latest[st.context]; !seen {
			order = append(order, st.context)
		}
		latest[st.context] = st
	}
	state := "success"
	if len(order) == 0 {
		state = "pending"
	}
	var items []any
	for _, ctx := range order {
		st := latest[ctx]
		switch {
		case st.state == "error" || st.state == "failure":
			state = "failure"
		case st.state == "pending" && state != "failure":
			state = "pending"
		}
		items = append(items, c.s.statusJSON(c.repo, st))
	}
	api := c.s.repoAPI(c.repo)
	c.json(http.StatusOK, obj{"state": state, "sha": sha, "total_count": len(items), "statuses": append([]any{}, items...),
		"repository": c.s.minimalRepoJSON(c.repo.fullName(), c.repo.id, false),
		"commit_url": api + "/commits/" + sha, "url": api + "/commits/" + sha + "/status"})
}

// knownCommit reports whether sha names a commit of the repository.
func (c *call) knownCommit(sha string) bool {
	o, ok := c.repo.objects[sha]
	return ok && o.commit != nil
}

func (s *Server) checkRunJSON(r *repoState, cr *checkRunState) obj {
	api := s.repoAPI(r) + "/check-runs/" + strconv.FormatInt(cr.id, 10)
	var conclusion, completed any
	if cr.conclusion != "" {
		conclusion, completed = cr.conclusion, ts(cr.completed)
	}
	var title, summary, text any
	if cr.title != "" || cr.summary != "" {
		title, summary = cr.title, cr.summary
	}
	if cr.text != "" {
		text = cr.text
	}
	now := ts(s.start)
	return obj{
		"id": cr.id, "node_id": nodeID("CheckRun", cr.id), "head_sha": cr.headSHA, "name": cr.name,
		"url": api, "html_url": repoHTML(r.fullName()) + "/runs/" + strconv.FormatInt(cr.id, 10),
		"details_url": nilIfEmpty(cr.detailsURL), "external_id": nilIfEmpty(cr.externalID),
		"status": cr.status, "conclusion": conclusion, "started_at": ts(cr.started), "completed_at": completed,
		"output": obj{"title": title, "summary": summary, "text": text, "annotations_count": len(cr.annotations),
			"annotations_url": api + "/annotations"},
		"check_suite": obj{"id": cr.id + 1_000_000},
		"app": obj{"id": githubActionsAppID, "slug": "github-actions", "node_id": nodeID("App", githubActionsAppID),
			"owner": s.userJSON("github"), "name": "GitHub Actions", "description": "Automate your workflow from idea to production",
			"external_url": "https://help.github.com/en/actions", "html_url": "https://github.com/apps/github-actions",
			"created_at": now, "updated_at": now,
			"permissions": obj{"checks": "write", "contents": "write", "issues": "write", "metadata": "read"},
			"events":      []any{"check_run", "pull_request", "push"}},
		"pull_requests": []any{},
	}
}

func (s *Server) statusJSON(r *repoState, st *statusState) obj {
	return obj{"url": s.repoAPI(r) + "/statuses/" + st.sha, "avatar_url": nil, "id": st.id, "node_id": nodeID("StatusContext", st.id),
		"state": st.state, "description": nilIfEmpty(st.desc), "target_url": nilIfEmpty(st.target), "context": st.context,
		"created_at": ts(st.created), "updated_at": ts(st.created), "creator": s.userJSON(st.creator)}
}

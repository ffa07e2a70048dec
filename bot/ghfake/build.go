package ghfake

// Building the world: repositories, tokens, pulls, issues, comments,
// labels, workflows, runs, artifacts, files and commits.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// AddRepo adds a repository with its id and default branch.
func (s *Server) AddRepo(owner, name string, id int64, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user(owner)
	s.repos[strings.ToLower(owner+"/"+name)] = &repoState{
		owner: owner, name: name, id: id, defaultBranch: defaultBranch,
		perms: map[string]string{}, issues: map[int]*issueState{}, comments: map[int64]*commentState{},
		pulls: map[int]*pullState{}, runs: map[int64]*runState{}, files: map[string]map[string][]byte{},
		objects: objectStore{}, refs: map[string]string{}, workflows: map[string]int64{},
	}
}

// AddToken makes token authenticate as login (a bot when isBot, e.g.
// "github-actions[bot]"). Requests with unknown tokens get 401.
func (s *Server) AddToken(token, login string, isBot bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user(login).bot = isBot
	s.tokens[token] = login
}

// SetPermission sets user's permission on a repository: admin, maintain,
// write, triage, read or none.
func (s *Server) SetPermission(owner, repo, user, level string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	s.user(user)
	r.perms[strings.ToLower(user)] = level
}

func (r *repoState) nextNumber() int {
	n := 1
	for k := range r.issues {
		if k >= n {
			n = k + 1
		}
	}
	return n
}

// AddPull adds a pull request (and its issue side, which shares the number
// and appears in the issue list). Number 0 takes the next free number,
// which is returned.
func (s *Server) AddPull(owner, repo string, pr PullSpec) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if pr.Number == 0 {
		pr.Number = r.nextNumber()
	}
	if pr.User == "" {
		pr.User = owner
	}
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.Title == "" {
		pr.Title = "Pull request " + itoa(pr.Number)
	}
	if pr.HeadRepo == "" {
		pr.HeadRepo = r.fullName()
	}
	if pr.HeadRepoID == 0 {
		pr.HeadRepoID = r.id
	}
	if pr.BaseRef == "" {
		pr.BaseRef = r.defaultBranch
	}
	if pr.HeadRef == "" {
		pr.HeadRef = "pr-" + itoa(pr.Number)
	}
	s.user(pr.User)
	now := s.now()
	is := &issueState{id: s.id(), number: pr.Number, title: pr.Title, body: pr.Body, state: pr.State,
		author: pr.User, pull: true, created: now, updated: now, authorAssociation: "CONTRIBUTOR"}
	if pr.State == "closed" {
		is.closed = now
	}
	for _, l := range pr.Labels {
		s.ensureLabel(r, l)
		is.labels = appendUnique(is.labels, l)
	}
	r.issues[pr.Number] = is
	r.pulls[pr.Number] = &pullState{spec: pr, id: s.id()}
	return pr.Number
}

// AddIssue adds an issue and returns its number.
func (s *Server) AddIssue(owner, repo string, spec IssueSpec) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if spec.Author == "" {
		spec.Author = owner
	}
	if spec.State == "" {
		spec.State = "open"
	}
	s.user(spec.Author)
	now := s.now()
	is := &issueState{id: s.id(), number: r.nextNumber(), title: spec.Title, body: spec.Body, state: spec.State,
		author: spec.Author, created: now, updated: now, authorAssociation: "OWNER"}
	if spec.State == "closed" {
		is.closed, is.reason = now, "completed"
	}
	for _, l := range spec.Labels {
		s.ensureLabel(r, l)
		is.labels = appendUnique(is.labels, l)
	}
	r.issues[is.number] = is
	return is.number
}

// AddComment adds a comment by author on issue or PR number issue and
// returns its id. The issue must exist (AddIssue or AddPull).
func (s *Server) AddComment(owner, repo string, issue int, author, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	is, ok := r.issues[issue]
	if !ok {
		s.t.Fatalf("ghfake: AddComment: issue or PR #%d of %s/%s not added", issue, owner, repo)
	}
	s.user(author)
	now := s.now()
	c := &commentState{id: s.id(), issue: issue, author: author, body: body, created: now, updated: now}
	r.comments[c.id] = c
	is.comments++
	return c.id
}

// AddLabel adds a repository label (no-op if it exists).
func (s *Server) AddLabel(owner, repo, name, color, description string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if findLabel(r, name) != nil {
		return
	}
	r.labels = append(r.labels, &labelState{id: s.id(), name: name, color: color, descr: description})
}

// ensureLabel creates a label with GitHub's default color if missing.
func (s *Server) ensureLabel(r *repoState, name string) *labelState {
	if l := findLabel(r, name); l != nil {
		return l
	}
	l := &labelState{id: s.id(), name: name, color: "ededed"}
	r.labels = append(r.labels, l)
	return l
}

func findLabel(r *repoState, name string) *labelState {
	for _, l := range r.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// AddWorkflow registers a workflow file (e.g. "ci.yml") that accepts
// workflow_dispatch, and returns its id. A workflow is also known when
// .github/workflows/<file> exists at the dispatched ref (AddFile, AddCommit).
func (s *Server) AddWorkflow(owner, repo, file string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if id, ok := r.workflows[file]; ok {
		return id
	}
	id := s.id()
	r.workflows[file] = id
	return id
}

// AddWorkflowRun adds a workflow run. ID 0 takes a fresh id, returned.
func (s *Server) AddWorkflowRun(owner, repo string, run RunSpec) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if run.ID == 0 {
		run.ID = s.id()
	}
	if run.Name == "" {
		run.Name = "CI"
	}
	if run.Path == "" {
		run.Path = ".github/workflows/ci.yml"
	}
	if run.Event == "" {
		run.Event = "pull_request"
	}
	if run.Status == "" {
		run.Status = "completed"
	}
	if run.Conclusion == "" && run.Status == "completed" {
		run.Conclusion = "success"
	}
	if run.HeadRepoID == 0 {
		run.HeadRepoID = r.id
	}
	if run.HeadRepo == "" {
		run.HeadRepo = r.fullName()
	}
	if run.HeadSHA == "" {
		run.HeadSHA = strings.Repeat("0", 40)
	}
	r.runs[run.ID] = &runState{spec: run, attempt: 1, created: s.now()}
	return run.ID
}

// AddArtifact attaches an artifact (its zip bytes, or raw bytes for an
// unzipped upload) to a run and returns its id.
func (s *Server) AddArtifact(owner, repo string, runID int64, name string, zipBytes []byte) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	run, ok := r.runs[runID]
	if !ok {
		s.t.Fatalf("ghfake: AddArtifact: run %d of %s/%s not added", runID, owner, repo)
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	a := &artifactState{id: s.id(), repo: strings.ToLower(r.fullName()), runID: runID, name: name,
		zip: bytes.Clone(zipBytes), token: hex.EncodeToString(tok[:]), created: s.now()}
	s.artifacts[a.id] = a
	run.artifacts = append(run.artifacts, a.id)
	return a.id
}

// ExpireArtifact marks an artifact expired: listed with expired true, and
// its download answers 410.
func (s *Server) ExpireArtifact(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.artifacts[id]; ok {
		a.expired = true
	}
}

// AddFile makes path at ref (a branch, tag or sha) hold content for
// repos/get-content, e.g. the base branch's .github/gcloop.yml. Files
// added this way take precedence over the git object store.
func (s *Server) AddFile(owner, repo, ref, path string, content []byte) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if r.files[ref] == nil {
		r.files[ref] = map[string][]byte{}
	}
	r.files[ref][strings.TrimPrefix(path, "/")] = bytes.Clone(content)
}

// AddCommit stores files (path → content, mode 100644) as blobs and
// trees, a commit over them with the given parents, and points
// refs/heads/<branch> at it. It returns the commit's real git id.
func (s *Server) AddCommit(owner, repo, branch string, files map[string][]byte, parents ...string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	flat := map[string]fileEntry{}
	for p, content := range files {
		flat[strings.TrimPrefix(p, "/")] = fileEntry{mode: "100644", typ: "blob", sha: r.objects.putBlob(content)}
	}
	tree := r.objects.build(flat)
	sig := Signature{Name: owner, Email: owner + "@users.noreply.github.com", Date: s.now()}
	sha := r.objects.putCommit(&commitObject{tree: tree, parents: parents, author: sig, committer: sig,
		message: "commit on " + branch + "\n", sentAuthor: &sig, sentCommitter: &sig})
	r.refs["heads/"+branch] = sha
	return sha
}

package ghfake

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"sort"
	"strings"
	"time"
)

type userState struct {
	login string
	id    int64
	bot   bool
}

type repoState struct {
	owner, name   string
	id            int64
	defaultBranch string
	perms         map[string]string // lower-case login → level
	issues        map[int]*issueState
	comments      map[int64]*commentState
	labels        []*labelState
	pulls         map[int]*pullState
	runs          map[int64]*runState
	files         map[string]map[string][]byte // ref → path → content
	objects       objectStore
	refs          map[string]string // "heads/main" → sha
	workflows     map[string]int64  // file name → workflow id
	dispatches    []Dispatch
	reruns        []int64
	checkRuns     map[int64]*checkRunState
	statuses      []*statusState
	protected     map[string]bool // branch name → protected (Protect)
}

func (r *repoState) fullName() string { return r.owner + "/" + r.name }

type issueState struct {
	id                int64
	number            int
	title, body       string
	state, reason     string
	author            string
	labels            []string
	pull              bool
	created, updated  time.Time
	closed            time.Time
	comments          int
	locked            bool
	closedBy          string
	authorAssociation string
}

type commentState struct {
	id               int64
	issue            int
	author           string
	body             string
	created, updated time.Time
	reactions        []*reactionState
}

type reactionState struct {
	id      int64
	user    string
	content string
	created time.Time
}

type labelState struct {
	id                 int64
	name, color, descr string
}

type pullState struct {
	spec PullSpec
	id   int64
}

type runState struct {
	spec      RunSpec
	attempt   int
	created   time.Time
	artifacts []int64
}

type artifactState struct {
	id      int64
	repo    string // lower-case full name
	runID   int64
	name    string
	zip     []byte
	token   string
	created time.Time
	expired bool
}

// PullSpec describes a pull request for AddPull.
type PullSpec struct {
	Number int
	Title  string
	Body   string
	User   string // login of the author
	State  string // open (default) or closed
	Draft  bool
	Merged bool
	// HeadSHA and HeadRef are the PR head commit and branch name.
	HeadSHA string
	HeadRef string
	// HeadRepo is the head repository's full name and HeadRepoID its id;
	// they default to the base repository. A HeadRepoID different from the
	// base repository's id makes the PR a fork PR.
	HeadRepo   string
	HeadRepoID int64
	// BaseRef defaults to the repository's default branch.
	BaseRef string
	BaseSHA string
	Labels  []string
}

// RunSpec describes a workflow run for AddWorkflowRun.
type RunSpec struct {
	ID         int64
	Name       string // workflow name, default "CI"
	Path       string // workflow file, default ".github/workflows/ci.yml"
	HeadSHA    string
	HeadBranch string
	Event      string // default "pull_request"
	Status     string // default "completed"
	Conclusion string // default "success"
	// HeadRepoID is the head repository's id (default: the repository);
	// HeadRepo its full name.
	HeadRepoID int64
	HeadRepo   string
	// PullRequests lists the numbers of PRs (added with AddPull) the run
	// belongs to.
	PullRequests []int
}

// IssueSpec describes an issue for AddIssue.
type IssueSpec struct {
	Title  string
	Body   string
	Author string
	Labels []string
	State  string // open (default) or closed
}

// Comment is an issue or PR comment as the fake holds it.
type Comment struct {
	ID        int64
	Issue     int
	Author    string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issue is an issue (or, with IsPull, a PR's issue side) as the fake holds it.
type Issue struct {
	Number      int
	Title       string
	Body        string
	State       string
	StateReason string
	Author      string
	Labels      []string
	IsPull      bool
	Comments    int
}

// Label is a repository label.
type Label struct {
	ID          int64
	Name        string
	Color       string
	Description string
}

// Reaction is a reaction on an issue comment.
type Reaction struct {
	ID      int64
	User    string
	Content string
}

// CommitInfo describes a commit of the object store.
type CommitInfo struct {
	SHA     string
	Message string
	Tree    string
	Parents []string
	// Author and Committer are what the creating request sent; nil when
	// it sent none (GitHub then signs the commit: Verified).
	Author    *Signature
	Committer *Signature
	Verified  bool
}

// Dispatch is one accepted workflow_dispatch.
type Dispatch struct {
	Workflow string // workflow_id as sent: a file name or an id
	Ref      string
	Inputs   map[string]any
	By       string // login of the token's user
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// user returns (creating if needed) the user with login. Logins ending in
// "[bot]" are bots. Callers hold s.mu.
func (s *Server) user(login string) *userState {
	k := strings.ToLower(login)
	if u, ok := s.users[k]; ok {
		return u
	}
	u := &userState{login: login, id: s.id(), bot: strings.HasSuffix(login, "[bot]")}
	s.users[k] = u
	return u
}

// mustRepo returns the repository or fails the test. Callers hold s.mu.
func (s *Server) mustRepo(owner, name string) *repoState {
	s.t.Helper()
	r, ok := s.repos[strings.ToLower(owner+"/"+name)]
	if !ok {
		s.t.Fatalf("ghfake: repository %s/%s not added (call AddRepo first)", owner, name)
	}
	return r
}

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

// Comments returns the comments on an issue or PR, oldest first.
func (s *Server) Comments(owner, repo string, issue int) []Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	var out []Comment
	for _, c := range sortedComments(r, issue) {
		out = append(out, Comment{ID: c.id, Issue: c.issue, Author: c.author, Body: c.body, CreatedAt: c.created, UpdatedAt: c.updated})
	}
	return out
}

func sortedComments(r *repoState, issue int) []*commentState {
	var out []*commentState
	for _, c := range r.comments {
		if c.issue == issue {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// Issues returns the repository's issues, PRs included, by number.
func (s *Server) Issues(owner, repo string) []Issue {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	var out []Issue
	for _, is := range r.issues {
		out = append(out, Issue{Number: is.number, Title: is.title, Body: is.body, State: is.state, StateReason: is.reason,
			Author: is.author, Labels: append([]string(nil), is.labels...), IsPull: is.pull, Comments: is.comments})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// Labels returns the repository's labels in creation order.
func (s *Server) Labels(owner, repo string) []Label {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	var out []Label
	for _, l := range r.labels {
		out = append(out, Label{ID: l.id, Name: l.name, Color: l.color, Description: l.descr})
	}
	return out
}

// Reactions returns the reactions on an issue comment, oldest first.
func (s *Server) Reactions(owner, repo string, commentID int64) []Reaction {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	c, ok := r.comments[commentID]
	if !ok {
		return nil
	}
	var out []Reaction
	for _, re := range c.reactions {
		out = append(out, Reaction{ID: re.id, User: re.user, Content: re.content})
	}
	return out
}

// Ref returns the sha a ref ("heads/main", "refs/heads/main" or a branch
// name) points at, or "".
func (s *Server) Ref(owner, repo, ref string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	ref = strings.TrimPrefix(ref, "refs/")
	if sha, ok := r.refs[ref]; ok {
		return sha
	}
	return r.refs["heads/"+ref]
}

// Commit describes a commit of the object store; SHA is "" if unknown.
func (s *Server) Commit(owner, repo, sha string) CommitInfo {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	obj, ok := r.objects[sha]
	if !ok || obj.commit == nil {
		return CommitInfo{}
	}
	c := obj.commit
	return CommitInfo{SHA: sha, Message: c.message, Tree: c.tree, Parents: append([]string(nil), c.parents...),
		Author: c.sentAuthor, Committer: c.sentCommitter, Verified: c.verified}
}

// TreeFiles returns every file under a tree or commit sha by full path;
// nil if sha is neither.
func (s *Server) TreeFiles(owner, repo, sha string) map[string][]byte {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if obj, ok := r.objects[sha]; ok && obj.commit != nil {
		sha = obj.commit.tree
	}
	flat, err := r.objects.flatten(sha)
	if err != nil {
		return nil
	}
	out := map[string][]byte{}
	for p, f := range flat {
		if b, ok := r.objects[f.sha]; ok && b.typ == "blob" {
			out[p] = bytes.Clone(b.data)
		}
	}
	return out
}

// Dispatches returns the accepted workflow dispatches, in order.
func (s *Server) Dispatches(owner, repo string) []Dispatch {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	return append([]Dispatch(nil), r.dispatches...)
}

// Reruns returns the ids of the runs re-run, in order.
func (s *Server) Reruns(owner, repo string) []int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	return append([]int64(nil), r.reruns...)
}

func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return list
		}
	}
	return append(list, v)
}

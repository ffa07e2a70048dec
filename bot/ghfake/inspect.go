package ghfake

// Reading the world back: what a test asserts after the code under test ran.

import (
	"bytes"
	"sort"
	"strings"
)

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

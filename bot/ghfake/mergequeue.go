package ghfake

import "slices"

// Merge queues: GitHub builds a merge group on a branch
// gh-readonly-queue/<base>/pr-<n>-<parent sha> (AddCommit on that branch
// makes one) and, for a commit that is not on the default branch,
// "List pull requests associated with a commit" answers the open pull
// requests associated with it — for a merge group's commit, those merged
// in it. AssociatePulls says which those are.

// AssociatePulls makes GET /repos/{owner}/{repo}/commits/{sha}/pulls
// also list pull requests numbers for commit sha, as GitHub lists the
// pull requests of a merge group's commit.
func (s *Server) AssociatePulls(owner, repo, sha string, numbers ...int) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	for _, n := range numbers {
		if _, ok := r.pulls[n]; !ok {
			s.t.Fatalf("ghfake: %s/%s has no pull request #%d", owner, repo, n)
		}
	}
	if s.associated == nil {
		s.associated = map[string][]int{}
	}
	key := r.fullName() + "@" + sha
	s.associated[key] = append(s.associated[key], numbers...)
}

// associatedWith reports whether pull request number was associated with
// commit sha of r by AssociatePulls.
func (s *Server) associatedWith(r *repoState, sha string, number int) bool {
	return slices.Contains(s.associated[r.fullName()+"@"+sha], number)
}

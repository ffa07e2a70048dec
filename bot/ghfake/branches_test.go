package ghfake_test

import (
	"context"
	"net/http"
	"testing"
)

func TestRepositoryNamesItsDefaultBranch(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	s.AddCommit(owner, repo, "main", map[string][]byte{"a.go": []byte("package a\n")})
	r, _, err := c.Repositories.Get(context.Background(), owner, repo)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if r.GetDefaultBranch() != "main" || r.GetFullName() != owner+"/"+repo || r.GetID() != 42 {
		t.Errorf("repository %s (id %d), default branch %q; want %s/%s (42) on main", r.GetFullName(), r.GetID(), r.GetDefaultBranch(), owner, repo)
	}
	if _, _, err := c.Repositories.Get(context.Background(), owner, "nothere"); errStatus(err) != http.StatusNotFound {
		t.Errorf("an unknown repository: %v, want 404", err)
	}
}

func TestBranchSaysWhetherItIsProtected(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	main := s.AddCommit(owner, repo, "main", map[string][]byte{"a.go": []byte("package a\n")})
	feature := s.AddCommit(owner, repo, "feature/x", map[string][]byte{"a.go": []byte("package a // x\n")}, main)
	s.Protect(owner, repo, "main", true)
	tests := []struct {
		branch    string
		sha       string
		protected bool
		status    int
	}{
		{"main", main, true, http.StatusOK},
		{"feature/x", feature, false, http.StatusOK},
		{"gone", "", false, http.StatusNotFound},
	}
	for _, tt := range tests {
		b, resp, err := c.Repositories.GetBranch(context.Background(), owner, repo, tt.branch, 0)
		if tt.status != http.StatusOK {
			// go-github's GetBranch follows redirects and returns a plain
			// error: the status is in the response.
			if err == nil || resp == nil || resp.StatusCode != tt.status {
				t.Errorf("branch %s: %v, want %d", tt.branch, err, tt.status)
			}
			continue
		}
		if err != nil {
			t.Fatalf("branch %s: %v", tt.branch, err)
		}
		if b.GetName() != tt.branch || b.GetCommit().GetSHA() != tt.sha || b.GetProtected() != tt.protected {
			t.Errorf("branch %q at %s protected %v; want %q at %s protected %v", b.GetName(), b.GetCommit().GetSHA(), b.GetProtected(), tt.branch, tt.sha, tt.protected)
		}
	}
	s.Protect(owner, repo, "main", false)
	if b, _, err := c.Repositories.GetBranch(context.Background(), owner, repo, "main", 0); err != nil || b.GetProtected() {
		t.Errorf("main after Protect(false): protected %v, %v; want false", b.GetProtected(), err)
	}
}

package ghfake

import (
	"context"
	"strings"
	"testing"
)

// TestStartServesOutsideATest: a fake from Start answers as New's does, a
// misuse of the world-building methods panics naming it, and Close
// returns the violations of the description recorded meanwhile.
func TestStartServesOutsideATest(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = s.Close()
		}
	})
	s.AddRepo("octo", "shop", 100, "main")
	s.AddToken("tok", "dev", false)
	repo, _, err := s.Client("tok").Repositories.Get(context.Background(), "octo", "shop")
	if err != nil || repo.GetDefaultBranch() != "main" {
		t.Fatalf("GET the repository: %v %v", repo, err)
	}

	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "octo/missing not added") {
				t.Errorf("AddPull on a missing repository panicked with %q, want it named", msg)
			}
		}()
		s.AddPull("octo", "missing", PullSpec{Title: "x"})
	}()

	if err := s.Close(); err != nil {
		t.Errorf("Close after conforming requests: %v", err)
	}
	closed = true
}

// TestStartCloseReportsViolations: a request GitHub would refuse is
// returned by Close.
func TestStartCloseReportsViolations(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	s.violation("POST /nowhere: no such operation")
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "GitHub would refuse this: POST /nowhere") {
		t.Errorf("Close = %v, want the violation", err)
	}
}

package imagetest

import (
	"os/exec"
	"testing"
)

// goTool returns the go command on PATH, the one running the tests.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	return p
}

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// binDir makes a PATH directory holding executables of the given names.
func binDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestGitCommandsSayTheyAreCLIOnlyWithoutGit(t *testing.T) {
	t.Parallel()
	notExec := t.TempDir()
	if err := os.WriteFile(filepath.Join(notExec, "git"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		args []string
		want string // the line on stderr
	}{
		{"guard in an image without git", "", []string{"coverage", "guard"},
			"gcloop: gcloop coverage guard is CLI-only: it runs git, not on PATH here"},
		{"guard with a git that is not executable", notExec, []string{"coverage", "guard"},
			"gcloop: gcloop coverage guard is CLI-only: it runs git, not on PATH here"},
		{"cycle without git and sh", "/nonexistent" + string(os.PathListSeparator), []string{"coverage", "cycle", "--test", "t", "--fix", "f", "--coverage", "c.out"},
			"gcloop: gcloop coverage cycle is CLI-only: it runs git and sh, not on PATH here"},
		{"cycle with git but no sh", binDir(t, "git"), []string{"coverage", "cycle", "--test", "t", "--fix", "f", "--coverage", "c.out"},
			"gcloop: gcloop coverage cycle is CLI-only: it runs sh, not on PATH here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			getenv := func(k string) string {
				if k == "PATH" {
					return tt.path
				}
				return ""
			}
			code := Main(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != exitUsage {
				t.Errorf("exit %d; want %d", code, exitUsage)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) || !strings.Contains(lines[0], "go install github.com/gcloop/gcloop/cmd/gcloop@") {
				t.Errorf("stderr %q; want one line starting %q that says how to install gcloop", stderr.String(), tt.want)
			}
			if diff := cmp.Diff("", stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequireToolsFindsExecutablesOnPath(t *testing.T) {
	t.Parallel()
	path := strings.Join([]string{"", t.TempDir(), binDir(t, "git", "sh")}, string(os.PathListSeparator))
	env := &Env{Getenv: func(k string) string {
		if k == "PATH" {
			return path
		}
		return ""
	}}
	if err := requireTools(env, "gcloop coverage cycle", "git", "sh"); err != nil {
		t.Errorf("requireTools with git and sh on PATH: %v", err)
	}
}

// A build of a clone carries a pseudo-version, which names no release:
// the go install line then says @latest.
func TestPseudoVersionsNameNoRelease(t *testing.T) {
	t.Parallel()
	for ver, pseudo := range map[string]bool{
		"v1.2.3": false, "v1.2.3-rc.1": false,
		"v0.0.0-20261127030242-aacadcecb55e": true, "v1.2.4-0.20261127030242-aacadcecb55e": true,
		"v0.0.0-20261127030242-aacadcecb55e+dirty": true,
	} {
		if got := pseudoVersion().MatchString(strings.TrimSuffix(ver, "+dirty")); got != pseudo {
			t.Errorf("%s: pseudo %v, want %v", ver, got, pseudo)
		}
	}
}

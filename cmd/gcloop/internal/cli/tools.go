package cli

import (
	"github.com/gcloop/gcloop/internal/lazyre"
	"os"
	"path/filepath"
	"strings"
)

// requireTools fails with one line (exit 2) when a program the command runs
// is not on PATH: `coverage guard` runs git and `coverage cycle` runs git
// and sh, which the action's image (a static binary on scratch) has not.
// Those commands are CLI-only; the message says how to run them.
func requireTools(env *Env, command string, tools ...string) error {
	var missing []string
	for _, t := range tools {
		if !onPath(env.Getenv("PATH"), t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return usagef("%s is CLI-only: it runs %s, not on PATH here (the action's image has neither git nor sh); run it on a machine with %s, using a release binary or go install github.com/gcloop/gcloop/cmd/gcloop@%s",
		command, strings.Join(missing, " and "), strings.Join(tools, " and "), versionOrLatest())
}

// versionOrLatest is this build's release version for go install, or
// "latest" for a development build.
func versionOrLatest() string {
	if ver := Version(); strings.HasPrefix(ver, "v") && !strings.Contains(ver, "+") && !pseudoVersion().MatchString(ver) {
		return ver
	}
	return "latest" // a build of a clone: its pseudo-version names no release
}

// pseudoVersion finds the timestamp and commit of a Go pseudo-version
// (v0.0.0-20261127030242-aacadcecb55e), which a build from a git checkout
// carries.
var pseudoVersion = lazyre.New(`[-.]\d{14}-[0-9a-f]{12}$`)

// onPath reports whether an executable file name is in a directory of
// the PATH list path. Empty entries (the current directory) do not count.
func onPath(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}

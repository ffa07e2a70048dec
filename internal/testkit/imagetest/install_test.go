package imagetest

import (
	"regexp"
	"strings"
	"testing"
)

// installSection is README.md's "## Install", up to the next heading of its level.
func installSection(t *testing.T) string {
	t.Helper()
	_, rest, ok := strings.Cut(string(readRoot(t, "README.md")), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no ## Install section")
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestReadmeInstallLinesWork: the install lines name this module's command,
// go install module@version can install it (no replace or exclude in
// go.mod, which go install refuses for a versioned package), and what the
// section says of the release binaries and the image is what the release
// workflow builds.
func TestReadmeInstallLinesWork(t *testing.T) {
	t.Parallel()
	gomod := string(readRoot(t, "go.mod"))
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	if d := regexp.MustCompile(`(?m)^\s*(replace|exclude)\b`).FindString(gomod); d != "" {
		t.Errorf("go.mod has a %s directive: go install %s/cmd/gcloop@<version> refuses a module with one", strings.TrimSpace(d), m[1])
	}
	install := installSection(t)
	for _, line := range []string{
		"go install ./cmd/gcloop\n",
		"go install " + m[1] + "/cmd/gcloop@v",
	} {
		if !strings.Contains(install, line) {
			t.Errorf("README.md's Install section has no %q", strings.TrimSpace(line))
		}
	}

	// The build line, its continuations joined.
	release := strings.ReplaceAll(string(readRoot(t, ".github/workflows/release.yml")), "\\\n", " ")
	nobot := regexp.MustCompile(`go build -tags nobot\b[^\n]*-o "dist/gcloop-linux-\$\{GOARCH\}" +\./cmd/gcloop`).MatchString(release)
	for _, row := range []string{"`gcloop-linux-amd64`", "`docker run --rm ghcr.io/gcloop/gcloop:"} {
		var found string
		for _, line := range strings.Split(install, "\n") {
			if strings.HasPrefix(line, "| "+row) || strings.HasPrefix(line, "| the release's "+row) {
				found = line
			}
		}
		switch {
		case found == "":
			t.Errorf("README.md's Install table has no row for %s", row)
		case nobot && !strings.HasSuffix(found, "| no (`-tags nobot`) |"):
			t.Errorf("the release builds with -tags nobot, but README.md's Install row %q does not say the bot is left out", found)
		case !nobot && strings.Contains(found, "nobot"):
			t.Errorf("the release no longer builds with -tags nobot, but README.md's Install row %q says so", found)
		}
	}
	for _, file := range []string{"dist/gcloop-linux-amd64", "dist/gcloop-linux-arm64", "dist/SHA256SUMS"} {
		if !strings.Contains(release, file) || !strings.Contains(install, strings.TrimPrefix(file, "dist/")) {
			t.Errorf("%s: the release workflow attaches it and README.md's Install section names it, or neither", file)
		}
	}
}

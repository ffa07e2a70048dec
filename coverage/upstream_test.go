package coverage

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

// The reference files of other projects' test suites, copied unchanged
// under testdata/upstream/<project>/ (each project's SOURCE.md names the
// repository, commit and licence): gcovr's JaCoCo, Cobertura, Clover and
// LCOV outputs, Sonar's JaCoCo import fixtures and PHPUnit's
// (php-code-coverage) Clover, OpenClover and Cobertura expectations. Every
// one is read by its reader and summarized in testdata/upstream/<project>.golden
// (go test -run TestUpstreamGolden -update rewrites them);
// TestUpstreamMatchesTools holds the summaries to what the tools
// themselves state for the same file.

// upstreamDir holds the upstream fixtures, one directory per project.
const upstreamDir = "testdata/upstream"

// upstreamReader returns the reader of an upstream fixture, chosen by its
// name (sniffing is not what these tests are about), or nil for a file
// that is no fixture: SOURCE.md and the tools' own summaries.
func upstreamReader(project, rel string) func(string, io.Reader) (*decide.CoverageFacts, error) {
	base := path.Base(rel)
	switch {
	case strings.HasSuffix(base, ".lcov"):
		return ReadLCOV
	case !strings.HasSuffix(base, ".xml"):
		return nil
	case project == "sonar-jacoco", strings.HasPrefix(base, "jacoco"):
		return ReadJaCoCo
	case strings.HasPrefix(base, "clover"), strings.Contains(rel, "/Clover/"), strings.Contains(rel, "/OpenClover/"):
		return ReadClover
	case strings.HasPrefix(base, "cobertura"), strings.Contains(rel, "/Cobertura/"):
		return ReadCobertura
	}
	return nil
}

// upstreamFixture is one fixture file of a project, read.
type upstreamFixture struct {
	rel   string // path under the project's directory, slash-separated
	data  []byte
	facts *decide.CoverageFacts
	err   error
}

// summary is the fixture's line of the golden file.
func (f upstreamFixture) summary() string {
	if f.err != nil {
		return fmt.Sprintf("%s\terror: %v", f.rel, f.err)
	}
	return fmt.Sprintf("%s\t%s %d/%d lines, %d files", f.rel, f.facts.Format, f.facts.Covered, f.facts.Total, len(f.facts.Files))
}

// upstreamProjects lists the project directories under testdata/upstream.
func upstreamProjects(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(upstreamDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatalf("no project under %s", upstreamDir)
	}
	return out
}

// readUpstream reads every fixture of a project, in path order.
func readUpstream(t *testing.T, project string) []upstreamFixture {
	t.Helper()
	root := filepath.Join(upstreamDir, project)
	var out []upstreamFixture
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(r)
		read := upstreamReader(project, rel)
		if read == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		facts, rerr := read(path.Base(rel), bytes.NewReader(data))
		out = append(out, upstreamFixture{rel: rel, data: data, facts: facts, err: rerr})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	if len(out) == 0 {
		t.Fatalf("%s: no fixture", root)
	}
	return out
}

func TestUpstreamGolden(t *testing.T) {
	t.Parallel()
	for _, project := range upstreamProjects(t) {
		t.Run(project, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			for _, f := range readUpstream(t, project) {
				b.WriteString(f.summary())
				b.WriteByte('\n')
			}
			golden := filepath.Join(upstreamDir, project+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

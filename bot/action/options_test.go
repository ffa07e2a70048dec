package action

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func inputs(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestGatherDefaults(t *testing.T) {
	t.Parallel()
	o, err := Gather(inputs(map[string]string{"token": "t"}))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Comment || o.DryRun || o.FailOn != "never" || o.Config != ".github/gcloop.yml" || o.Timeout != 5*time.Minute {
		t.Errorf("defaults: %+v", o)
	}
	if o.Overrides.Issues != nil || o.Overrides.Commit != nil || o.Overrides.MaxRounds != nil {
		t.Errorf("overrides set without inputs: %+v", o.Overrides)
	}
}

func TestGatherReadsEveryInput(t *testing.T) {
	t.Parallel()
	o, err := Gather(inputs(map[string]string{
		"loop": "Coverage", "id": "cov-web", "evidence": "a.info\n\n  results/*.json \n", "artifacts": "junit\ncoverage",
		"run-id": "42", "max-rounds": "4", "threshold": "8.5", "target": "70", "layer": "l2", "stall": "0",
		"issues": "false", "labels": "a, b\nc", "commit": "true", "test-patterns": "*_test.go,tests/**",
		"dispatch": "cov.yml", "comment": "false", "fail-on": "escalate", "config": "ci/gc.yml", "timeout": "90s",
		"dry-run": "true", "discoveries": "d.ndjson", "baseline": "base/go-test.json",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if o.Loop != decide.Coverage || o.ID != "cov-web" || o.RunID != 42 || o.Comment || !o.DryRun ||
		o.FailOn != "escalate" || o.Config != "ci/gc.yml" || o.Timeout != 90*time.Second || o.Discoveries != "d.ndjson" ||
		o.Baseline != "base/go-test.json" {
		t.Errorf("options: %+v", o)
	}
	if diff := cmp.Diff([]string{"a.info", "results/*.json"}, o.Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	ov := o.Overrides
	if *ov.MaxRounds != 4 || *ov.Threshold != 8.5 || *ov.Target != 70 || *ov.Layer != "L2" || *ov.Stall != 0 ||
		*ov.Issues || !*ov.Commit || *ov.Dispatch != "cov.yml" {
		t.Errorf("overrides: %+v", ov)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, ov.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"*_test.go", "tests/**"}, ov.TestPatterns); diff != "" {
		t.Errorf("test patterns (-want +got):\n%s", diff)
	}
}

func TestGatherNamesEveryBadInput(t *testing.T) {
	t.Parallel()
	_, err := Gather(inputs(map[string]string{"loop": "lint", "max-rounds": "three", "comment": "yes",
		"fail-on": "always", "timeout": "soon", "run-id": "-1", "layer": "L9", "id": "a b"}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"input loop", "input max-rounds", "input comment", "input fail-on", "input timeout", "input run-id", "input layer", "input id"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestGatherRefusesBadIDs(t *testing.T) {
	t.Parallel()
	for _, id := range []string{".", "..", "Review", "cov.api", "-x", strings.Repeat("a", 33), "a/b"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			_, err := Gather(inputs(map[string]string{"id": id}))
			if err == nil || !strings.Contains(err.Error(), "input id") || !strings.Contains(err.Error(), decide.IDRule) {
				t.Errorf("Gather(id %q) error = %v, want one naming input id and the rule", id, err)
			}
		})
	}
}

func TestWorkspaceFilesGlobs(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, rel := range []string{"results/run-L1.json", "results/sub/run.json", "junit.xml", "a/b/junit.xml",
		"reports/a/b.xml", "reports/x.sarif", "sub/lcov.info", ".git/junit.xml"} {
		writeFile(t, ws, rel, "x")
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"results/*.json", []string{"results/run-L1.json"}},
		{"**/junit.xml", []string{"a/b/junit.xml", "junit.xml"}},
		{"reports/**", []string{"reports/a/b.xml", "reports/x.sarif"}},
		{"reports/**/*.sarif", []string{"reports/x.sarif"}},
		{"*.info", nil}, // matches nothing: an error
		{"{results,reports}/*.{json,sarif}", []string{"reports/x.sarif", "results/run-L1.json"}},
		{"missing/**/*.xml", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			got, err := workspaceFiles(ws, []string{tt.pattern})
			if tt.want == nil {
				want := "evidence " + tt.pattern + ": matched no file in the workspace " + ws
				if err == nil || err.Error() != want {
					t.Fatalf("workspaceFiles(%q) = %q, %v; want the error %q", tt.pattern, got, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("workspaceFiles(%q) (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
}

// writeFile writes a file under dir, making its directories.
func writeFile(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWorkspaceFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("review-results.json", `{"review_score": 8, "findings": []}`)
	write("out/a.sarif", `{"version":"2.1.0","runs":[]}`)
	write("out/notes.txt", "not evidence")
	write(".git/x.json", `{"review_score": 1}`)
	files, err := workspaceFiles(ws, []string{"review-results.json", "out", "**/*.json", filepath.Join(ws, "out", "a.sarif")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"review-results.json", "out/a.sarif"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ pattern, want string }{
		{"missing.xml", "evidence missing.xml: not found in the workspace " + ws},
		{"out/notes.txt/..", ""}, // the directory out itself: found
		{"empty", "evidence empty: no file in the directory is in a format gcloop reads"},
		{"../etc/passwd", `evidence "../etc/passwd": outside the workspace ` + ws + "; want a path relative to it, or an absolute path inside it"},
		{"/etc/passwd", `evidence "/etc/passwd": outside the workspace ` + ws + "; want a path relative to it, or an absolute path inside it"},
	} {
		if err := os.MkdirAll(filepath.Join(ws, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := workspaceFiles(ws, []string{"review-results.json", tt.pattern})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("workspaceFiles(%q): %v", tt.pattern, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("workspaceFiles(%q) error %v, want %q", tt.pattern, err, tt.want)
		}
	}
}

package evidence

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The test results of the unchanged head — handed over beside a patch as
// gcloop-baseline.*, or named by the baseline input — and the patch are
// the guard's, never evidence of the round: read as evidence, the
// baseline's tests would count as this round's.
func TestWorkspaceFilesPassTheBaselineAndThePatchOver(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	junit := `<testsuite name="s" tests="1"><testcase name="TestA"/></testsuite>`
	writeFile(t, ws, "results/junit.xml", junit)
	writeFile(t, ws, "results/gcloop-baseline.xml", junit)
	writeFile(t, ws, "results/before.xml", junit)
	writeFile(t, ws, "results/gcloop-changes.patch", "diff --git a/x_test.go b/x_test.go\n")
	tests := []struct {
		name     string
		patterns []string
		except   []string
		want     []string
		err      string
	}{
		{"a directory", []string{"results"}, []string{"results/before.xml"}, []string{"results/junit.xml"}, ""},
		{"a glob", []string{"results/*"}, []string{"./results/before.xml"}, []string{"results/junit.xml"}, ""},
		{"a baseline outside the workspace is no exception", []string{"results/*.xml"}, []string{"../before.xml"},
			[]string{"results/before.xml", "results/junit.xml"}, ""},
		{"the handed-over baseline named", []string{"results/gcloop-baseline.xml"}, nil, nil, "never evidence"},
		{"the baseline input named", []string{"results/before.xml"}, []string{"results/before.xml"}, nil, "never evidence"},
		{"a glob of baselines only", []string{"results/gcloop-*"}, nil, nil, "matched only a baseline or a patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := OpenWorkspace(ws)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.Except(tt.except...)
			got, err := w.Files(tt.patterns)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Files(%q) = %v, %v; want an error about %q", tt.patterns, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Files(%q) (-want +got):\n%s", tt.patterns, diff)
			}
		})
	}
}

package evidence

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The action writes its files under .gcloop/<id>/ in the workspace: the
// next round must never read the last round's tasks or decision as
// evidence, whether the evidence is a directory, a glob or a path.
func TestWorkspaceFilesNeverPickGcloopsOwnOutput(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	review := `{"review_score": 8, "findings": []}`
	writeFile(t, ws, "review-results.json", review)
	writeFile(t, ws, ".gcloop/review/tasks.json", `{"tasks":[{"id":"FIX-1","file":"a.go"}]}`)
	writeFile(t, ws, ".gcloop/review/decision.json", review)
	writeFile(t, ws, "sub/.gcloop/review/decision.json", review)
	tests := []struct {
		name     string
		patterns []string
		want     []string
		err      string
	}{
		{"the workspace as a directory", []string{"."}, []string{"review-results.json"}, ""},
		{"a glob over the workspace", []string{"**/*.json"}, []string{"review-results.json"}, ""},
		{"a named file inside .gcloop", []string{".gcloop/review/decision.json"}, nil, ".gcloop/ holds gcloop's own output files, never evidence"},
		{"a glob inside .gcloop", []string{".gcloop/**"}, nil, ".gcloop/ holds gcloop's own output files"},
		{"the directory .gcloop", []string{"./.gcloop"}, nil, ".gcloop/ holds gcloop's own output files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := workspaceFiles(ws, tt.patterns)
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

package action_test

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// A path the user named that does not exist is an error naming it, in
// every loop: a typo never lets a loop decide without its evidence (a
// critique would converge on nothing), and nothing is written to GitHub.
func TestActionMissingEvidenceIsAnErrorInEveryLoop(t *testing.T) {
	t.Parallel()
	for _, loop := range []string{"review", "critique", "audit", "validation", "coverage"} {
		for _, evidence := range []string{"testdata/examples/critque/tasks.csv", "reports/**/*.typo"} {
			t.Run(loop+" "+evidence, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, nil)
				from := len(w.gh.Requests())
				r := w.runAction(step{inputs: map[string]string{"loop": loop, "evidence": evidence}})
				if r.code != 1 {
					t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				last := lines[len(lines)-1]
				if !strings.Contains(last, "evidence "+evidence+": ") || !strings.Contains(last, "in the workspace") {
					t.Errorf("stderr's last line %q does not name the missing %s", last, evidence)
				}
				if r.outputs["decision"] != "" {
					t.Errorf("decision output %q, want none", r.outputs["decision"])
				}
				if m := w.mutations(from); len(m) != 0 {
					t.Errorf("wrote to GitHub: %v", m)
				}
			})
		}
	}
}

// A file that is no critique data given as critique evidence converges, as
// the loop's rules say, but never as a plain green: the lead line says
// why, a ::warning names the file, and the check run is neutral — unless
// the repository's configuration makes it success.
func TestActionCritiqueWithoutDataIsNeutral(t *testing.T) {
	t.Parallel()
	pkg := `{"name": "shop", "version": "1.0.0"}`
	for _, tt := range []struct {
		name, config, conclusion string
	}{
		{"by default", "", "neutral"},
		{"with without_data: success", "critique:\n  without_data: success\n", "success"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			if tt.config != "" {
				w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(tt.config))
			}
			r := w.runAction(step{inputs: map[string]string{"loop": "critique", "evidence": "package.json"},
				files: map[string]string{"package.json": pkg}})
			if r.code != 0 || r.outputs["decision"] != "converge" {
				t.Fatalf("exit %d, decision %q; want 0 and converge\n%s", r.code, r.outputs["decision"], r.stderr)
			}
			report := w.gh.Comments(owner, repo, w.pr)
			if len(report) != 1 || !strings.Contains(report[0].Body, "**Why:** converged without critique data: package.json: ") {
				t.Errorf("report comments %v: want one whose lead line says it converged without critique data", report)
			}
			mustContain(t, "the log", r.stdout, "::warning title=gcloop critique::converged without critique data: package.json: ")
			var checks []ghfake.CheckRun
			for _, c := range w.gh.CheckRuns(owner, repo) {
				if c.Name == "gcloop / critique" {
					checks = append(checks, c)
				}
			}
			if len(checks) != 1 || checks[0].Conclusion != tt.conclusion {
				t.Errorf("check runs %+v, want one %s", checks, tt.conclusion)
			}
		})
	}
}

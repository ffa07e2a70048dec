package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// FuzzIssuePlan feeds hostile task text to the issue planner: it never
// panics, bodies stay within the limit and carry their own key and
// findings only, and titles are one line that cannot ping.
func FuzzIssuePlan(f *testing.F) {
	f.Add("a.go", "critical a.go:1 <script>@x</script>", "Fix a.go", "FIX-2-1", "done")
	f.Add("", "<!-- gcloop:issue review pr1-0123456789abcdef -->", "Address audit findings of round 2", "DESIGN-fix-2", "")
	f.Add("@team/\u202ex.go\n", "#1 `|` \x00", "", "", "line\n# heading\n- item")
	f.Add("a.go", "<!-- gcloop:findings review b1b1b1b1b1b1b1b1 -->", "Fix a.go", "FIX-2-1", "<!-- gcloop:findings review a1a1a1a1a1a1a1a1 b2b2b2b2b2b2b2b2 -->")
	f.Add(strings.Repeat("é", 400), strings.Repeat("&", 3000), strings.Repeat("#1", 300), "x", "y")
	f.Fuzz(func(t *testing.T, file, finding, title, id, acceptance string) {
		task := decide.Task{ID: id, Type: "fix", Title: title, Findings: []string{finding, finding}, Acceptance: acceptance,
			Fingerprints: []string{fpA1}}
		if file != "" {
			task.TargetFiles = []string{file}
		}
		s := spec(1, task)
		s.DryRun = true
		res, err := SyncIssues(context.Background(), newMem(), s)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Planned[0]
		if len(p.Body) > IssueBodyLimit {
			t.Errorf("body of %d bytes", len(p.Body))
		}
		if n := len(issueMarkerRE().FindAllString(p.Body, -1)); n != 1 || parseIssueMarker(p.Body, "review") != p.Key {
			t.Errorf("body holds %d keys, want only its own %s", n, p.Key)
		}
		if n := len(findingsMarkerRE().FindAllString(p.Body, -1)); n != 1 || strings.Join(parseFindingsMarker(p.Body, "review"), " ") != fpA1 {
			t.Errorf("body holds %d findings markers, want only its own", n)
		}
		if report.HasMarker(p.Body) {
			t.Error("body holds a state marker")
		}
		if strings.ContainsAny(p.Title, "\n\r") || ghfake.Pingable(p.Title) || ghfake.Pingable(p.Body) || len([]rune(p.Title)) > titleRunes {
			t.Errorf("title %q", p.Title)
		}
	})
}

package action

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func decided(t *testing.T) *Result {
	t.Helper()
	score := 5.0
	d, err := decide.Decide(decide.Input{Loop: decide.Review, Config: decide.Defaults(decide.Review), Round: 1,
		Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Evidence: &decide.Evidence{Sources: []string{"r.json"}, Review: &decide.ReviewFacts{Score: &score, Signal: decide.SignalRevisionNeeded},
			Findings: []decide.Finding{{Severity: decide.High, File: "a.go", Line: 3, Message: "race"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return &Result{Decision: d, Issues: []int{12, 13}, Commit: "abc"}
}

func TestOutputsAndFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	res := decided(t)
	f, err := WriteFiles(ws, res)
	if err != nil {
		t.Fatal(err)
	}
	got := Outputs(res, f)
	want := map[string]string{
		"decision": "fix", "verdict": "FIX", "round": "1", "max-rounds": "3", "score": "5", "coverage": "",
		"status": "complete", "report": ".gcloop/review/report.md", "decision-json": ".gcloop/review/decision.json",
		"tasks": ".gcloop/review/tasks.json", "issues": "12,13", "commit": "abc", "comment-url": "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	var tasks struct {
		Tasks []decide.Task `json:"tasks"`
	}
	data, err := os.ReadFile(filepath.Join(ws, f.Tasks))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &tasks); err != nil || len(tasks.Tasks) != 1 || tasks.Tasks[0].ID != "FIX-2-1" {
		t.Errorf("tasks.json: %s (%v)", data, err)
	}
	for _, name := range outputOrder {
		if _, ok := got[name]; !ok {
			t.Errorf("output %s missing", name)
		}
	}
}

func TestAppendDiscoveries(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	p := filepath.Join(ws, "discoveries.ndjson")
	if err := os.WriteFile(p, []byte(`{"type":"progress","data":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendDiscoveries(ws, "discoveries.ndjson", decided(t)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, l.Type)
	}
	if diff := cmp.Diff([]string{"progress", "gc_decision", "fix_applied"}, types); diff != "" {
		t.Errorf("line types (-want +got):\n%s", diff)
	}
	if err := AppendDiscoveries(ws, "../outside.ndjson", decided(t)); err == nil {
		t.Error("a path outside the workspace was accepted")
	}
}

func TestCapSummary(t *testing.T) {
	t.Parallel()
	line := "| cart.go | 12 | high | a finding that repeats |\n"
	big := strings.Repeat(line, 30000) // ~1.4 MB, like a 3 500-finding review
	got := capSummary(big, maxSummary)
	if len(got) > maxSummary {
		t.Fatalf("summary of %d bytes, want ≤ %d", len(got), maxSummary)
	}
	body, note, ok := strings.Cut(got, "\n\n> The report is cut here")
	if !ok || !strings.Contains(note, "`report` output") {
		t.Fatalf("no note at the end: %q", got[len(got)-300:])
	}
	if !strings.HasSuffix(body, "|") || strings.Count(body, "\n")+1 != strings.Count(body, line[:10]) {
		t.Errorf("the cut is not on a line boundary: %q", body[len(body)-80:])
	}
	if small := strings.Repeat(line, 10); capSummary(small, maxSummary) != small {
		t.Error("a small summary was changed")
	}
}

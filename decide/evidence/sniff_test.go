package evidence

import (
	"strings"
	"testing"
)

func TestSniffers(t *testing.T) {
	t.Parallel()
	sniffers := map[string]func([]byte) bool{
		"reviewjson":  isReviewJSON,
		"reviewmd":    isReviewMarkdown,
		"taskscsv":    isTasksCSV,
		"discoveries": isDiscoveries,
		"auditmd":     isAuditMarkdown,
	}
	for _, tc := range []struct {
		name string
		head string
		want string // the one sniffer that must say yes; "" for none
	}{
		{"review results JSON", "{\n  \"review_score\": 7,\n  \"gc_signal\": \"CONVERGED\"}", "reviewjson"},
		{"an agent result with a gc_signal", `{"id":"REVIEW-001","status":"completed","gc_signal":"CONVERGED"}`, "reviewjson"},
		{"a review report", "# Code Review — Round 1\n\n**Quality Score**: 8/10\n", "reviewmd"},
		{"a findings list alone", "Notes\n\n- **[HIGH]** Token expiry (src/a.ts:4)\n", "reviewmd"},
		{"a tasks.csv with review columns", "id,title,status,findings,review_score,gc_signal,error\n1,a,pending,,,,\n", "taskscsv"},
		{"a tasks.csv with a BOM and quoted header", "\ufeff\"id\",\"severity_summary\"\n", "taskscsv"},
		{"a discoveries log", `{"ts":"2026-03-08T10:00:00Z","worker":"A","type":"review_finding","data":{}}` + "\n", "discoveries"},
		{"a discoveries log whose first line is cut", `{"ts":"2026","type":"critique","data":{"challenge":"` + strings.Repeat("x", 100), "discoveries"},
		{"an audit report", "# Design Audit Report: AUDIT-001\n\n## Overall Score: 8.4/10\n", "auditmd"},
		{"an audit report with only a verdict", "Summary\n\n## Verdict: audit_passed\n", "auditmd"},
		{"an audit heading with counted sections", "# UI audit\n\n### Critical (0)\n(none)\n", "auditmd"},
		{"a README is none of them", "# Project\n\nSome text with [link](x).\n", ""},
		{"a SARIF log is none of them", `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[]}`, ""},
		{"a CSV without loop columns is none of them", "id,title,status\n", ""},
		{"a JSON array is none of them", `[{"type":"x"}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for name, sniff := range sniffers {
				if got := sniff([]byte(tc.head)); got != (name == tc.want) {
					t.Errorf("%s = %v, want %v", name, got, name == tc.want)
				}
			}
		})
	}
}

func TestSniffersOnFixtures(t *testing.T) {
	t.Parallel()
	for file, sniff := range map[string]func([]byte) bool{
		"review-results.json":  isReviewJSON,
		"review-002.md":        isReviewMarkdown,
		"tasks-iterdev.csv":    isTasksCSV,
		"tasks-brainstorm.csv": isTasksCSV,
		"tasks-uidesign.csv":   isTasksCSV,
		"discoveries.ndjson":   isDiscoveries,
		"audit-001.md":         isAuditMarkdown,
	} {
		if !sniff(lnHead(t, file)) {
			t.Errorf("%s is not recognised", file)
		}
	}
	if isReviewMarkdown(lnHead(t, "audit-001.md")) {
		t.Error("audit-001.md sniffs as a review report")
	}
}

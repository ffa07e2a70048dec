package coverage

import (
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestMergeFacts(t *testing.T) {
	t.Parallel()
	goFacts := &decide.CoverageFacts{Format: "goprofile", Covered: 3, Total: 4, Files: []decide.FileCoverage{
		{Path: "a.go", Covered: 3, Total: 4},
	}}
	lcovFacts := &decide.CoverageFacts{Format: "lcov", Covered: 6, Total: 10, Layer: "L1", Files: []decide.FileCoverage{
		{Path: "web/x.ts", Covered: 5, Total: 5}, {Path: "a.go", Covered: 1, Total: 5},
	}}
	tests := []struct {
		name string
		a, b *decide.CoverageFacts
		want *decide.CoverageFacts
	}{
		{"nothing merged with nothing is nothing", nil, nil, nil},
		{"one report alone is copied", goFacts, nil, goFacts},
		{
			name: "distinct files add up and a shared path keeps the entry with more lines",
			a:    goFacts, b: lcovFacts,
			want: &decide.CoverageFacts{Format: "goprofile+lcov", Layer: "L1", Covered: 6, Total: 10, Files: []decide.FileCoverage{
				{Path: "a.go", Covered: 1, Total: 5}, {Path: "web/x.ts", Covered: 5, Total: 5},
			}},
		},
		{
			name: "two stated percentages keep the higher",
			a:    &decide.CoverageFacts{Format: "run-json", Percent: ptr(40.0)},
			b:    &decide.CoverageFacts{Format: "run-json", Percent: ptr(60.0), Framework: "pytest"},
			want: &decide.CoverageFacts{Format: "run-json", Percent: ptr(60.0), Framework: "pytest"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, MergeFacts(tt.a, tt.b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeTests(t *testing.T) {
	t.Parallel()
	a := &decide.TestFacts{Passed: 2, Failed: 1, PassRate: ptr(0.5), Cases: []decide.TestCase{{Name: "x", Status: decide.Failed}}}
	b := &decide.TestFacts{Passed: 1, Skipped: 4}
	want := &decide.TestFacts{Passed: 3, Failed: 1, Skipped: 4, Cases: []decide.TestCase{{Name: "x", Status: decide.Failed}}}
	if diff := cmp.Diff(want, MergeTests(a, b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(a, MergeTests(nil, a)); diff != "" {
		t.Errorf("alone (-want +got):\n%s", diff)
	}
}

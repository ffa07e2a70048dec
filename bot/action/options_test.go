package action

import (
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

package evidence

import "testing"

func TestRoleOfTellsThePatchAndTheBaselineByName(t *testing.T) {
	t.Parallel()
	junit := []byte(`<?xml version="1.0"?><testsuites><testsuite name="x" tests="1"></testsuite></testsuites>`)
	tests := []struct {
		name string
		head []byte
		want Role
	}{
		{"gcloop-changes.patch", []byte("diff --git a/x_test.go b/x_test.go\n"), Patch},
		{"out/gcloop-changes.patch", nil, Patch},
		{"gcloop-baseline.xml", junit, Baseline},
		{"dir/gcloop-baseline.json", []byte(`{"Action":"start","Package":"x"}`), Baseline},
		{"junit.xml", junit, Evidence},
		{"changes.patch", []byte("diff --git a/x b/x\n"), Passed},
		{"gcloop-changes.patch.txt", []byte("diff --git a/x b/x\n"), Passed},
		{"notes.txt", []byte("hello"), Passed},
	}
	for _, tt := range tests {
		if got := RoleOf(tt.name, tt.head); got != tt.want {
			t.Errorf("RoleOf(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

package decide

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"review", true},
		{"cov-api", true},
		{"a_b-2", true},
		{"0", true},
		{strings.Repeat("a", 32), true},
		{strings.Repeat("a", 33), false},
		{"", false},
		{".", false},
		{"..", false},
		{"cov.api", false},
		{"Review", false},
		{"-x", false},
		{"_x", false},
		{"a b", false},
		{"a/b", false},
		{"a\n", false},
		{"é", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			if got := ValidID(tt.id); got != tt.want {
				t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"review", "..", ".", "a.b", "A", "-a", strings.Repeat("z", 32), "a\x00", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !ValidID(id) {
			return
		}
		// A valid id is safe as one path segment, in a marker, a label
		// and a check name.
		if len(id) < 1 || len(id) > 32 || id == "." || id == ".." || filepath.Base(id) != id || filepath.Clean(id) != id {
			t.Fatalf("ValidID(%q) = true for an id unsafe as a path segment", id)
		}
		for i, r := range id {
			lower, digit := r >= 'a' && r <= 'z', r >= '0' && r <= '9'
			if !lower && !digit && (i == 0 || (r != '-' && r != '_')) {
				t.Fatalf("ValidID(%q) = true with %q at %d", id, r, i)
			}
		}
	})
}

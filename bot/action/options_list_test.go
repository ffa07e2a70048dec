package action

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGatherListInputs: every list input takes commas and newlines,
// trims spaces and drops empty entries.
func TestGatherListInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		want        []string
	}{
		{"commas", "a.json,b.json", []string{"a.json", "b.json"}},
		{"commas and spaces", " a.json , b.json ", []string{"a.json", "b.json"}},
		{"newlines", "a.json\nb.json\n", []string{"a.json", "b.json"}},
		{"both", "a.json, b.json\n  results/*.xml\n", []string{"a.json", "b.json", "results/*.xml"}},
		{"CRLF", "a.json\r\nb.json\r\n", []string{"a.json", "b.json"}},
		{"empty entries", ",,a.json,\n\n, ,b.json,", []string{"a.json", "b.json"}},
		{"only separators", " , \n ,", nil},
		{"spaces inside kept", "my dir/a.json", []string{"my dir/a.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := Gather(inputs(map[string]string{"evidence": tt.value, "artifacts": tt.value,
				"labels": tt.value, "test-patterns": tt.value}))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{"evidence": o.Evidence, "artifacts": o.Artifacts}
			if tt.want != nil { // unset list overrides stay nil
				got["labels"], got["test-patterns"] = o.Overrides.Labels, o.Overrides.TestPatterns
			}
			for name, g := range got {
				if diff := cmp.Diff(tt.want, g); diff != "" {
					t.Errorf("input %s %q (-want +got):\n%s", name, tt.value, diff)
				}
			}
		})
	}
}

// TestGatherOneErrorPerInput: each unusable input is an error of its own
// naming it, and the joined message names them all on one line.
func TestGatherOneErrorPerInput(t *testing.T) {
	t.Parallel()
	_, err := Gather(inputs(map[string]string{"loop": "lint", "max-rounds": "three", "comment": "yes",
		"fail-on": "always", "timeout": "soon"}))
	var ies InputErrors
	if !errors.As(err, &ies) {
		t.Fatalf("Gather error %v (%T), want InputErrors", err, err)
	}
	var names []string
	for _, e := range ies {
		names = append(names, e.Name)
		if strings.ContainsAny(e.Error(), "\n;") || !strings.HasPrefix(e.Error(), "input "+e.Name+": ") {
			t.Errorf("error %q: want one line starting with input %s", e.Error(), e.Name)
		}
	}
	if diff := cmp.Diff([]string{"loop", "comment", "fail-on", "timeout", "max-rounds"}, names); diff != "" {
		t.Errorf("bad inputs (-want +got):\n%s", diff)
	}
	want := `input comment: "yes": want true or false`
	if !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "; ") != 4 {
		t.Errorf("message %q: want the five errors joined by \"; \", with %q", err, want)
	}
}

// FuzzSplitList: a list input never yields an empty entry, an entry with
// a separator or surrounding spaces, whatever the runner hands over.
func FuzzSplitList(f *testing.F) {
	for _, s := range []string{"a,b", "a\nb", " a , b \r\n,,c", "", ",", "x\x00y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range splitList(s) {
			if p == "" || p != strings.TrimSpace(p) || strings.ContainsAny(p, ",\n\r") {
				t.Errorf("splitList(%q) has entry %q", s, p)
			}
		}
	})
}

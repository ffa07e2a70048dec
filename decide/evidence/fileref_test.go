package evidence

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitFileLine(t *testing.T) {
	t.Parallel()
	type out struct {
		File string
		Line int
		OK   bool
	}
	for _, tc := range []struct {
		name, in string
		want     out
	}{
		{"a path and line split at the colon", "src/a.ts:42", out{"src/a.ts", 42, true}},
		{"a column after the line is dropped", "src/a.go:42:7", out{"src/a.go", 42, true}},
		{"a line range keeps its first line", "src/x.tsx:42-50", out{"src/x.tsx", 42, true}},
		{"backticks are trimmed", "`src/a.ts:3`", out{"src/a.ts", 3, true}},
		{"a path without line is all path", "src/a.ts", out{"src/a.ts", 0, true}},
		{"a windows drive is not a line", `C:\src\a.go:9`, out{`C:\src\a.go`, 9, true}},
		{"a non-numeric tail is part of the path", "http://host/x", out{"http://host/x", 0, true}},
		{"an empty value is not ok", " ", out{"", 0, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, l, ok := lnSplitFileLine(tc.in)
			if d := cmp.Diff(tc.want, out{f, l, ok}); d != "" {
				t.Errorf("lnSplitFileLine(%q) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}

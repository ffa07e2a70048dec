package guard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// addedLines lists the 1-based numbers of added new lines and deleted old
// lines.
func addedLines(old, new string) (added, deleted []int) {
	a, d := lineDiff(splitLines([]byte(old)), splitLines([]byte(new)))
	for i, x := range a {
		if x {
			added = append(added, i+1)
		}
	}
	for i, x := range d {
		if x {
			deleted = append(deleted, i+1)
		}
	}
	return added, deleted
}

func TestLineDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		old, new    string
		wantAdded   []int
		wantDeleted []int
	}{
		{"identical contents differ nowhere", "a\nb\n", "a\nb\n", nil, nil},
		{"a new file is all added", "", "a\nb\n", []int{1, 2}, nil},
		{"an emptied file is all deleted", "a\nb\n", "", nil, []int{1, 2}},
		{"a line inserted in the middle", "a\nb\nc\n", "a\nb\nX\nc\n", []int{3}, nil},
		{"a line changed", "a\nb\nc\n", "a\nB\nc\n", []int{2}, []int{2}},
		{"a block appended after a repeated line", "}\n", "}\nfunc X() {\n}\n", []int{2, 3}, nil},
		{"lines swapped", "a\nb\n", "b\na\n", []int{2}, []int{1}},
		{"CRLF endings equal LF endings", "a\r\nb\r\n", "a\nb\n", nil, nil},
		{"a missing final newline is the same line", "a\nb", "a\nb\n", nil, nil},
		{"an interleaved edit", "a\nb\nc\nd\ne\n", "a\nX\nc\nY\ne\nZ\n", []int{2, 4, 6}, []int{2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			added, deleted := addedLines(tt.old, tt.new)
			if diff := cmp.Diff(tt.wantAdded, added); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeleted, deleted); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineDiffFallsBackOnHugeEdits(t *testing.T) {
	t.Parallel()
	var old, new strings.Builder
	for i := 0; i < 3000; i++ {
		old.WriteString("old line\n")
		new.WriteString("new line\n")
	}
	new.WriteString("old line\n")
	added, deleted := addedLines(old.String(), new.String())
	if len(added) != 3000 || len(deleted) != 2999 {
		t.Errorf("got %d added and %d deleted lines, want 3000 and 2999", len(added), len(deleted))
	}
}

// lcs is the textbook dynamic program, for checking the diff.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] > cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

// checkDiff verifies that the kept lines of both sides are equal sequences
// and, when exact is set, that the diff is minimal.
func checkDiff(t *testing.T, old, new []string, exact bool) {
	t.Helper()
	added, deleted := lineDiff(old, new)
	var keptOld, keptNew []string
	for i, d := range deleted {
		if !d {
			keptOld = append(keptOld, old[i])
		}
	}
	for i, a := range added {
		if !a {
			keptNew = append(keptNew, new[i])
		}
	}
	if diff := cmp.Diff(keptOld, keptNew); diff != "" {
		t.Fatalf("kept lines differ (-old +new):\n%s", diff)
	}
	if exact {
		if want := lcs(old, new); len(keptOld) != want {
			t.Fatalf("diff keeps %d lines, the longest common subsequence has %d", len(keptOld), want)
		}
	}
}

func TestLineDiffIsMinimal(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "b", "c", "}"}
	// A deterministic walk over many small inputs.
	seed := uint32(1)
	next := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	for n := 0; n < 500; n++ {
		old := make([]string, next()%12)
		for i := range old {
			old[i] = alphabet[next()%uint32(len(alphabet))]
		}
		new := make([]string, next()%12)
		for i := range new {
			new[i] = alphabet[next()%uint32(len(alphabet))]
		}
		checkDiff(t, old, new, true)
	}
}

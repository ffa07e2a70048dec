package coverage

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

func TestReadGoProfile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		files []decide.FileCoverage
	}{
		{
			name: "a set profile counts statements of covered blocks",
			in:   "mode: set\na.go:1.1,2.2 3 1\na.go:3.1,4.2 2 0\nb.go:1.1,1.9 1 0\n",
			files: []decide.FileCoverage{
				{Path: "a.go", Covered: 3, Total: 5}, {Path: "b.go", Covered: 0, Total: 1},
			},
		},
		{
			name:  "duplicate blocks in one run are merged, covered if any copy is",
			in:    "mode: count\na.go:1.1,2.2 3 0\na.go:3.1,4.2 2 0\na.go:1.1,2.2 3 7\n",
			files: []decide.FileCoverage{{Path: "a.go", Covered: 3, Total: 5}},
		},
		{
			name: "a file that comes back later merges with its first run",
			in: "mode: set\na.go:1.1,2.2 3 0\na.go:3.1,4.2 2 1\nb.go:1.1,1.9 1 1\n" +
				"mode: set\na.go:1.1,2.2 3 1\na.go:3.1,4.2 2 0\nb.go:1.1,1.9 1 0\n",
			files: []decide.FileCoverage{{Path: "a.go", Covered: 5, Total: 5}, {Path: "b.go", Covered: 1, Total: 1}},
		},
		{
			name:  "a file that comes back in another order merges too",
			in:    "mode: set\na.go:3.1,4.2 2 0\na.go:1.1,2.2 3 1\nb.go:1.1,1.9 1 1\na.go:1.1,2.2 3 0\na.go:3.1,4.2 2 1\n",
			files: []decide.FileCoverage{{Path: "a.go", Covered: 5, Total: 5}, {Path: "b.go", Covered: 1, Total: 1}},
		},
		{
			name:  "windows line endings and blank lines are accepted",
			in:    "mode: atomic\r\n\r\nc:/src/a.go:1.1,2.2 3 12\r\n",
			files: []decide.FileCoverage{{Path: "c:/src/a.go", Covered: 3, Total: 3}},
		},
		{
			name:  "huge counts are fine",
			in:    "mode: count\na.go:1.1,2.2 3 123456789012345678\n",
			files: []decide.FileCoverage{{Path: "a.go", Covered: 3, Total: 3}},
		},
		{
			name: "a mode line alone is an empty profile",
			in:   "mode: set\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadGoProfile("c.out", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.files, got.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			var c, n int64
			for _, f := range tt.files {
				c, n = c+f.Covered, n+f.Total
			}
			if got.Covered != c || got.Total != n || got.Format != "goprofile" {
				t.Errorf("totals %d/%d %q, want %d/%d goprofile", got.Covered, got.Total, got.Format, c, n)
			}
		})
	}
}

func TestReadGoProfileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "c.out:1: empty Go cover profile"},
		{"a block before the mode line", "a.go:1.1,2.2 1 1\n", `c.out:1: want a "mode: set|count|atomic" line first`},
		{"an unknown mode", "mode: sometimes\n", `c.out:1: unknown cover mode "sometimes"`},
		{"modes that disagree", "mode: set\na.go:1.1,2.2 1 1\nmode: count\n", `c.out:3: mode "count" differs from mode "set"`},
		{"a negative count", "mode: set\na.go:1.1,2.2 1 -1\n", "c.out:2: negative count"},
		{"a truncated line", "mode: set\na.go:1.1,2.2 1\n", "c.out:2: want \"file:line.col,line.col statements count\""},
		{"a missing file name", "mode: set\n:1.1,2.2 1 1\n", "c.out:2: want"},
		{"text after the count", "mode: set\na.go:1.1,2.2 1 1 x\n", `c.out:2: unexpected " x" after the count`},
		{"a count too long to be a number", "mode: set\na.go:1.1,2.2 1 1234567890123456789012\n", "c.out:2: bad number"},
		{"a block ending before it starts", "mode: set\na.go:5.1,2.2 1 1\n", "c.out:2: block ends (2.2) before it starts (5.1)"},
		{"duplicate blocks with different statement counts", "mode: set\na.go:3.1,4.2 2 1\na.go:1.1,2.2 1 1\na.go:1.1,2.2 2 1\n", "c.out:4: block 1.1,2.2 of a.go has 2 statements here but 1 at line 3"},
		{"a file coming back with other blocks", "mode: set\na.go:1.1,2.2 1 1\nb.go:1.1,2.2 1 1\na.go:1.1,2.3 1 1\n", "c.out:4: the blocks of a.go differ from those at line 2"},
		{"an LCOV record after the mode line", "mode: set\nSF:a.c\n", `c.out:2: bad number in "SF:a.c"`},
		{"a line over the cap", "mode: set\n" + strings.Repeat("x", MaxLineLen+10) + "\n", "c.out:2: line longer than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadGoProfile("c.out", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}

func TestReadGoProfileReportsReadErrors(t *testing.T) {
	t.Parallel()
	_, err := ReadGoProfile("c.out", iotest.TimeoutReader(strings.NewReader("mode: set\n"+strings.Repeat("a.go:1.1,2.2 1 1\n", 1))))
	// TimeoutReader fails the second read; one read may already hold all.
	if err != nil {
		checkParseError(t, err, "c.out:")
	}
	_, err = ReadGoProfile("c.out", iotest.ErrReader(errors.New("disk on fire")))
	checkParseError(t, err, "c.out:1: read failed: disk on fire")
}

// checkParseError checks that err is a one-line *parse.Error whose
// message starts with want.
func checkParseError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %T %v is not a *parse.Error", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, want) {
		t.Errorf("error %q, want it to start with %q", msg, want)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q spans several lines", msg)
	}
}

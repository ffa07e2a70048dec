package coverage

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadLCOV(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		files []decide.FileCoverage
	}{
		{
			name:  "DA lines count, LF and LH are ignored",
			in:    "TN:\nSF:a.c\nFN:1,f\nFNDA:1,f\nDA:1,1\nDA:2,0\nBRDA:2,0,0,-\nLF:9\nLH:9\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.c", Covered: 1, Total: 2}},
		},
		{
			name:  "the same file in two records counts each line once",
			in:    "SF:a.c\nDA:1,0\nDA:2,3\nend_of_record\nSF:b.c\nDA:1,1\nend_of_record\nSF:a.c\nDA:1,5\nDA:3,0\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.c", Covered: 2, Total: 3}, {Path: "b.c", Covered: 1, Total: 1}},
		},
		{
			name:  "a line listed twice in one record counts once",
			in:    "SF:a.c\nDA:2,0\nDA:1,0\nDA:2,4\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.c", Covered: 1, Total: 2}},
		},
		{
			name:  "coverage.py checksums, CRLF and 20-digit counts are accepted",
			in:    "SF:m.py\r\nDA:1,1,Uiy7C5ROIimrcGeYJWvaKg\r\nDA:2,18446744073709551615\r\nDA:3,0\r\nend_of_record\r\n",
			files: []decide.FileCoverage{{Path: "m.py", Covered: 2, Total: 3}},
		},
		{
			name:  "sparse line numbers are stored as a list and still merge",
			in:    "SF:a.c\nDA:1,0\nDA:2000000,0\nend_of_record\nSF:a.c\nDA:2000000,1\nDA:7,0\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.c", Covered: 1, Total: 3}},
		},
		{
			name:  "unknown upper-case records of newer lcov versions are skipped",
			in:    "VER:2\nSF:a.c\nFNL:0,1,3\nFNA:0,1,f\nDA:1,1\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.c", Covered: 1, Total: 1}},
		},
		{
			name:  "a record without lines is a file with nothing to cover",
			in:    "SF:a.h\nend_of_record\n",
			files: []decide.FileCoverage{{Path: "a.h"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadLCOV("lcov.info", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.files, got.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLCOVErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "lcov.info:1: no source file record"},
		{"a truncated record", "SF:a.c\nDA:1,1\n", `lcov.info:2: truncated: the record of "a.c" opened at line 1 has no end_of_record`},
		{"a DA line outside a record", "DA:1,1\n", "lcov.info:1: DA record outside a source file record"},
		{"a negative count", "SF:a.c\nDA:1,-1\nend_of_record\n", `lcov.info:2: bad line record "DA:1,-1": negative count`},
		{"a count that is not a number", "SF:a.c\nDA:1,x\nend_of_record\n", "lcov.info:2: bad line record"},
		{"a line number that is not a number", "SF:a.c\nDA:,1\nend_of_record\n", "lcov.info:2: bad line record"},
		{"a huge line number", "SF:a.c\nDA:99999999999,1\nend_of_record\n", "lcov.info:2: bad line record"},
		{"an SF inside an open record", "SF:a.c\nSF:b.c\n", `lcov.info:2: SF: while the record of "a.c" opened at line 1`},
		{"end_of_record without SF", "end_of_record\n", "lcov.info:1: end_of_record without SF:"},
		{"an empty path", "SF:\n", "lcov.info:1: empty SF: path"},
		{"a Go profile line in LCOV", "SF:a.c\nDA:1,1\nend_of_record\na.go:1.1,2.2 1 1\n", `lcov.info:4: not an LCOV record: "a.go:1.1,2.2 1 1"`},
		{"a line over the cap", "SF:a.c\nDA:1," + strings.Repeat("1", 2*MaxLineLen), "lcov.info:2: line longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadLCOV("lcov.info", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}

package guard

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCheckLargeTestFile judges a modified Go test file of 2 000
// tests (about 12 000 lines) where every test gained a line: the line diff,
// the marker scan of every added line and the declaration analysis of both
// sides.
func BenchmarkCheckLargeTestFile(b *testing.B) {
	var old, new strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&old, "func Test%d(t *testing.T) {\n\tif f(%d) != %d {\n\t\tt.Errorf(\"x\")\n\t}\n}\n\n", i, i, i)
		fmt.Fprintf(&new, "func Test%d(t *testing.T) {\n\tif f(%d) != %d {\n\t\tt.Errorf(\"x\")\n\t}\n\tif g(%d) {\n\t\tt.Error(\"g\")\n\t}\n}\n\n", i, i, i, i)
	}
	cs := []Change{{Path: "big_test.go", Old: []byte(old.String()), New: []byte(new.String()), OldExists: true, NewExists: true}}
	b.SetBytes(int64(new.Len()))
	for b.Loop() {
		if res := Check(cs, nil, nil, Metrics{}, Options{}); !res.OK() {
			b.Fatalf("refused: %v", res.Violations[0])
		}
	}
}

package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSniff is the cost of telling one file's format from its head:
// the first rule that matches for a report, every rule for a file of no
// format (prose, the worst case).
func BenchmarkSniff(b *testing.B) {
	heads := map[string][]byte{"none": []byte(strings.Repeat("Some prose that is no evidence at all.\n", 300))}
	for _, file := range []string{
		"coverage/testdata/lcov/c.info", "coverage/testdata/clover/phpunit.xml", "coverage/testdata/junit/gotestsum.xml",
		"decide/evidence/testdata/sarif-gosec.sarif", "decide/evidence/testdata/review-002.md",
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(file)))
		if err != nil {
			b.Fatal(err)
		}
		heads[filepath.Base(file)] = data[:min(len(data), SniffLen)]
	}
	for name, head := range heads {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(head)))
			for b.Loop() {
				Sniff(head, Any)
			}
		})
	}
}

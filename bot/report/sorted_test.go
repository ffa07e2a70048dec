package report

import (
	"slices"
	"sort"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// sortedByStableSorts is the order sorted keeps, written as two stable
// sorts: by severity, then by severity and the place the file first comes.
func sortedByStableSorts(fs []decide.Finding) []decide.Finding {
	out := append([]decide.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Severity) < rank(out[j].Severity) })
	first := map[string]int{}
	for i, f := range out {
		if _, ok := first[f.File]; !ok {
			first[f.File] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank(a.Severity) != rank(b.Severity) {
			return rank(a.Severity) < rank(b.Severity)
		}
		return first[a.File] < first[b.File]
	})
	return out
}

// FuzzSorted: each byte is a finding, its low bits its severity (invalid
// ones included), its high bits its file.
func FuzzSorted(f *testing.F) {
	f.Add([]byte{0x11, 0x22, 0x13, 0x31, 0x24, 0x10, 0x05, 0x16})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		fs := make([]decide.Finding, len(in))
		for i, b := range in {
			fs[i] = decide.Finding{Severity: decide.Severity(b & 7), File: string(rune('a' + b>>4)), Line: i}
		}
		if got, want := sorted(fs), sortedByStableSorts(fs); !slices.Equal(got, want) {
			t.Fatalf("%x: got %v, want %v", in, got, want)
		}
	})
}

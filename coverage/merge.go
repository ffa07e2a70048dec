package coverage

import (
	"slices"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// MergeFacts combines the coverage of several reports of one round, e.g. a
// Go profile for the backend and an LCOV file for the frontend. Files with
// distinct paths add up. A path present in both cannot be merged line by
// line from totals, so the entry that saw more instrumented lines wins
// (ties: the one with more lines covered) — a lower bound of the union
// that never counts a line twice. The format becomes "a+b" when they
// differ. Layer and Framework are taken from a, else b. When neither has
// line totals (run-<layer>.json), Percent is the larger of the two stated
// ones; otherwise Percent is left nil and the totals speak. Either argument
// may be nil; the arguments are not modified.
func MergeFacts(a, b *decide.CoverageFacts) *decide.CoverageFacts {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return cloneFacts(b)
	case b == nil:
		return cloneFacts(a)
	}
	out := &decide.CoverageFacts{
		Format:    mergeFormat(a.Format, b.Format),
		Layer:     cmpOr(a.Layer, b.Layer),
		Framework: cmpOr(a.Framework, b.Framework),
	}
	idx := make(map[string]int, len(a.Files)+len(b.Files))
	for _, fs := range [][]decide.FileCoverage{a.Files, b.Files} {
		for _, f := range fs {
			i, ok := idx[f.Path]
			if !ok {
				idx[f.Path] = len(out.Files)
				out.Files = append(out.Files, f)
				continue
			}
			old := out.Files[i]
			if f.Total > old.Total || f.Total == old.Total && f.Covered > old.Covered {
				out.Files[i] = f
			}
		}
	}
	for _, f := range out.Files {
		out.Covered += f.Covered
		out.Total += f.Total
	}
	// Totals of reports that list no files (none of ours, but be exact).
	if len(a.Files) == 0 && a.Total > 0 {
		out.Covered, out.Total = out.Covered+a.Covered, out.Total+a.Total
	}
	if len(b.Files) == 0 && b.Total > 0 {
		out.Covered, out.Total = out.Covered+b.Covered, out.Total+b.Total
	}
	if out.Total == 0 {
		switch {
		case a.Percent != nil && b.Percent != nil:
			v := max(*a.Percent, *b.Percent)
			out.Percent = &v
		case a.Percent != nil:
			v := *a.Percent
			out.Percent = &v
		case b.Percent != nil:
			v := *b.Percent
			out.Percent = &v
		}
	}
	return out
}

// MergeTests adds up the test results of several reports. A stated pass
// rate survives only when one report alone has test results.
func MergeTests(a, b *decide.TestFacts) *decide.TestFacts {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		c := *b
		c.Cases = slices.Clone(b.Cases)
		return &c
	case b == nil:
		c := *a
		c.Cases = slices.Clone(a.Cases)
		return &c
	}
	return &decide.TestFacts{
		Passed:  a.Passed + b.Passed,
		Failed:  a.Failed + b.Failed,
		Skipped: a.Skipped + b.Skipped,
		Cases:   append(slices.Clone(a.Cases), b.Cases...),
	}
}

func cloneFacts(f *decide.CoverageFacts) *decide.CoverageFacts {
	c := *f
	c.Files = slices.Clone(f.Files)
	if f.Percent != nil {
		v := *f.Percent
		c.Percent = &v
	}
	return &c
}

func mergeFormat(a, b string) string {
	if a == "" {
		return b
	}
	for _, p := range strings.Split(a, "+") {
		if p == b || b == "" {
			return a
		}
	}
	return a + "+" + b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

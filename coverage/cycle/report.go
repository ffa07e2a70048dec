package cycle

import (
	"fmt"
	"strings"
)

// Summary renders the cycle's one-line summary (DESIGN §2.5):
// "Round <n>: coverage <before>% -> <after>% (delta: +<d>%)", with
// " for <layer>" after the round when a layer is set and "n/a" for an
// unknown value.
func (r Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d", r.Round)
	if r.Layer != "" {
		fmt.Fprintf(&b, " for %s", r.Layer)
	}
	fmt.Fprintf(&b, ": coverage %s -> %s (delta: ", pct(r.Before.Coverage), pct(r.After.Coverage))
	if r.Before.Coverage != nil && r.After.Coverage != nil {
		fmt.Fprintf(&b, "%+.1f%%)", *r.After.Coverage-*r.Before.Coverage)
	} else {
		b.WriteString("n/a)")
	}
	return b.String()
}

// Markdown renders a short report: the summary, target, pass rate, the
// fixer's files, the verdict with every violation, and the notes.
func (r Result) Markdown() string {
	var b strings.Builder
	b.WriteString(r.Summary())
	b.WriteString("\n\n")
	reached := "not reached"
	if r.After.Coverage != nil && *r.After.Coverage >= r.Target-1e-9 {
		reached = "reached"
	}
	fmt.Fprintf(&b, "- target: %.1f%% (%s)\n", r.Target, reached)
	fmt.Fprintf(&b, "- pass rate: %s -> %s", rate(r.Before.PassRate), rate(r.After.PassRate))
	if r.Before.Tests != nil || r.After.Tests != nil {
		fmt.Fprintf(&b, " (%s -> %s)", tally(r.Before), tally(r.After))
	}
	b.WriteString("\n")
	if r.Before.ExitCode != 0 || r.After.ExitCode != 0 {
		fmt.Fprintf(&b, "- test command exit status: %d -> %d\n", r.Before.ExitCode, r.After.ExitCode)
	}
	switch n := len(r.Changes); n {
	case 0:
		b.WriteString("- the fixer changed no file\n")
	default:
		fmt.Fprintf(&b, "- the fixer changed %d %s: %s\n", n, plural(n, "file", "files"), codeList(r.Changes, 10))
	}
	switch {
	case len(r.Changes) == 0:
		b.WriteString("- **nothing to judge**\n")
	case r.Reverted && r.Guard.OK():
		b.WriteString("- **reverted**: the cycle could not finish\n")
	case r.Reverted:
		b.WriteString("- **reverted**: the change is not test-only or does not help:\n")
		for _, v := range r.Guard.Violations {
			fmt.Fprintf(&b, "  - %s\n", code(v.String()))
		}
	default:
		b.WriteString("- **accepted**: test-only change that improves the measurements\n")
	}
	for _, n := range append(append([]string(nil), r.Guard.Notes...), r.Notes...) {
		fmt.Fprintf(&b, "- note: %s\n", n)
	}
	return b.String()
}

// pct renders a percentage or "n/a".
func pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *p)
}

// rate renders a pass rate or "n/a".
func rate(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", *p)
}

// tally renders a test count.
func tally(m Measure) string {
	if m.Tests == nil {
		return "no test report"
	}
	return fmt.Sprintf("%d passed, %d failed, %d skipped", m.Tests.Passed, m.Tests.Failed, m.Tests.Skipped)
}

// plural picks the singular or plural word.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// codeList renders at most max items as code spans, counting the rest.
func codeList(items []string, max int) string {
	var parts []string
	for i, it := range items {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-max))
			break
		}
		parts = append(parts, code(it))
	}
	return strings.Join(parts, ", ")
}

// code renders s as a Markdown code span, whatever backticks it holds.
func code(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
